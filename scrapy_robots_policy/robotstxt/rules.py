"""The rules builder: the lines of the groups that apply to a crawler, read when it first
asks, become a ``Matcher`` (its rules filed by literal prefix, and its Crawl-delay)."""

from __future__ import annotations

import math

from .agents import Span, first_naming
from .lines import BLANKS, GROUP_LINE
from .matcher import NO_RULES, Matcher
from .patterns import PLAIN, Entry, compile_pattern, normalize_pattern


def build(data: bytes, spans: list[Span], indexes: list[int], token: bytes | None) -> Matcher:
    """Read the rule lines of the given groups (merged, in file order) for ``token``."""
    by_prefix: dict[str, Entry] = {}
    crowded: dict[str, list[Entry]] = {}
    delay: float | None = None
    pos, first_line = 0, 1  # counted on from the last group: linear in the file
    for index in indexes:
        group_start, start, end = spans[index]
        first_line += data.count(b"\n", pos, start)
        pos = start
        # Crawl-delay lines may stand among a group's user-agent lines (they do not end
        # the run, and then the group is read from its start): each agent takes the
        # first one after its own user-agent line, "User-agent: a / Crawl-delay: 1 /
        # User-agent: b / Crawl-delay: 2" gives b 2 seconds. Found when needed.
        delay_after: int | None = 0 if start != group_start else None
        text = data[start:end].decode("latin-1")
        # Without "%" or non-ASCII octets, only a "$" before the end needs normalising.
        plain = text.isascii() and "%" not in text
        # One event per line, so a rule's line number is its position in the list.
        events = GROUP_LINE.findall(text)
        for line, (allow_key, delay_key, value) in enumerate(events, first_line):
            value = value.rstrip(BLANKS)
            if not value:
                continue  # not a rule, or an empty one (Google: matches nothing)
            if delay_key:
                if delay is None:
                    if delay_after is None:
                        named = max(first_naming(data, spans[index], token), start)
                        delay_after = first_line + data.count(b"\n", start, named)
                    if line > delay_after:
                        delay = _parse_delay(value.encode("latin-1"))
                continue
            if (not plain and (not value.isascii() or "%" in value)) or (
                "$" in value and "$" in value[:-1]
            ):
                pattern = normalize_pattern(value.encode("latin-1"))
            else:
                pattern = value
            allow = allow_key != ""
            if "*" in pattern or "$" in pattern:
                _add(by_prefix, crowded, pattern, allow, line)
            else:
                # What _add files for a plain pattern, without the calls.
                entry = (len(pattern), allow, line, PLAIN, "", (), pattern)
                if by_prefix.setdefault(pattern, entry) is not entry:
                    _another_on_prefix(by_prefix, crowded, pattern, entry)
            if allow and "/index.htm" in pattern:
                slash = pattern.rfind("/")
                if pattern.startswith("/index.htm", slash):
                    # Google-specific: allowing ".../index.htm(l)" also allows the
                    # directory itself, ".../" exactly.
                    _add(by_prefix, crowded, pattern[: slash + 1] + "$", True, line)
    if not by_prefix and delay is None:
        return NO_RULES
    return Matcher(by_prefix, crowded, delay)


def _add(
    by_prefix: dict[str, Entry],
    crowded: dict[str, list[Entry]],
    pattern: str,
    allow: bool,
    line: int,
) -> None:
    """File one normalised rule under its literal prefix."""
    prefix, kind, last, middles = compile_pattern(pattern)
    entry = (len(pattern), allow, line, kind, last, middles, pattern)
    if by_prefix.setdefault(prefix, entry) is not entry:
        _another_on_prefix(by_prefix, crowded, prefix, entry)


def _another_on_prefix(
    by_prefix: dict[str, Entry], crowded: dict[str, list[Entry]], prefix: str, entry: Entry
) -> None:
    """Another rule for a prefix already in ``by_prefix`` (one rule each is the usual case)."""
    same = crowded.get(prefix)
    if same is None:
        crowded[prefix] = [by_prefix[prefix], entry]
    else:
        same.append(entry)


def _parse_delay(value: bytes) -> float | None:
    try:
        delay = float(value)
    except ValueError:
        return None
    return delay if math.isfinite(delay) and delay >= 0 else None
