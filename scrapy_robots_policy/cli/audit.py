"""``audit FEED [--field NAME] [--purpose P]...``: the compliance records of a feed, checked.

Reads a feed written with ``ROBOTS_POLICY_ITEM_FIELD`` (JSON lines, or Scrapy's ``.json``
array: the first character tells) one line at a time. Memory grows with the origins and
distinct signals seen (and the longest item), not with the number of items: the items
to list wait in a temporary file.

Without ``--field``, the record is found in the items: the field whose value has the
shape ``page.record.page_record`` writes (``robotstxt`` and ``directives`` keys),
``robots`` first; the header line names the field used.

An item without a record fails the audit as one that contradicts its purposes does: the
point of an audit is that every kept item shows why it could be kept, and a feed whose
records are all missing (a misspelt ``--field``, a pipeline that drops the field, items
the spider middleware never saw) must not pass with nothing checked. So do unreadable lines
and malformed records: they are items whose compliance cannot be shown; so do items not
recorded for a ``--purpose`` (the crawl did not declare it: nothing shows the item may be
used for it), counted apart from those that contradict it; and so does an empty feed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TextIO

from scrapy_robots_policy.cli import common
from scrapy_robots_policy.cli.feed import FeedReader, Unchecked
from scrapy_robots_policy.fetch.origin import origin_of
from scrapy_robots_policy.usage import PURPOSES

HELP = "check the compliance records of a crawl's feed against its purposes"
DESCRIPTION = (
    "Read a JSON-lines feed (or Scrapy's .json array) written with ROBOTS_POLICY_ITEM_FIELD "
    "and print, per origin, the usage signals seen and the items per decision; then list "
    "the items whose record is missing, malformed, refuses a purpose or does not record "
    "it. Exit status: 0 if every item is consistent, 1 if any is listed or FEED holds no "
    "item, 2 if FEED cannot be read as JSON.")

UNKNOWN_ORIGIN = "unknown origin"
#: The field ROBOTS_POLICY_ITEM_FIELD is set to in the documentation: tried first.
DEFAULT_FIELD = "robots"
#: The keys every record has (``page.record.page_record``): how a record is recognised.
RECORD_KEYS = ("robotstxt", "directives")


def configure(audit: argparse.ArgumentParser) -> None:
    audit.add_argument("feed", metavar="FEED",
                       help="feed path (.jl/.jsonl lines, or a .json array), or - for stdin")
    audit.add_argument("--field", metavar="NAME",
                       help="the item field holding the record, as ROBOTS_POLICY_ITEM_FIELD "
                            f"(default: the field holding a record, {DEFAULT_FIELD!r} first)")
    audit.add_argument("--purpose", action="append", choices=PURPOSES, metavar="P",
                       help=f"a purpose to check every item against ({', '.join(PURPOSES)}); "
                            "repeatable (default: the purposes each record declares)")


class Record(NamedTuple):
    """What the audit reads of one compliance record."""

    origin: str
    decisions: dict[str, bool]  # purpose -> allowed; empty without a usage part
    signals: tuple[tuple[str, str, bool, str], ...]  # source, purpose, allowed, evidence


def is_record(value: Any) -> bool:
    """Whether ``value`` has the shape of a compliance record (malformed parts or not)."""
    return isinstance(value, dict) and all(key in value for key in RECORD_KEYS)


def find_field(item: Any) -> str | None:
    """The field of ``item`` holding a record: ``robots`` first, else the first that does."""
    if not isinstance(item, dict):
        return None
    if is_record(item.get(DEFAULT_FIELD)):
        return DEFAULT_FIELD
    return next((str(name) for name, value in item.items() if is_record(value)), None)


def read_record(item: Any, name: str | None) -> Record | Unchecked:
    """The record in ``item[name]``, or why there is none to check (``name`` None: no field
    of the feed was found holding one)."""
    if not isinstance(item, dict):
        return Unchecked("not an object", "not a JSON object")
    if name is None:
        if DEFAULT_FIELD in item:  # say what is wrong with it rather than "no record"
            return read_record(item, DEFAULT_FIELD)
        return Unchecked("no record", "no field holds a compliance record")
    record = item.get(name)
    if record is None:
        return Unchecked("no record", f"{name!r} is null" if name in item
                         else f"no {name!r} field")
    if not isinstance(record, dict):
        return Unchecked("malformed record", f"{name!r} is not an object")
    robotstxt = record.get("robotstxt")
    if robotstxt is not None and not (isinstance(robotstxt, dict)
                                      and isinstance(robotstxt.get("url"), str)):
        return Unchecked("malformed record", "robotstxt is neither null nor an object with a url")
    found = origin_of(robotstxt["url"]) if robotstxt else None
    origin = str(found) if found else UNKNOWN_ORIGIN
    usage = record.get("usage")
    if usage is None:
        return Record(origin, {}, ())
    purposes = usage.get("purposes") if isinstance(usage, dict) else None
    signals = usage.get("signals", []) if isinstance(usage, dict) else None
    if not (isinstance(purposes, dict)
            and all(isinstance(allowed, bool) for allowed in purposes.values())):
        return Unchecked("malformed record", "usage.purposes is not an object of true/false")
    if not (isinstance(signals, list) and all(_is_signal(signal) for signal in signals)):
        return Unchecked("malformed record", "usage.signals is not a list of signals")
    return Record(origin, purposes, tuple(
        (s["source"], s["purpose"], s["allowed"], s["evidence"]) for s in signals))


def _is_signal(signal: Any) -> bool:
    return (isinstance(signal, dict) and isinstance(signal.get("allowed"), bool)
            and all(isinstance(signal.get(key), str)
                    for key in ("source", "purpose", "evidence")))


def contradictions(record: Record, checked: Iterable[str]) -> list[str]:
    """Each checked purpose the record refuses, with the refusing signal."""
    found = []
    for purpose in checked:
        if record.decisions.get(purpose) is False:
            said = next((evidence for _, about, yes, evidence in record.signals
                         if about == purpose and not yes), None)
            found.append(f"{purpose} refused" + (f" ({said})" if said else ""))
    return found


def unrecorded(record: Record, checked: Iterable[str]) -> list[str]:
    """Each checked purpose the record holds no decision about: the crawl did not declare
    it, which is neither allowed nor refused."""
    return [purpose for purpose in checked if purpose not in record.decisions]


@dataclass
class OriginTally:
    """What one origin's items said: bounded by its purposes and distinct signals."""

    items: int = 0
    without_usage: int = 0
    signals: Counter[tuple[str, str, bool, str]] = field(default_factory=Counter)
    decisions: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, record: Record, checked: Iterable[str]) -> None:
        self.items += 1
        self.without_usage += not record.decisions
        self.signals.update(set(record.signals))
        for purpose in dict.fromkeys([*record.decisions, *checked]):
            allowed = record.decisions.get(purpose)
            verdict = "not recorded" if allowed is None else "allowed" if allowed else "refused"
            self.decisions.setdefault(purpose, Counter())[verdict] += 1

    def lines(self, origin: str) -> list[str]:
        found = [f"{origin}: {_count(self.items, 'item')}"]
        for (source, purpose, allowed, evidence), items in self.signals.items():
            verdict = "allows" if allowed else "refuses"
            found.append(f"  signal: {source} {verdict} {purpose}: {evidence} "
                         f"({_count(items, 'item')})")
        for purpose, verdicts in self.decisions.items():
            counts = ", ".join(f"{count} {verdict}" for verdict, count in sorted(
                verdicts.items()))
            found.append(f"  {purpose}: {counts}")
        if self.without_usage:
            found.append(f"  no usage part (no purposes declared): {self.without_usage}")
        return found


@dataclass
class Audit:
    """What reading a feed found: the tallies per origin, the items per kind, the record
    field (given, found in the items, or ``None``: none found) and the checked purposes
    some record does not hold."""

    record_field: str | None
    tallies: dict[str, OriginTally] = field(default_factory=dict)
    kinds: Counter[str] = field(default_factory=Counter)
    unrecorded: dict[str, None] = field(default_factory=dict)  # an ordered set


def run(args: argparse.Namespace) -> int:
    """Print the tallies per origin, then the items to look at; exit 1 if there is any,
    or if the feed holds no item (nothing was checked)."""
    name = "standard input" if args.feed == "-" else args.feed
    try:
        with _open(args.feed) as feed, tempfile.TemporaryFile("w+", encoding="utf-8") as listed:
            reader = FeedReader(feed)
            audit = _audit(reader, args, listed)
            kinds = audit.kinds
            listed.seek(0)
            if not kinds["item"] and kinds["unreadable line"]:
                first = listed.readline().strip()
                print(f"error: {name} is neither JSON lines nor a JSON array: {first}",
                      file=sys.stderr)
                return common.EXIT_USAGE
            if not kinds["item"]:
                _report_empty(name, reader)
                return common.EXIT_DISALLOWED
            _report(name, reader, args, audit, listed)
    except OSError as error:
        print(f"error: cannot read {name}: {error.strerror or error}", file=sys.stderr)
        return common.EXIT_USAGE
    return common.EXIT_DISALLOWED if kinds["listed"] else common.EXIT_ALLOWED


@contextlib.contextmanager
def _open(feed: str) -> Iterator[TextIO]:
    """The feed as text; undecodable bytes become U+FFFD, and so an unreadable line."""
    if feed != "-":
        with open(feed, encoding="utf-8-sig", errors="replace") as handle:
            yield handle
        return
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", errors="replace")
    try:
        yield stdin
    finally:
        stdin.detach()  # standard input stays open for whoever reads it next


def _audit(reader: FeedReader, args: argparse.Namespace, listed: TextIO) -> Audit:
    """Tally every record per origin, writing each item to list to ``listed``."""
    audit = Audit(args.field)
    kinds = audit.kinds
    checked = tuple(dict.fromkeys(args.purpose or ()))
    for line, item in reader:
        if isinstance(item, Unchecked):
            record: Record | Unchecked = item
        else:
            kinds["item"] += 1
            if audit.record_field is None:  # the first item holding a record names the field
                audit.record_field = find_field(item)
            record = read_record(item, audit.record_field)
        if isinstance(record, Unchecked):
            kinds[record.kind] += 1
            problems = [f"{record.kind}: {record.why}"]
        else:
            audit.tallies.setdefault(record.origin, OriginTally()).add(record, checked)
            problems = contradictions(record, checked or record.decisions)
            missing = unrecorded(record, checked)
            audit.unrecorded.update(dict.fromkeys(missing))
            kinds["contradicting" if problems else "not recorded" if missing
                  else "consistent"] += 1
            if missing:
                declared = ", ".join(record.decisions) or "none"
                problems.append(f"not recorded for {', '.join(missing)} "
                                f"(purposes recorded: {declared})")
        if problems:
            kinds["listed"] += 1
            url = item.get("url") if isinstance(item, dict) else None
            who = f"  {url[:100]}" if isinstance(url, str) else ""
            listed.write(f"  line {line}{who}  {'; '.join(problems)}\n")
    return audit


def _report_empty(name: str, reader: FeedReader) -> None:
    what = "a JSON array without items" if reader.kind == "JSON array" else "empty"
    print(f"{name}: {what}: no item to audit")
    if reader.unclosed:
        print(f"note: the JSON array of {name} is not closed (did the crawl stop early?)",
              file=sys.stderr)


def _report(name: str, reader: FeedReader, args: argparse.Namespace, audit: Audit,
            listed: TextIO) -> None:
    kinds, tallies = audit.kinds, audit.tallies
    checked = ", ".join(args.purpose) if args.purpose else "as each record declares"
    if audit.record_field is None:
        used = "no record field found (no field of an item holds a compliance record)"
    elif args.field is not None or audit.record_field == DEFAULT_FIELD:
        used = f"record field {audit.record_field!r}"
    else:
        used = f"record field {audit.record_field!r} (found in the items; --field to name another)"
    print(f"{name}: {reader.kind}, {used}, purposes: {checked}")
    if reader.unclosed:
        print(f"note: the JSON array of {name} is not closed (did the crawl stop early?)",
              file=sys.stderr)
    for origin in sorted(tallies, key=lambda origin: origin == UNKNOWN_ORIGIN):
        print("\n".join(tallies[origin].lines(origin)))
    if kinds["listed"]:
        print(f"{kinds['listed']} to look at:")
        for line in listed:
            print(line, end="")
    not_recorded = f"not recorded for {' or '.join(audit.unrecorded)}"
    counts = "".join(f", {kinds[kind]} {label}" for kind, label in (
        ("contradicting", "contradicting"), ("not recorded", not_recorded),
        ("no record", "without a record"), ("malformed record", "with a malformed record"),
        ("not an object", "not an object"),
    ) if kinds[kind])
    unreadable = kinds["unreadable line"]
    print(f"{_count(kinds['item'], 'item')}: {kinds['consistent']} consistent{counts}"
          + (f"; {_count(unreadable, 'unreadable line')}" if unreadable else ""))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
