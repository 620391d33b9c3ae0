"""Command line: ``python -m scrapy_robots_policy <command> ...`` or ``scrapy-robots-policy``.

Each command is a module with ``HELP``, ``DESCRIPTION``, ``configure(parser)`` (its
arguments) and ``run(args)`` (its exit status), so commands can be added without touching
the others.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from scrapy_robots_policy.cli import audit, check, demo, directives

#: The console script installed by pip; the same as ``python -m scrapy_robots_policy``.
SCRIPT = "scrapy-robots-policy"
COMMANDS = {"check": check, "directives": directives, "audit": audit, "demo": demo}


def build_parser() -> argparse.ArgumentParser:
    script = bool(sys.argv) and os.path.basename(sys.argv[0]) == SCRIPT
    parser = argparse.ArgumentParser(
        prog=SCRIPT if script else "python -m scrapy_robots_policy",
        description="robots.txt and robots directives, as Scrapy's robots policy sees them.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, command in COMMANDS.items():
        sub = commands.add_parser(name, help=command.HELP, description=command.DESCRIPTION)
        command.configure(sub)
        sub.set_defaults(handler=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))
