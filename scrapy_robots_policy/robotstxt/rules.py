"""The rules builder: the lines of the groups that apply to a crawler, read when it first
asks, become a ``Matcher`` (its plain rules in a dictionary, the others filed by literal
prefix, and its Crawl-delay).

The values of a group are read at C speed, one list per key with an item per line
(``ALLOW_VALUE`` ...), so a rule's line number is its position in the list (or, for a
key with few lines among many, line by line: ``_first_values``): Python only looks at
the distinct values of groups that have "*", "$", "%" or non-ASCII octets, and at
Crawl-delay values.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import repeat
from operator import methodcaller

from .agents import Span, first_naming, group_span
from .bulk import without_collections
from .lines import (
    ALLOW_LINE,
    ALLOW_VALUE,
    BLANKS,
    CRAWL_DELAY_VALUE,
    DISALLOW_LINE,
    DISALLOW_VALUE,
    GROUP_LINE,
)
from .matcher import ALLOWS, DISALLOWS, NO_RULES, Matcher
from .patterns import (
    PLAIN,
    CompiledRule,
    compile_alike,
    compile_pattern,
    normalize_pattern,
)
from .precedence import Rule

#: From this many distinct values of a key in a group on, they are filed in passes over
#: them all; fewer, one by one (a pass costs more than a few rules).
_IN_BULK = 32
#: Wildcard values of up to this many different counts of "*" are compiled a count at a
#: time; more (a thousand of "/*", "/**", ...) one by one.
_STAR_COUNTS = 8
#: A key is read with an item per line of its group when at least one line in this many
#: is its (a match read line by line costs about as much as eight lines of another kind).
_DENSE = 8
# A "$" before the end of a value (the values joined by "\n"): a literal, "%24".
_INNER_DOLLAR = re.compile(r"\$(?!\n|\Z)")


@without_collections
def build(data: bytes, spans: array[int], indexes: list[int], token: bytes | None) -> Matcher:
    """Read the rule lines of the given groups (merged, in file order) for ``token``."""
    allows: list[str] = []
    disallows: list[str] = []
    wild: dict[str, list[CompiledRule]] = {}
    delay: float | None = None
    pos, first_line = 0, 1  # counted on from the last group: linear in the file
    for index in indexes:
        span = group_span(spans, index)
        _, start, end = span
        first_line += data.count(b"\n", pos, start)
        pos = start
        text = data[start:end].decode("latin-1")
        allowed, disallowed = _first_values(text)
        if text.isascii() and not ("*" in text or "$" in text or "%" in text):
            # Every value is its own plain pattern.
            allows += allowed
            disallows += disallowed
            if "/index.htm" in text:
                _index_pages(wild, allowed.items(), first_line)
        else:
            plain = text.isascii() and "%" not in text
            _read_values(wild, allows, allowed, True, first_line, plain)
            _read_values(wild, disallows, disallowed, False, first_line, plain)
        if delay is None:
            delay = _delay_in(data, span, text, token)
    # Allow wins over a disallow of the same pattern; "" is no rule (Google: an empty
    # value matches nothing).
    plain_rules = dict.fromkeys(disallows, DISALLOWS)
    plain_rules.update(dict.fromkeys(allows, ALLOWS))
    plain_rules.pop("", None)
    if not plain_rules and not wild and delay is None:
        return NO_RULES
    return Matcher(plain_rules, wild, delay, _GroupLines(data, spans, indexes))


def _first_values(text: str) -> tuple[dict[str, int], dict[str, int]]:
    """Each distinct value of a group's allow lines, then of its disallow lines, with the
    offset of the first line writing it (from the group's first rule line on).

    A key whose lines are a good part of the group's is read with one match per line of
    the group, at C speed (its value, or "" for a line of another kind); a key with few
    lines among many others, line by line, so that a group of 250,000 empty lines is not
    a list of 250,000 items."""
    low = "\n" + text.lower()
    lines = low.count("\n")
    # Lines starting with the key's first letters: an estimate (blanks may come first).
    allow_lines = low.count("\nallow")
    disallow_lines = low.count("\ndi")
    return (
        _firsts(text, ALLOW_VALUE, ALLOW_LINE, dense=allow_lines * _DENSE >= lines),
        _firsts(text, DISALLOW_VALUE, DISALLOW_LINE, dense=disallow_lines * _DENSE >= lines),
    )


def _firsts(
    text: str, every_line: re.Pattern[str], its_lines: re.Pattern[str], *, dense: bool
) -> dict[str, int]:
    """``_first_values`` of one key: by ``every_line`` (an item per line) or by
    ``its_lines`` (a match per line of that key)."""
    if dense:
        values = every_line.findall(text)
        # At C speed: the later (reversed: earlier) offsets overwrite.
        return dict(zip(reversed(values), range(len(values) - 1, -1, -1), strict=True))
    firsts: dict[str, int] = {}
    lined = "\n" + text  # a match starts at the "\n" before its line
    offset, counted = 0, 1
    for found in its_lines.finditer(lined):
        start = found.start() + 1
        offset += lined.count("\n", counted, start)
        counted = start
        firsts.setdefault(found.group(1), offset)
    return firsts


def _delay_in(data: bytes, span: Span, text: str, token: bytes | None) -> float | None:
    """The Crawl-delay a group's ``text`` (its lines from ``span``'s rules on) gives
    ``token``, or None."""
    if "rawl" not in text.lower():
        return None
    # Crawl-delay lines may stand among a group's user-agent lines (they do not end the
    # run, and then the group is read from its start): each agent takes the first one
    # after its own user-agent line, "User-agent: a / Crawl-delay: 1 / User-agent: b /
    # Crawl-delay: 2" gives b 2 seconds.
    group_start, start, _ = span
    after = 0
    if start == group_start:
        named = max(first_naming(data, span, token), start)
        after = data.count(b"\n", start, named) + 1
    return _first_delay(CRAWL_DELAY_VALUE.findall(text)[after:])


def _read_values(
    wild: dict[str, list[CompiledRule]],
    plain: list[str],
    firsts: dict[str, int],
    allow: bool,
    first_line: int,
    ascii_only: bool,
) -> None:
    """File a group's distinct values of one key, each with the offset of its first line:
    plain patterns into ``plain``, the others by literal prefix into ``wild``."""
    firsts.pop("", None)
    if len(firsts) < _IN_BULK or not ascii_only or _INNER_DOLLAR.search("\n".join(firsts)):
        _read_one_by_one(wild, plain, firsts, allow, first_line, ascii_only)
        return
    # Each value is its own pattern: the rules are filed in passes over them all (a group
    # can hold 40,000, read on a first question).
    with_wildcards = [value for value in firsts if "*" in value or "$" in value]
    if len(with_wildcards) < len(firsts):
        plain += (value for value in firsts if "*" not in value and "$" not in value)
        offsets: Iterable[int] = map(firsts.__getitem__, with_wildcards)
    else:
        offsets = firsts.values()
    if with_wildcards:
        _file(wild, with_wildcards, allow, map(first_line.__add__, offsets))
    if allow and "/index.htm" in "".join(firsts):
        _index_pages(
            wild, ((v, o) for v, o in firsts.items() if "/index.htm" in v), first_line
        )


def _read_one_by_one(
    wild: dict[str, list[CompiledRule]],
    plain: list[str],
    firsts: dict[str, int],
    allow: bool,
    first_line: int,
    ascii_only: bool,
) -> None:
    """``_read_values`` for a few values, or a group with "%", non-ASCII octets or a "$"
    before the end of a value: each value is normalised, and two values can give one
    pattern ("/%61" and "/a"), a pattern without "*" or "$" ("/a$b" is "/a%24b")."""
    for value, offset in firsts.items():
        pattern = _pattern(value, ascii_only)
        if "*" not in pattern and "$" not in pattern:
            plain.append(pattern)
        else:
            _add(wild, pattern, allow, first_line + offset)
        if allow and "/index.htm" in pattern:
            _index_pages(wild, [(pattern, offset)], first_line)


def _file(
    wild: dict[str, list[CompiledRule]], patterns: list[str], allow: bool, lines: Iterable[int]
) -> None:
    """File normalised rules with a "*" or "$" under their literal prefixes: those with
    as many "*" as each other compiled and filed together at C speed (see
    ``compile_alike``)."""
    columns = compile_alike(patterns)
    if columns is None:
        stars = list(map(methodcaller("count", "*"), patterns))
        if len(patterns) >= _IN_BULK and 1 < len(set(stars)) <= _STAR_COUNTS:
            # Each count of "*" on its own (a rule's place in its list is its sort's).
            at = list(lines)
            by_count: dict[int, list[int]] = {}
            for n, count in enumerate(stars):
                by_count.setdefault(count, []).append(n)
            for alike in by_count.values():
                _file(wild, [patterns[n] for n in alike], allow, [at[n] for n in alike])
            return
        for pattern, line in zip(patterns, lines, strict=True):
            # ``_add``, inline: a group can hold 30,000 of them, read on a first question.
            prefix, kind, last, between = compile_pattern(pattern)
            same = wild.get(prefix)
            if same is None:
                same = wild[prefix] = []
            else:
                prefix = same[0].prefix  # one string per prefix, not one per rule
            same.append(CompiledRule(len(pattern), allow, line, kind, last, between, prefix))
        return
    prefixes, kinds, lasts, middles = columns
    # One string per prefix, not one per rule: the one its list is filed under.
    shared = dict(zip(wild, wild, strict=True))
    prefixes = list(map(shared.setdefault, prefixes, prefixes))
    for prefix in shared:
        if prefix not in wild:
            wild[prefix] = []
    rules = map(
        CompiledRule, map(len, patterns), repeat(allow), lines, kinds, lasts, middles, prefixes
    )
    deque(map(list.append, map(wild.__getitem__, prefixes), rules), maxlen=0)


def _index_pages(
    wild: dict[str, list[CompiledRule]], allowed: Iterable[tuple[str, int]], first_line: int
) -> None:
    """File the rule ``_directory_of`` each allowed index page (a pattern and the offset
    of its line from ``first_line``), at its line."""
    for pattern, offset in allowed:
        directory = _directory_of(pattern)
        if directory is not None:
            _add(wild, directory, True, first_line + offset)


def _directory_of(allowed: str) -> str | None:
    """Google-specific: allowing ".../index.htm(l)" also allows the directory itself,
    ".../" exactly: that rule, or None."""
    slash = allowed.rfind("/")
    if slash >= 0 and allowed.startswith("/index.htm", slash):
        return allowed[: slash + 1] + "$"
    return None


def _first_delay(values: list[str]) -> float | None:
    """The first valid Crawl-delay among a group's values (an item per line)."""
    for value in filter(None, values):
        delay = _parse_delay(value.encode("latin-1"))
        if delay is not None:
            return delay
    return None


def _pattern(value: str, ascii_only: bool) -> str:
    """The normalised pattern of a rule's value (``ascii_only``: its group's text has no
    "%" or non-ASCII octet)."""
    if (not ascii_only and (not value.isascii() or "%" in value)) or (
        "$" in value and "$" in value[:-1]
    ):
        return normalize_pattern(value.encode("latin-1"))
    return value


class _GroupLines:
    """The ``RuleLines`` of some groups: their lines are read again only when a rule is
    reported, and what a report found is kept (a crawl reports the rule of every refusal,
    and few rules refuse)."""

    __slots__ = ("_data", "_indexes", "_lines", "_patterns", "_spans")

    def __init__(self, data: bytes, spans: array[int], indexes: list[int]) -> None:
        self._data = data
        self._spans = spans
        self._indexes = indexes
        self._lines: dict[tuple[bool, str], int] | None = None
        # By rule object: a report asks again about the rule ``find`` answered.
        self._patterns: dict[CompiledRule, str] | None = None

    def line(self, allow: bool, pattern: str) -> int:
        lines = self._lines = self._lines or {}
        line = lines.get((allow, pattern))
        if line is None:
            found = (n for n, a, p in self._read() if a == allow and p == pattern)
            line = lines[allow, pattern] = next(found, 0)
        return line

    def pattern(self, rule: CompiledRule) -> str:
        # The one line of that answer writing a pattern that long (an allowed index page
        # and its directory rule share a line).
        patterns = self._patterns = self._patterns or {}
        pattern = patterns.get(rule)
        if pattern is None:
            line, allow, size = rule.line, rule.allow, rule.priority
            found = (p for n, a, p in self._read() if n == line and a == allow and len(p) == size)
            pattern = patterns[rule] = next(found, rule.prefix)
        return pattern

    def every_line(self, found: list[CompiledRule]) -> list[Rule]:
        # One reading of the lines for all the rules found (a path of explain can match
        # thousands): a wildcard rule is known by its line, answer and length.
        patterns = {rule.prefix for rule in found if rule.kind == PLAIN}
        wild = {(rule.line, rule.allow, rule.priority) for rule in found if rule.kind != PLAIN}
        lines = list(self._read())
        patterns.update(p for n, a, p in lines if (n, a, len(p)) in wild)
        return [Rule(a, p, n or None) for n, a, p in lines if p in patterns]

    def _read(self) -> Iterator[tuple[int, bool, str]]:
        return _rule_lines(self._data, self._spans, self._indexes)


def _rule_lines(
    data: bytes, spans: array[int], indexes: list[int]
) -> Iterator[tuple[int, bool, str]]:
    """(line, allow, normalised pattern) of every rule of the groups, in file order."""
    pos, first_line = 0, 1
    for index in indexes:
        _, start, end = group_span(spans, index)
        first_line += data.count(b"\n", pos, start)
        pos = start
        text = data[start:end].decode("latin-1")
        ascii_only = text.isascii() and "%" not in text
        # One event per line, so a rule's line number is its position in the list.
        for line, (allow_key, delay_key, value) in enumerate(GROUP_LINE.findall(text), first_line):
            value = value.rstrip(BLANKS)
            if value and not delay_key:
                pattern = _pattern(value, ascii_only)
                yield line, allow_key != "", pattern
                directory = _directory_of(pattern) if allow_key else None
                if directory is not None:
                    yield line, True, directory


def _add(wild: dict[str, list[CompiledRule]], pattern: str, allow: bool, line: int) -> None:
    """File one normalised rule with a "*" or "$" under its literal prefix."""
    prefix, kind, last, middles = compile_pattern(pattern)
    same = wild.get(prefix)
    if same is None:
        same = wild[prefix] = []
    else:
        prefix = same[0].prefix  # one string per prefix, not one per rule
    same.append(CompiledRule(len(pattern), allow, line, kind, last, middles, prefix))


def _parse_delay(value: bytes) -> float | None:
    try:
        delay = float(value)
    except ValueError:
        return None
    return delay if math.isfinite(delay) and delay >= 0 else None
