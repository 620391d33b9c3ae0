"""Robots-Tag headers (draft-illyes-repext-03 section 3.1.1): an RFC 9651 List whose
members are product tokens, or ``*`` for every crawler, each carrying its rules as
Parameters: ``Robots-Tag: *;nosnippet, ExampleBot;noindex``.

Every rule for ``*`` and for the crawler's own token counts, from every member and every
field line: the draft's union of restrictive rules. The fold (:mod:`.fold`) makes the most
restrictive value win, as it does across X-Robots-Tag and meta tags.

The field is parsed by ``http_sf``. A field that does not parse is ignored whole, as
RFC 9651 says, and reported; two narrow repairs are tried first, and a field read only
after them is recorded in ``lenient`` (see :func:`_repaired`).

The field value is read up to ``MAX_VALUE_CHARS`` (at least the draft's 8 KiB, since
structured fields are ASCII); of a longer one, the members before the last separator
within the limit: the member the limit falls in, and all after it, are ignored (draft
section 3.1.1).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import pairwise
from typing import Any

import http_sf

from scrapy_robots_policy.directives.fold import (
    MAX_PROBLEMS,
    DirectiveReading,
    collect,
    new_reading,
    printable,
)
from scrapy_robots_policy.directives.lists import MAX_VALUE_CHARS, header_text
from scrapy_robots_policy.directives.vocabulary import (
    ALL_AGENTS,
    FLAGS,
    ROBOTS_TAG,
    VALUED,
    Directive,
    addressee,
    quoted,
)
from scrapy_robots_policy.robotstxt import product_token

#: The product token of a member whose rules are for every crawler.
EVERY_CRAWLER = "*"
#: The rules a member's product token may be mistaken for (``Robots-Tag: noindex``).
_RULE_NAMES = FLAGS | VALUED

# A String with its escapes (to the end of the text when the limit cut it open), or a
# comma: the commas outside Strings are what separate the List's members. A Display
# String (%"...") is a String after its "%"; no other item can hold a comma or a quote.
_STRING = r'"(?:[^"\\]|\\.?)*(?:"|\Z)'
_STRING_OR_COMMA = re.compile(f"{_STRING}|,", re.S)
_STRINGS = re.compile(f"({_STRING})", re.S)
#: A ";" that ends a member: no parameter follows it.
_EMPTY_PARAMETER = re.compile(r";[ \t]*(?=,|\Z)")


def field_lines(values: Iterable[str | bytes]) -> tuple[str, ...]:
    """The field lines read, as text: blank ones skipped (joined, they would make an
    empty List member), none after the read limit is passed."""
    lines: list[str] = []
    length = 0
    for value in values:
        text = header_text(value).strip(" \t")
        if text:
            lines.append(text)
            length += len(text) + 2
            if length > MAX_VALUE_CHARS:
                break
    return tuple(lines)


def read_robots_tag(values: Iterable[str | bytes], agent: str) -> DirectiveReading:
    """The rules of the Robots-Tag field lines ``values`` for ``*`` or ``agent`` (a
    product token), folded."""
    found, folded, problems, cut = reading = new_reading()
    text = _field_value(field_lines(values), cut)
    for piece, item, rules in _parse(text, problems, folded):
        token = _token_of(item)
        if token is None:
            _report(problems, f"ignored Robots-Tag member {quoted(piece)}: it names no "
                              "product token")
            continue
        if not rules:  # valid (a crawler named without a rule), unless it names a rule
            if token.lower() in _RULE_NAMES:
                _report(problems, f"Robots-Tag member {quoted(piece)} is a product token "
                                  f"with no rule, not the rule {token.lower()}: for every "
                                  f"crawler, write *;{token.lower()}")
            continue
        if not _applies(token, agent):
            continue
        scope = ALL_AGENTS if token == EVERY_CRAWLER else agent
        raw = quoted(piece)
        for name, value in rules.items():
            if value is False:  # noindex=?0: the rule is not given, so nothing restricts
                continue
            if isinstance(value, bytes):
                _report(problems, f"ignored invalid {name} (from Robots-Tag: {raw}): a byte "
                                  "sequence is no rule value")
                continue
            collect(found, folded, problems,
                    Directive(name, _rule_value(value), ROBOTS_TAG, scope, raw))
    return reading


def robots_tag_for_others(values: Iterable[str | bytes], user_agent: str) -> list[str]:
    """The Robots-Tag members with rules for other crawlers only (``Robots-Tag:
    otherbot;noindex``): the usual reason a rule seems ignored."""
    agent = product_token(user_agent)
    others = []
    for piece, item, rules in _parse(_field_value(field_lines(values), []), [], {}):
        token = _token_of(item)
        if rules and token is not None and not _applies(token, agent):
            others.append(f"{ROBOTS_TAG}: {quoted(piece)}")
    return others


def _applies(token: str, agent: str) -> bool:
    """Whether a member's rules are for the crawler whose product token is ``agent``:
    ``*``'s always, another's when it names the same token, compared whole ("robots"
    here is a crawler's name, not the meta tags' global one)."""
    return token == EVERY_CRAWLER or (bool(agent) and addressee(token) == agent)


def _field_value(lines: tuple[str, ...], cut: list[str]) -> str:
    """The field value read: its lines combined (RFC 9651 section 4.2), within the limit."""
    text = ", ".join(lines)
    if len(text) <= MAX_VALUE_CHARS:
        return text
    cut.append(f"a Robots-Tag field longer than {MAX_VALUE_CHARS} characters: the rest "
               "not read")
    # One character past the limit shows whether a separator follows it at once.
    separators = _separators(text[:MAX_VALUE_CHARS + 1])
    return text[:separators[-1]] if separators else ""


def _parse(text: str, problems: list[str], folded: dict[str, Any]
           ) -> list[tuple[str, Any, dict[str, Any]]]:
    """The List's members: (its text as sent, item, parameters); none when the field does
    not parse, even repaired (a problem), a note in ``folded["lenient"]`` when only
    repaired."""
    if not text.strip():
        return []
    try:
        return _members(text, text)
    except Exception as error:  # a third-party parser fed hostile input: never raise
        why = _reason(error)
    for repaired, repairs in _repairs(text):
        try:
            members = _members(repaired, text)
        except Exception:
            continue
        folded["lenient"] = (printable(f"Robots-Tag: {quoted(text)}: not RFC 9651 ({why}), "
                                       f"read after {repairs}"),)
        return members
    _report(problems, f"Robots-Tag: {quoted(text)}: not a structured-field list ({why}): "
                      "the whole field ignored")
    return []


def _members(text: str, sent: str) -> list[tuple[str, Any, dict[str, Any]]]:
    """The members of ``text`` parsed, each with its text in ``sent`` (the field before any
    repair, which moves no separator)."""
    members: Any = http_sf.parse(text.encode("utf-8"), tltype="list")
    if not isinstance(members, list):  # what "list" promises; checked, not trusted
        raise TypeError("not a list")
    return [(piece, item, rules)
            for piece, (item, rules) in zip(_pieces(sent), members, strict=True)]


def _repairs(text: str) -> Iterator[tuple[str, str]]:
    """``text`` repaired outside its Strings, each way that changes it, the smallest
    repairs first: (repaired text, what was repaired).

    - A ``;`` ending a member, no parameter after it, is dropped: the example of the
      draft's revisions -00 to -02, ``*;noindex;nosnippet, ExampleBot;``, meant "no rule
      of ExampleBot's own", and a strict parser rejects its trailing ``;``.
    - Upper-case letters are lower-cased: the draft calls rules case-insensitive, and
      RFC 9651 keys are lower-case (``*;NoIndex``); product tokens compare
      case-insensitively, so nothing else changes meaning.
    """
    parts = _STRINGS.split(text)  # outside a String, a String, outside, ...
    outside = parts[::2]
    dropped = [_EMPTY_PARAMETER.sub("", part) for part in outside]
    tried = [outside]
    for changed, repairs in (
            (dropped, "dropping a ';' that ends a member"),
            ([part.lower() for part in outside], "lower-casing its names"),
            ([part.lower() for part in dropped],
             "dropping a ';' that ends a member and lower-casing its names")):
        if changed not in tried:
            tried.append(changed)
            parts[::2] = changed
            yield "".join(parts), repairs


def _separators(text: str) -> list[int]:
    """Where the commas that separate List members stand (those outside Strings)."""
    return [match.start() for match in _STRING_OR_COMMA.finditer(text)
            if match.group() == ","]


def _pieces(text: str) -> list[str]:
    """Each member's text as sent, for provenance (``Robots-Tag: ExampleBot;noindex``)."""
    bounds = [-1, *_separators(text), len(text)]
    return [text[start + 1:end].strip(" \t") for start, end in pairwise(bounds)]


def _token_of(item: Any) -> str | None:
    """The product token a member names: a Token (``*``, ``ExampleBot``) or a String."""
    if isinstance(item, (http_sf.Token, str)):
        return str(item) or None
    return None


def _report(problems: list[str], problem: str) -> None:
    if len(problems) < MAX_PROBLEMS:  # a hostile field must not make us keep thousands
        problems.append(printable(problem))


def _rule_value(value: Any) -> str | None:
    """A Parameter's value as the directive's text: none for a bare rule (``noindex``),
    ``50`` for ``max-snippet=50``, an ISO 8601 moment for an RFC 9651 Date."""
    if value is True:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _reason(error: Exception) -> str:
    return str(error)[:100] or type(error).__name__
