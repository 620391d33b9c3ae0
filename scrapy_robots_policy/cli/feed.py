"""Reading a crawl's feed for ``audit``: JSON lines or one JSON array, each value with the
line it starts on, and a value that cannot be read said as such rather than raised."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, NamedTuple

_DECODER = json.JSONDecoder()
_BETWEEN_VALUES = " \t\r\n,"  # what separates the values of a JSON array


class Unchecked(NamedTuple):
    """A line or item whose compliance cannot be checked: what kind of problem, and why."""

    kind: str  # "unreadable line", "not an object", "no record", "malformed record"
    why: str


_TOO_DEEP = Unchecked("unreadable line", "not JSON: nested too deeply")


class FeedReader:
    """The values of a JSON-lines feed or of a JSON array, each with the line it starts on;
    an :class:`Unchecked` value for text that is not JSON."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = lines
        self.kind = "empty"
        self.unclosed = False  # a JSON array without its "]": the crawl stopped early?

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        numbered = enumerate(self.lines, 1)
        for number, line in numbered:
            if not line.strip():
                continue
            if line.lstrip().startswith("["):
                self.kind = "JSON array"
                yield from self._array(chain([(number, line.split("[", 1)[1])], numbered))
            else:
                self.kind = "JSON lines"
                yield number, _decode(line.rstrip())
                yield from ((n, _decode(text.rstrip())) for n, text in numbered if text.strip())
            return

    def _array(self, numbered: Iterable[tuple[int, str]]) -> Iterator[tuple[int, Any]]:
        """Values of an array laid out one per line (Scrapy's default) or indented over
        several: a JSON token never spans lines, so text that fails to decode before its
        end is malformed, and text that fails at its end awaits the next line. After a
        malformed value, lines are skipped up to one that can start the next value, so one
        bad line of an indented item is one report, not one per line of the item."""
        pending, start, indent, self.unclosed = "", 0, "", True
        broken: tuple[int, Unchecked, str] | None = None  # line, why, the value's indentation
        skipped = 0
        for number, line in numbered:
            if broken is not None:
                if not _resumes(line, broken[2]):
                    skipped += 1
                    continue
                yield _skipping(broken, skipped, "up to the next item")
                broken, skipped = None, 0
            if not pending:
                indent = _indentation(line)
                line, start = line.lstrip(_BETWEEN_VALUES), number
            pending += line
            while pending:
                if pending.startswith("]"):
                    self.unclosed = False
                    pending = pending[1:].lstrip(_BETWEEN_VALUES)
                    continue
                try:
                    value, end = _DECODER.raw_decode(pending)
                except json.JSONDecodeError as error:
                    if error.pos >= len(pending.rstrip()):
                        break  # the value goes on in the next line
                    broken = (start + error.lineno - 1, _not_json(error), indent)
                except RecursionError:
                    broken = (start, _TOO_DEEP, indent)
                else:
                    yield start, value
                    pending, start = pending[end:].lstrip(_BETWEEN_VALUES), number
                    continue
                pending = ""
        if broken is not None:
            yield _skipping(broken, skipped, "to the end of the feed")
        if pending:
            yield start, Unchecked("unreadable line", "cut short at the end of the feed")


def _resumes(line: str, indent: str) -> bool:
    """Whether ``line`` can start the value after a malformed one: the end of the array, an
    object alone on its line (one item per line), or "{" alone at the malformed value's
    indentation (an indented array)."""
    text = line.strip()
    if text == "{" and line.startswith(indent + "{"):
        return True
    if text.startswith("]"):  # the array's end, not that of a list inside the value
        return len(_indentation(line)) < max(len(indent), 1)
    return text.startswith("{") and isinstance(_decode(text.rstrip(",")), dict)


def _indentation(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def _skipping(broken: tuple[int, Unchecked, str], skipped: int, until: str
              ) -> tuple[int, Unchecked]:
    line, unchecked, _ = broken
    if not skipped:
        return line, unchecked
    return line, unchecked._replace(why=f"{unchecked.why}; the next {skipped} lines "
                                        f"skipped, {until}")


def _decode(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        return _not_json(error)
    except RecursionError:
        return _TOO_DEEP


def _not_json(error: json.JSONDecodeError) -> Unchecked:
    why = error.msg.removesuffix(" at")  # "Invalid control character at": the column follows
    return Unchecked("unreadable line", f"not JSON: {why} at column {error.colno}")
