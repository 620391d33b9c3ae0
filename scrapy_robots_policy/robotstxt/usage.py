"""Usage lines: the Content-Signal and Content-Usage lines of a file, the group each
belongs to, and which of them apply to one URL for one crawler.

The engine knows nothing of what the values mean (``scrapy_robots_policy.usage`` reads
them); it only says which lines apply, by the rules of draft-ietf-aipref-attach-05
section 3: a line in a group applies to that group's agents (the group chosen as for
Allow/Disallow, groups for the same agent merged); a line before the first user-agent
line applies to every agent; a value starting with "/" starts with a path, and among the
lines of one key the longest matching path wins, lines without a path counting as the
shortest (length 0). Lines with the same winning path all apply, since the draft
combines conflicting preferences rather than picking one.

Read on the first question only, so that a file without such lines parses as fast as
before; a group's boundaries are the engine's own (Google's): like any line Google does
not know, a usage line does not end a run of user-agent lines.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import NamedTuple

from .lines import BLANKS, USAGE_LINE, scan
from .patterns import normalize_pattern, pattern_matches

CONTENT_SIGNAL = "content-signal"
CONTENT_USAGE = "content-usage"
#: Characters kept of one value; real ones are a few dozen (``cut`` says a value was longer).
MAX_USAGE_VALUE = 1024
#: Usage lines read per file; the rest are counted in ``UsageIndex.unread``.
MAX_USAGE_LINES = 1000

_BLANK_BYTES = BLANKS.encode()
# A value starting with "/" starts with a path, which ends at the first SP or HTAB.
_PATH_VALUE = re.compile(rb"(/[^ \t]*)[ \t]*(.*)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class UsageLine:
    """One Content-Signal or Content-Usage line, as the file wrote it."""

    key: str  # CONTENT_SIGNAL or CONTENT_USAGE
    value: str  # after the colon (and after the path, if any), stripped
    line: int  # 1-based
    path: str | None = None  # the normalised path pattern it is limited to, if any
    cut: bool = False  # the value was longer than MAX_USAGE_VALUE: ``value`` is its start

    def __str__(self) -> str:
        key = "Content-Signal" if self.key == CONTENT_SIGNAL else "Content-Usage"
        path = f"{self.path} " if self.path is not None else ""
        return f"{key}: {path}{self.value}{'…' if self.cut else ''}"


class UsageIndex(NamedTuple):
    """The usage lines of a file: those before any group, and those of each group."""

    outside: tuple[UsageLine, ...]
    by_group: dict[int, tuple[UsageLine, ...]]
    unread: int  # usage lines past MAX_USAGE_LINES


NO_USAGE = UsageIndex((), {}, 0)


def index_usage(data: bytes, spans: array[int]) -> UsageIndex:
    """Every usage line of a prepared file, filed by the group it stands in."""
    starts = spans[::3]  # where each group starts
    outside: list[UsageLine] = []
    by_group: dict[int, list[UsageLine]] = {}
    read = unread = 0
    line, counted = 1, 0  # counted on from the last one: linear in the file
    for m in scan(data, b"content-", USAGE_LINE):
        if read == MAX_USAGE_LINES:
            unread += 1
            continue
        read += 1
        start = m.start()
        line += data.count(b"\n", counted, start)
        counted = start
        usage = _usage_line(m.group(1).lower().decode("ascii"), m.group(2), line)
        group = bisect_right(starts, start) - 1
        if group < 0:
            outside.append(usage)
        else:
            by_group.setdefault(group, []).append(usage)
    if not read:
        return NO_USAGE
    return UsageIndex(tuple(outside), {k: tuple(v) for k, v in by_group.items()}, unread)


def _usage_line(key: str, raw: bytes, line: int) -> UsageLine:
    raw = raw.rstrip(_BLANK_BYTES)
    path: str | None = None
    with_path = _PATH_VALUE.fullmatch(raw)
    if with_path is not None:
        path = normalize_pattern(with_path.group(1))
        raw = with_path.group(2)
    value = raw[: 4 * (MAX_USAGE_VALUE + 1)].decode("utf-8", errors="replace")
    cut = len(value) > MAX_USAGE_VALUE
    return UsageLine(key, value[:MAX_USAGE_VALUE] if cut else value, line, path, cut)


def applying(index: UsageIndex, groups: list[int], path: str) -> tuple[UsageLine, ...]:
    """The lines that apply to a normalised ``path`` for the crawler of ``groups``, in
    file order: per key, those with the longest matching path (see the module's doc)."""
    candidates = list(index.outside)
    for group in groups:
        candidates.extend(index.by_group.get(group, ()))
    chosen: list[UsageLine] = []
    for key in (CONTENT_SIGNAL, CONTENT_USAGE):
        best = -1
        winners: list[UsageLine] = []
        for usage in candidates:
            if usage.key != key:
                continue
            if usage.path is None:
                priority = 0
            elif pattern_matches(path, usage.path):
                priority = len(usage.path)
            else:
                continue
            if priority > best:
                best, winners = priority, [usage]
            elif priority == best:
                winners.append(usage)
        chosen.extend(winners)
    return tuple(sorted(chosen, key=lambda usage: usage.line))
