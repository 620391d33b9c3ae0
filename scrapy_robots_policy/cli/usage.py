"""What ``--purpose`` adds to ``check`` and ``directives``: the usage decisions and the
signals that decided, decided by the crawl's own
:class:`~scrapy_robots_policy.usage.policy.UsagePolicy`."""

from __future__ import annotations

import argparse

from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from scrapy_robots_policy.usage import PURPOSES
from scrapy_robots_policy.usage.policy import UsagePolicy, UsageReading


def add_purpose_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--purpose", action="append", choices=PURPOSES, default=[], metavar="PURPOSE",
        help=f"also decide this use of the content ({', '.join(PURPOSES)}), with the "
             "signals that decided; repeatable; exit status 1 if one is refused")


def policy(purposes: list[str]) -> UsagePolicy:
    return UsagePolicy(RobotsPolicySettings(purposes=tuple(dict.fromkeys(purposes))))


def describe(reading: UsageReading) -> list[str]:
    """One line per purpose (allowed / refused, and by what), then what was ignored (values
    that do not parse, and labels that name no purpose here)."""
    lines = [f"{'allowed' if d.allowed else 'refused'} for {d.purpose}: "
             f"{d.signal.evidence if d.signal else 'no signal'}"
             + (f" ({d.signal.source})" if d.signal else "") for d in reading.decisions]
    others = [s for s in reading.signals if all(s is not d.signal for d in reading.decisions)
              and s.purpose in reading.purposes]
    lines.extend(f"  also: {s.purpose} {'allowed' if s.allowed else 'refused'} by "
                 f"{s.evidence} ({s.source})" for s in others)
    lines.extend(f"  ignored: {problem}" for problem in reading.problems)
    lines.extend(f"  ignored: label {label.label!r} ({label.evidence}): {label.why}"
                 for label in reading.ignored)
    return lines
