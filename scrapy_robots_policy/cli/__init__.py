"""Command line: ``python -m scrapy_robots_policy <command> ...`` or ``scrapy-robots-policy``.

Each command is a module with an ``add`` function registering its argparse subcommand
and handler, so commands can be added without touching the others.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from scrapy_robots_policy.cli import check, directives

#: The console script installed by pip; the same as ``python -m scrapy_robots_policy``.
SCRIPT = "scrapy-robots-policy"


def _add_demo(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = commands.add_parser(
        "demo",
        help="crawl a bundled demo site on 127.0.0.1 and report what robots rules did",
        description=(
            "Start a small demo site on 127.0.0.1 (several origins), crawl it with the "
            "add-on and print what was crawled, refused, dropped and not followed, and why. "
            "Needs no network."
        ),
    )
    demo.add_argument("--serve", action="store_true",
                      help="only serve the demo site (until Ctrl-C), to try the other commands")
    demo.set_defaults(handler=_run_demo)


def _run_demo(args: argparse.Namespace) -> int:
    from scrapy_robots_policy.demo import main as demo_main  # imports Scrapy: only if asked

    return demo_main(serve_only=args.serve)


def build_parser() -> argparse.ArgumentParser:
    script = bool(sys.argv) and os.path.basename(sys.argv[0]) == SCRIPT
    parser = argparse.ArgumentParser(
        prog=SCRIPT if script else "python -m scrapy_robots_policy",
        description="robots.txt and robots directives, as Scrapy's robots policy sees them.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    check.add(commands)
    directives.add(commands)
    _add_demo(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))
