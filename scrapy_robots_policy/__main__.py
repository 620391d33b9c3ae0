"""Command line: ``python -m scrapy_robots_policy <command> ...``.

Each command is one ``add_<name>`` function registering an argparse subcommand and its
handler, so commands can be added without touching the others.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .robotstxt import RobotsTxt

EXIT_ALLOWED = 0
EXIT_DISALLOWED = 1
EXIT_USAGE = 2


def _read_robots(source: str) -> bytes:
    """The robots.txt body from a file path, or from standard input for "-"."""
    if source == "-":
        return sys.stdin.buffer.read()
    with open(source, "rb") as handle:
        return handle.read()


def run_check(args: argparse.Namespace) -> int:
    """Print the verdict and deciding line per URL; exit 1 if any URL is disallowed."""
    try:
        body = _read_robots(args.robots)
    except OSError as error:
        print(f"error: cannot read {args.robots}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    rules = RobotsTxt.parse(body)
    status = EXIT_ALLOWED
    for url in args.urls:
        decision = rules.decide(url, args.user_agent)
        if decision.line is not None:
            reason = f"line {decision.line}: {decision.rule}"
        else:
            reason = "no rule matched"
        verdict = "allowed" if decision.allowed else "disallowed"
        print(f"{verdict:<10}  {url}  ({reason})")
        if not decision.allowed:
            status = EXIT_DISALLOWED
    return status


def add_check(commands: argparse._SubParsersAction) -> None:
    check = commands.add_parser(
        "check",
        help="check URLs against a robots.txt",
        description=(
            "Check URLs against a robots.txt, as Google's parser and RFC 9309 read it. "
            "Exit status: 0 if every URL is allowed, 1 if any is disallowed."
        ),
    )
    check.add_argument("robots", metavar="ROBOTS", help="robots.txt file path, or - for stdin")
    check.add_argument("urls", metavar="URL", nargs="+", help="absolute URL or path to check")
    check.add_argument(
        "-A",
        "--user-agent",
        default="*",
        metavar="NAME",
        help="crawler product token or full User-Agent (default: *, i.e. no own group)",
    )
    check.set_defaults(handler=run_check)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scrapy_robots_policy",
        description="robots.txt and robots directives, as Scrapy's robots policy sees them.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_check(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
