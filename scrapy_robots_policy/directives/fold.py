"""The most restrictive wins: directives folded into values as they are read, and which of
them are kept as provenance (``sources``) and as ``problems``."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from scrapy_robots_policy.directives.values import effect_of, stricter_value
from scrapy_robots_policy.directives.vocabulary import Directive

#: What undecodable bytes (U+FFFD) and control characters such as NUL turn into: never part
#: of a directive, so a piece holding one is reported instead of kept as an unknown name.
_GARBAGE = re.compile(r"[\x00-\x1f\x7f\ufffd]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_PROBLEMS = 20  # a hostile page must not make us keep (and log) a million lines
#: Directives kept in ``sources`` per response; those that decide a value are always kept.
MAX_SOURCES = 64
#: An item longer than this is no directive (a dated unavailable_after has about 60).
_MAX_DIRECTIVE_CHARS = 256


class DirectiveReading(NamedTuple):
    """What reading headers or meta tags gathered, for ``RobotsDirectives._fold``."""

    found: list[tuple[Directive, dict[str, Any]]]  # directives kept so far, with effects
    values: dict[str, Any]  # the most restrictive value of each attribute so far
    problems: list[str]
    cut: list[str]


def new_reading() -> DirectiveReading:
    return DirectiveReading([], {}, [], [])


def collect(found: list[tuple[Directive, dict[str, Any]]], values: dict[str, Any],
             problems: list[str], directive: Directive) -> None:
    """Fold a directive's effect into ``values`` (the most restrictive so far) and keep it
    with its effect if it may be kept in ``sources``, or note why it was ignored (a
    bounded number).

    Past the first MAX_SOURCES, only a directive that makes a value more restrictive
    than all before it can be the first to give a value its final state, the only kind
    kept_sources keeps there; the others are dropped at once. Kept until the fold, the
    1,360 items of one 4 KB junk value were thousands of live objects per response: enough
    to run Python's garbage collector several times, promoting the crawl's live objects
    (pages of megabytes among them) to an older generation, where once dead they wait
    for a rarer collection. That went with a higher peak RSS in crawls of 10 MB pages.
    """
    if (len(directive.name) + len(directive.value or "") > _MAX_DIRECTIVE_CHARS
            or _GARBAGE.search(directive.name)):
        effect = None
    else:
        effect = effect_of(directive.name, directive.value)
    if effect is None:
        if len(problems) < MAX_PROBLEMS:
            problems.append(printable(f"ignored invalid {directive}"))
        return
    stricter = False
    for name, value in effect.items():
        current = values.get(name)
        strictest = stricter_value(name, current, value)
        if strictest != current:
            values[name] = strictest
            stricter = True
    if stricter or len(found) < MAX_SOURCES:
        found.append((directive, effect))


def printable(text: str) -> str:
    """A problem as logged: control characters escaped (``\\x00``), never written raw."""
    return _CONTROL.sub(lambda c: f"\\x{ord(c[0]):02x}", text)


def kept_sources(found: list[tuple[Directive, dict[str, Any]]],
                  values: dict[str, Any]) -> tuple[Directive, ...]:
    """The first MAX_SOURCES directives, and after them only those that decide a value
    (so ``decided_by`` still names them): provenance for a page stays a few KB."""
    if len(found) <= MAX_SOURCES:
        return tuple(d for d, _ in found)
    kept = [d for d, _ in found[:MAX_SOURCES]]
    decided = {name for _, effect in found[:MAX_SOURCES] for name, value in effect.items()
               if values.get(name) == value}
    for directive, effect in found[MAX_SOURCES:]:
        deciding = {name for name, value in effect.items()
                    if name not in decided and values.get(name) == value}
        if deciding:
            kept.append(directive)
            decided |= deciding
    return tuple(kept)
