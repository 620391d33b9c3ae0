"""Page-level robots directives: ``<meta name="robots">`` tags and ``X-Robots-Tag`` headers.

Pure code: nothing here imports Scrapy, so the parser can be tested, reused by the command
line and by ``scrapy check`` contracts without a crawl. Every directive remembers where it
came from (:class:`Directive`), because a dropped item must be explained by "which
directive, from which header or meta tag", not just by a boolean.

Parsing never raises: a value that does not parse is ignored and described in
:attr:`RobotsDirectives.problems`, a document that cannot be read at all in
:attr:`RobotsDirectives.errors`, so the caller can log and count both.

What is read and kept per response is bounded, whatever the site sends: a hostile page
must not cost more memory than the page itself (see ``_MAX_VALUE_CHARS`` and below), and
what was left unread is described in :attr:`RobotsDirectives.cut`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_tz
from functools import lru_cache
from typing import Any, NamedTuple

from lxml import etree

from scrapy_robots_policy.robotstxt import product_token

__all__ = [
    "HEADER", "META", "Directive", "RobotsDirectives", "header_values_for_others",
    "snippet_text",
]

HEADER = "X-Robots-Tag"
META = "meta"

#: The meta name and header scope that address every crawler.
ALL_AGENTS = "robots"

# Directives that take a value after a colon. In an X-Robots-Tag value, ``name:`` is a
# user-agent prefix unless the name is one of these, so ``max-snippet: 20`` never
# scopes anything to a crawler called "max-snippet".
_VALUED = frozenset({"max-snippet", "max-image-preview", "max-video-preview", "unavailable_after"})
_FLAGS = frozenset({
    "all", "index", "follow", "noindex", "nofollow", "none", "noarchive", "nosnippet",
    "notranslate", "noimageindex", "indexifembedded",
})
_IMAGE_PREVIEW_ORDER = {"none": 0, "standard": 1, "large": 2}

_AGENT_PREFIX = re.compile(r"[^\s:,]+")
_WEEKDAY = re.compile(
    r"(?:mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?", re.IGNORECASE
)
_LEADING_WEEKDAY = re.compile(_WEEKDAY.pattern + r"\b,?\s*", re.IGNORECASE)
_ISO_8601 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?",
    re.IGNORECASE,
)
#: ISO 8601's basic format, the same fields without separators (``20200921T150000Z``).
#: The standard has a representation be all basic or all extended, so mixes do not match;
#: a time needs its ``T``. Groups as in _ISO_8601, so _iso_date reads both.
_ISO_8601_BASIC = re.compile(
    r"(\d{4})(\d{2})(\d{2})"
    r"(?:T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*(Z|[+-]\d{2}(?:\d{2})?)?",
    re.IGNORECASE,
)
_INT = re.compile(r"[+-]?\d{1,18}")
#: What undecodable bytes (U+FFFD) and control characters such as NUL turn into: never part
#: of a directive, so a piece holding one is reported instead of kept as an unknown name.
_GARBAGE = re.compile(r"[\x00-\x1f\x7f\ufffd]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_MAX_DATE_CHARS = 100  # longer than any date format we accept; keeps parsing cheap
_MAX_PROBLEMS = 20  # a hostile page must not make us keep (and log) a million lines

# Bounds on what one response costs. Real directive lists are a few dozen characters; a
# 16 KB header of one-letter items used to become 5,000 retained Directive tuples.
#: Characters read of one X-Robots-Tag value or robots meta content. The cut ends at the
#: last comma before it: a directive the cut falls in is dropped whole, never read half.
_MAX_VALUE_CHARS = 4096
#: Bytes of a header value decoded: room for _MAX_VALUE_CHARS + 1 characters of UTF-8, so
#: a longer value is still seen to be longer, without decoding all of it.
_MAX_VALUE_BYTES = 4 * (_MAX_VALUE_CHARS + 1)
#: X-Robots-Tag values, and robots meta tags (for ``robots`` or us), read per response.
_MAX_VALUES = 32
#: Directives kept in ``sources`` per response; those that decide a value are always kept.
_MAX_SOURCES = 64
#: An item longer than this is no directive (a dated unavailable_after has about 60).
_MAX_DIRECTIVE_CHARS = 256
#: Characters of a value quoted as provenance (``Directive.raw``) and so in log lines.
_MAX_QUOTED_CHARS = 200


class Directive(NamedTuple):
    """One directive as the site gave it, with its provenance (a tuple: cheap to build)."""

    name: str  # lower-cased: "noindex", "max-snippet", ...
    value: str | None  # text after the colon for valued directives, as written
    source: str  # HEADER or META
    agent: str  # "robots" (every crawler) or the crawler name it was addressed to
    raw: str  # the header value or meta content, its first 200 characters and "…" if longer

    @property
    def text(self) -> str:
        return self.name if self.value is None else f"{self.name}: {self.value}"

    @property
    def origin(self) -> str:
        """Where the directive was found, written the way the site wrote it."""
        if self.source == HEADER:
            return f"X-Robots-Tag: {self.raw}"
        return f'<meta name="{self.agent}" content="{self.raw}">'

    def __str__(self) -> str:
        return f"{_quoted(self.text)} (from {self.origin})"


def _quoted(text: str) -> str:
    """A value as quoted in provenance and logs: whole if short, else its start and "…"."""
    return text if len(text) <= _MAX_QUOTED_CHARS else text[:_MAX_QUOTED_CHARS] + "…"


def _read_value(value: str | bytes, what: str, cut: list[str]) -> str:
    """The part of one header value or meta content that is read (see _MAX_VALUE_CHARS).

    ``noindex, `` followed by 16 KB of anything is still noindex; ``noindex, nofo|llow``
    cut at ``|`` keeps ``noindex`` only.
    """
    text = _text(value)
    if len(text) <= _MAX_VALUE_CHARS:
        return text
    cut.append(f"{what} longer than {_MAX_VALUE_CHARS} characters: the rest not read")
    head = text[:_MAX_VALUE_CHARS]
    return head if text[_MAX_VALUE_CHARS] == "," else head.rpartition(",")[0]


def _parse_int(value: str | None) -> int | None:
    """A non-negative count, or -1 for "no limit"; anything else is not a valid value."""
    if value is None or not _INT.fullmatch(value.strip()):
        return None
    number = int(value)
    return number if number >= -1 else None


def _parse_date(text: str | None) -> datetime | None:
    """``unavailable_after`` dates: RFC 822, RFC 850, asctime or ISO 8601, aware, UTC default."""
    if not text:
        return None
    text = text.strip()
    if len(text) > _MAX_DATE_CHARS:
        return None
    try:
        iso = _ISO_8601.fullmatch(text) or _ISO_8601_BASIC.fullmatch(text)
        if iso:
            return _iso_date(iso)
        rest = _LEADING_WEEKDAY.sub("", text, count=1) if _WEEKDAY.match(text) else text
        parts = parsedate_tz(rest)
        if parts is None:  # a date without a time of day means its midnight
            parts = parsedate_tz(rest + " 00:00:00")
        if parts is None:
            return None
        offset = parts[9] or 0  # no zone, or one the email module does not know: UTC
        moment = datetime(*parts[:6], tzinfo=timezone(timedelta(seconds=offset)))
        return moment.astimezone(timezone.utc)
    except (ValueError, OverflowError, IndexError):
        return None


def _iso_date(match: re.Match[str]) -> datetime:
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    tz = timezone.utc
    if zone and zone.upper() != "Z":
        digits = zone[1:].replace(":", "")
        delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        tz = timezone(-delta if zone[0] == "-" else delta)
    moment = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                      int(second or 0), micro, tzinfo=tz)
    return moment.astimezone(timezone.utc)


def _effect(name: str, value: str | None) -> dict[str, Any] | None:
    """What one directive sets on :class:`RobotsDirectives`; None when its value is invalid.

    Unknown directives set nothing but are valid: they stay in ``sources`` for user code.
    """
    if name in _FLAGS:
        if name == "none":
            return {"noindex": True, "nofollow": True}
        if name in ("all", "index", "follow"):
            return {}
        return {name: True}
    if name == "max-snippet":
        number = _parse_int(value)
        if number is None:
            return None
        # max-snippet:0 is nosnippet by definition; user code checking nosnippet must see it.
        return {"max_snippet": number, "nosnippet": True} if number == 0 else {
            "max_snippet": number}
    if name == "max-video-preview":
        number = _parse_int(value)
        return None if number is None else {"max_video_preview": number}
    if name == "max-image-preview":
        setting = (value or "").strip().lower()
        return {"max_image_preview": setting} if setting in _IMAGE_PREVIEW_ORDER else None
    if name == "unavailable_after":
        moment = _parse_date(value)
        return None if moment is None else {"unavailable_after": moment}
    return {}


def _stricter_count(a: int | None, b: int | None) -> int | None:
    """The more restrictive of two limits: the smallest non-negative one, -1 means none."""
    if a is None or a == -1:
        return b if b is not None else a
    if b is None or b == -1:
        return a
    return min(a, b)


def _stricter(name: str, a: Any, b: Any) -> Any:
    if a is None or a is False:
        return b if b is not None else a
    if b is None or b is False:
        return a
    if name in ("max_snippet", "max_video_preview"):
        return _stricter_count(a, b)
    if name == "max_image_preview":
        return min(a, b, key=_IMAGE_PREVIEW_ORDER.__getitem__)
    if name == "unavailable_after":
        return min(a, b)
    return a or b


def _split_list(value: str) -> Iterable[str]:
    """Split a comma-separated directive list into its stripped, non-empty pieces.

    RFC 822 and RFC 850 dates carry a comma after the weekday (``unavailable_after:
    Saturday, 01-Jul-23 15:00:00 GMT``); a weekday alone is joined with the next piece.
    """
    pieces = value.split(",")
    index = 0
    while index < len(pieces):
        piece = pieces[index].strip()
        index += 1
        if not piece:
            continue
        tail = piece.rpartition(":")[2].strip()
        if index < len(pieces) and "unavailable_after" in piece.lower() and _WEEKDAY.fullmatch(
                tail):
            piece = f"{piece}, {pieces[index].strip()}"
            index += 1
        yield piece


def _collect(found: list[tuple[Directive, dict[str, Any]]], values: dict[str, Any],
             problems: list[str], directive: Directive) -> None:
    """Fold a directive's effect into ``values`` (the most restrictive so far) and keep it
    with its effect if it may be kept in ``sources``, or note why it was ignored (a
    bounded number).

    Past the first _MAX_SOURCES, only a directive that makes a value more restrictive
    than all before it can be the first to give a value its final state, the only kind
    _kept_sources keeps there; the others are dropped at once. Kept until the fold, the
    1,360 items of one 4 KB junk value were thousands of live objects per response: enough
    to run Python's garbage collector several times, promoting the crawl's live objects
    (pages of megabytes among them) to an older generation, where once dead they wait
    for a rarer collection. That went with a higher peak RSS in crawls of 10 MB pages.
    """
    if (len(directive.name) + len(directive.value or "") > _MAX_DIRECTIVE_CHARS
            or _GARBAGE.search(directive.name)):
        effect = None
    else:
        effect = _effect(directive.name, directive.value)
    if effect is None:
        if len(problems) < _MAX_PROBLEMS:  # control characters escaped: it goes to a log
            problems.append(_CONTROL.sub(lambda c: f"\\x{ord(c[0]):02x}",
                                         f"ignored invalid {directive}"))
        return
    stricter = False
    for name, value in effect.items():
        current = values.get(name)
        strictest = _stricter(name, current, value)
        if strictest != current:
            values[name] = strictest
            stricter = True
    if stricter or len(found) < _MAX_SOURCES:
        found.append((directive, effect))


def _kept_sources(found: list[tuple[Directive, dict[str, Any]]],
                  values: dict[str, Any]) -> tuple[Directive, ...]:
    """The first _MAX_SOURCES directives, and after them only those that decide a value
    (so ``decided_by`` still names them): provenance for a page stays a few KB."""
    if len(found) <= _MAX_SOURCES:
        return tuple(d for d, _ in found)
    kept = [d for d, _ in found[:_MAX_SOURCES]]
    decided = {name for _, effect in found[:_MAX_SOURCES] for name, value in effect.items()
               if values.get(name) == value}
    for directive, effect in found[_MAX_SOURCES:]:
        deciding = {name for name, value in effect.items()
                    if name not in decided and values.get(name) == value}
        if deciding:
            kept.append(directive)
            decided |= deciding
    return tuple(kept)


def _addressee(name: str) -> str:
    """Whom a meta name or X-Robots-Tag prefix addresses, to compare with the crawler's
    ``product_token``: the same token, whole ("MJ12bot/1.0" -> "mj12bot", never "mj", so
    ``mj99bot: noindex`` is not for MJ12bot), or the name itself ("robots")."""
    return product_token(name) or name.strip().lower()


def _name_value(piece: str) -> tuple[str, str | None]:
    head, colon, rest = piece.partition(":")
    return head.strip().lower(), (rest.strip() if colon else None)


@dataclass(frozen=True)
class RobotsDirectives:
    """The page-level directives that apply to one crawler for one response.

    Built from headers and meta tags addressed to ``robots`` and to the crawler's own
    name; when they conflict the most restrictive wins (see :meth:`combine`).
    ``sources`` keeps the applicable directives in document order (the first 64, and the
    deciding ones among the rest), ``problems`` values that were ignored, ``errors`` what
    could not be read at all and ``cut`` what was left unread because it was too long or
    too many; none of them takes part in equality.
    """

    noindex: bool = False
    nofollow: bool = False
    noarchive: bool = False
    nosnippet: bool = False
    notranslate: bool = False
    noimageindex: bool = False
    indexifembedded: bool = False
    max_snippet: int | None = None
    max_video_preview: int | None = None
    max_image_preview: str | None = None
    unavailable_after: datetime | None = None
    sources: tuple[Directive, ...] = field(default=(), compare=False, repr=False)
    problems: tuple[str, ...] = field(default=(), compare=False, repr=False)
    errors: tuple[str, ...] = field(default=(), compare=False, repr=False)
    cut: tuple[str, ...] = field(default=(), compare=False, repr=False)

    # --- construction -------------------------------------------------------------

    @classmethod
    def _fold(cls, found: list[tuple[Directive, dict[str, Any]]], values: dict[str, Any],
              problems: list[str], cut: list[str]) -> RobotsDirectives:
        """The directives ``_collect`` gathered into ``found`` and folded into ``values``."""
        if not found and not problems and not cut:
            return _BLANK
        values["sources"] = _kept_sources(found, values)
        values["problems"] = tuple(problems[:_MAX_PROBLEMS])
        values["cut"] = tuple(cut)
        return cls._make(values)

    @classmethod
    def _make(cls, values: dict[str, Any]) -> RobotsDirectives:
        """Build without the frozen dataclass ``__init__`` (one ``object.__setattr__`` per
        field): it runs for every response, and this is several times faster."""
        self = object.__new__(cls)
        self.__dict__.update(_DEFAULTS)
        self.__dict__.update(values)
        return self

    @classmethod
    def from_x_robots_tag(cls, values: Iterable[str | bytes] | str | bytes,
                          user_agent: str) -> RobotsDirectives:
        """Directives from every ``X-Robots-Tag`` header value of a response.

        A ``name:`` prefix scopes the rest of its value to that crawler (it may appear
        mid-list: ``noindex, mybot: nofollow``); only ``robots``-wide and our own apply.
        """
        if isinstance(values, (str, bytes)):
            values = [values]
        if not values:
            return _BLANK
        agent = product_token(user_agent)
        found: list[tuple[Directive, dict[str, Any]]] = []
        folded: dict[str, Any] = {}
        problems: list[str] = []
        cut: list[str] = []
        for index, raw_value in enumerate(values):
            if index == _MAX_VALUES:
                cut.append(f"X-Robots-Tag values after the first {_MAX_VALUES} not read")
                break
            text = _read_value(raw_value, "an X-Robots-Tag value", cut)
            raw = _quoted(text)
            scope = ALL_AGENTS
            for piece in _split_list(text):
                name, value = _name_value(piece)
                if (value is not None and name not in _VALUED and name not in _FLAGS
                        and _AGENT_PREFIX.fullmatch(name)):
                    scope = _addressee(name)
                    if not value:
                        continue
                    name, value = _name_value(value)
                if name and scope in (ALL_AGENTS, agent):
                    _collect(found, folded, problems,
                             Directive(name, value, HEADER, scope, raw))
        return cls._fold(found, folded, problems, cut)

    @classmethod
    def from_meta(cls, tags: Iterable[tuple[str, str]], user_agent: str) -> RobotsDirectives:
        """Directives from ``(name, content)`` pairs of meta tags; other names are skipped."""
        agent = product_token(user_agent)
        found: list[tuple[Directive, dict[str, Any]]] = []
        folded: dict[str, Any] = {}
        problems: list[str] = []
        cut: list[str] = []
        read = 0
        for meta_name, content in tags:
            scope = _meta_scope(meta_name, agent)
            if scope is None:
                continue
            if read == _MAX_VALUES:
                cut.append(f"robots meta tags after the first {_MAX_VALUES} not read")
                break
            read += 1
            text = _read_value(content, "a robots meta content", cut)
            raw = _quoted(text)
            for piece in _split_list(text):
                name, value = _name_value(piece)
                if name:
                    _collect(found, folded, problems,
                             Directive(name, value, META, scope, raw))
        return cls._fold(found, folded, problems, cut)

    @classmethod
    def from_selector(cls, selector: Any, user_agent: str) -> RobotsDirectives:
        """Directives from the meta tags of an already parsed document (a parsel Selector).

        Reusing the response's own selector means the page is parsed once, whether the
        spider queries it before or after us.
        """
        return cls._from_selector(selector, user_agent, None)

    @classmethod
    def _from_selector(cls, selector: Any, user_agent: str,
                       size: int | None) -> RobotsDirectives:
        tags = _meta_tags(selector, product_token(user_agent), size)
        return cls.from_meta(tags, user_agent) if tags else _BLANK

    @classmethod
    def from_html(cls, html: str | bytes, user_agent: str) -> RobotsDirectives:
        """Directives from the robots meta tags of an HTML (or XHTML) document."""
        try:
            from parsel import Selector

            if isinstance(html, bytes):
                from w3lib.encoding import html_to_unicode

                html = html_to_unicode(None, html)[1]
            if not html.strip():
                return cls()
            return cls._from_selector(Selector(text=html, type="html"), user_agent, len(html))
        except Exception as error:  # lxml refuses some inputs; bad HTML must never raise
            return cls(errors=(f"could not parse HTML: {error!r}",))

    @classmethod
    def from_response(cls, response: Any, user_agent: str) -> RobotsDirectives:
        """Directives of a Scrapy response: its headers, and its meta tags if it is HTML."""
        errors: list[str] = []
        try:
            # One value past the bound, so from_x_robots_tag still sees there were more.
            headers = tuple(_text(v) for v in
                            response.headers.getlist(b"X-Robots-Tag")[:_MAX_VALUES + 1])
        except Exception as error:
            headers = ()
            errors.append(f"could not read X-Robots-Tag headers: {error!r}")
        agent = product_token(user_agent)
        tags: tuple[tuple[str, str], ...] = ()
        if _is_html(response):
            try:
                selector = response.selector
            except Exception as error:
                errors.append(f"could not parse HTML: {error!r}")
            else:
                try:
                    tags = _meta_tags(selector, agent, len(response.body))
                except Exception as error:
                    errors.append(f"could not read meta tags: {error!r}")
        if sum(map(len, headers)) + sum(len(n) + len(c) for n, c in tags) <= _MAX_CACHED_CHARS:
            result = _parse_cached(headers, tags, agent)
        else:
            result = _parse(headers, tags, agent)
        if errors:
            result = replace(result, errors=(*result.errors, *errors))
        return result

    # --- combination and questions --------------------------------------------------

    def combine(self, *others: RobotsDirectives) -> RobotsDirectives:
        """These directives together with others, the most restrictive value winning."""
        others = tuple(o for o in others if not o._blank())
        if not others:
            return self
        if self._blank() and len(others) == 1:
            return others[0]
        values = {name: getattr(self, name) for name in _VALUE_FIELDS}
        sources = list(self.sources)
        problems = list(self.problems)
        errors = list(self.errors)
        cut = list(self.cut)
        for other in others:
            for name in values:
                values[name] = _stricter(name, values[name], getattr(other, name))
            sources.extend(other.sources)
            problems.extend(other.problems)
            errors.extend(other.errors)
            cut.extend(other.cut)
        kept = _kept_sources([(d, _effect(d.name, d.value) or {}) for d in sources], values) \
            if len(sources) > _MAX_SOURCES else tuple(sources)
        values.update(sources=kept, problems=tuple(problems[:_MAX_PROBLEMS]),
                      errors=tuple(errors), cut=tuple(cut))
        return self._make(values)

    def _blank(self) -> bool:
        """Nothing found at all: combining with it changes nothing (the common case)."""
        return not (self.sources or self.problems or self.errors or self.cut) and self == _BLANK

    def indexable(self, now: datetime | None = None) -> bool:
        """False for noindex (or ``none``), or once ``unavailable_after`` has passed."""
        return not self.noindex and not self._expired(now)

    def why_not_indexable(self, now: datetime | None = None) -> Directive | None:
        """The directive that makes the page not indexable at ``now``, if any is recorded."""
        if self.noindex:
            return self.decided_by("noindex")
        if self._expired(now):
            return self.decided_by("unavailable_after")
        return None

    def _expired(self, now: datetime | None) -> bool:
        # "Do not show after that moment": the moment itself is still fine.
        return self.unavailable_after is not None and _aware(now) > self.unavailable_after

    def decided_by(self, attribute: str) -> Directive | None:
        """The first directive that gave ``attribute`` its (restrictive) value."""
        wanted = getattr(self, attribute)
        if wanted is None or wanted is False:
            return None
        for directive in self.sources:
            effect = _effect(directive.name, directive.value) or {}
            if effect.get(attribute) == wanted:
                return directive
        return None

    @property
    def others(self) -> tuple[Directive, ...]:
        """Directives this class has no attribute for (``noai``, ...), for user code."""
        return tuple(d for d in self.sources if d.name not in _FLAGS and d.name not in _VALUED)

    @property
    def tokens(self) -> frozenset[str]:
        """The effective directives as tokens: ``noindex``, ``max-snippet:20``, ..."""
        found = set()
        for key, value in self.as_dict().items():
            token = key.replace("_", "-") if key != "unavailable_after" else key
            found.add(token if value is True else f"{token}:{value}")
        return frozenset(found)

    def as_dict(self) -> dict[str, Any]:
        """The restrictive directives only, JSON-friendly (dates in ISO 8601), for items."""
        result: dict[str, Any] = {}
        for name in _VALUE_FIELDS:
            value = getattr(self, name)
            if value is not None and value is not False:
                result[name] = value.isoformat() if isinstance(value, datetime) else value
        return result


# Only these elements honour data-nosnippet (SPEC section 6); <mytag data-nosnippet> does not.
_NOSNIPPET_ELEMENTS = frozenset({"span", "div", "section"})
_NO_TEXT_ELEMENTS = frozenset({"script", "style", "template", "noscript", "head"})


def snippet_text(document: Any) -> str:
    """The page's text that may appear in a snippet: ``data-nosnippet`` parts left out.

    ``document`` is HTML (str or bytes) or a parsel Selector (``response.selector``).
    An unclosed ``<div data-nosnippet>`` runs to the end of the page, as the HTML parser
    closes it there. Whitespace is collapsed. Never raises: unreadable HTML gives "".

    >>> snippet_text('<p>shown <span data-nosnippet>hidden</span>.</p>')
    'shown .'
    """
    try:
        root = _document_root(document)
        if root is None:
            return ""
        parts: list[str] = []
        walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
        for event, element in walker:
            if event != "start":  # the text after an element (or comment) is outside it
                if element.tail and element is not root:
                    parts.append(element.tail)
                continue
            name = etree.QName(element).localname.lower()
            if name in _NO_TEXT_ELEMENTS or (
                    name in _NOSNIPPET_ELEMENTS and element.get("data-nosnippet") is not None):
                walker.skip_subtree()
            elif element.text:
                parts.append(element.text)
        return " ".join("".join(parts).split())
    except Exception:  # lxml refuses some inputs; bad HTML must never raise
        return ""


def _document_root(document: Any) -> Any:
    root = getattr(document, "root", None)
    if isinstance(root, etree._Element):
        return root
    if isinstance(document, (str, bytes)):
        from parsel import Selector

        if isinstance(document, bytes):
            from w3lib.encoding import html_to_unicode

            document = html_to_unicode(None, document)[1]
        if document.strip():
            return Selector(text=document, type="html").root
    return None


def _meta_scope(meta_name: str, agent: str) -> str | None:
    """Whom a meta tag's name addresses if it is for us: ``robots`` or ``agent`` (a
    product token); None for every other meta tag."""
    scope = meta_name.strip().lower()
    if scope == ALL_AGENTS:
        return scope
    # Most meta tags (description, viewport...) fail the cheap test.
    if not agent or not scope.startswith(agent):
        return None
    # Its own token exactly (the usual case; a token reduces to itself), or a name that
    # reduces to it ("MyBot/1.0").
    return agent if scope == agent or _addressee(scope) == agent else None


def _meta_tags(selector: Any, agent: str,
               size: int | None = None) -> tuple[tuple[str, str], ...]:
    """The (name, content) pairs of a parsed document's meta tags for ``robots`` or
    ``agent`` that have both, in document order: as many as from_meta reads, and one more
    so that it sees there were more. Other meta tags' contents are never read, so a page
    of 100,000 meta tags costs a walk over them, not 100,000 pairs. ``size``, when known,
    is the document's length (bytes or characters): no value is longer."""
    root = getattr(selector, "root", None)
    if not isinstance(root, etree._Element):  # a JSON or text selector has no tags
        return ()
    content_of = (_whole_content if size is not None and size <= _SMALL_DOCUMENT
                  else _content_start)
    # "{*}" also finds XHTML's namespaced meta when the page was parsed as XML.
    # lxml's own iteration is several times faster than an XPath with translate(), and
    # unlike an XPath's answer it is not a list of every meta element.
    tags = []
    for top in _top_level(root):
        for node in top.iter("{*}meta"):
            name = node.get("name")
            if name is None or _meta_scope(name, agent) is None:
                continue
            content = content_of(node)
            if content is None:
                continue
            tags.append((name, content))
            if len(tags) > _MAX_VALUES:
                return tuple(tags)
    return tuple(tags)


# A meta tag's content as read: past the read limit by one character that says "longer"
# (see _read_value). Both readers give the same; they differ in what they cost.
_CONTENT_START = etree.XPath(f"substring(@content, 1, {_MAX_VALUE_CHARS + 1})",
                             smart_strings=False)
#: Documents up to this length have their meta contents read whole, then cut.
_SMALL_DOCUMENT = 1 << 20


def _content_start(node: Any) -> str | None:
    """Cut by libxml2: ``node.get("content")`` would first make all of a 10 MB value a
    Python string, beside libxml2's own copy of it. An XPath call costs about 1 µs."""
    return _CONTENT_START(node) if "content" in node.attrib else None


def _whole_content(node: Any) -> str | None:
    """Read whole, then cut: several times faster, and in a small document, where no value
    is longer than 1 MiB, the copy costs less than the page's own text and tree."""
    content = node.get("content")
    return None if content is None else content[:_MAX_VALUE_CHARS + 1]


def _top_level(root: Any) -> Iterator[Any]:
    """The document's top-level nodes in document order, ``root`` among them.

    A meta tag after ``</html>`` is the page's too (a browser moves it into the body), but
    libxml2 2.14 puts what follows ``</html>`` in a second root element, a sibling of
    ``root`` that ``root.iter()`` never reaches. Comments there have no meta descendants.
    """
    first = root
    while (previous := first.getprevious()) is not None:
        first = previous
    yield first
    if first.getnext() is not None:  # most documents have one top-level node
        yield from first.itersiblings()


def _parse(headers: tuple[str, ...], tags: tuple[tuple[str, str], ...],
           agent: str) -> RobotsDirectives:
    return RobotsDirectives.from_x_robots_tag(headers, agent).combine(
        RobotsDirectives.from_meta(tags, agent))


# The pages of a site mostly repeat the same headers and meta tags, and the result is an
# immutable value of its inputs alone: remembering the last few saves most of the work.
# Only small inputs are kept, so the memory it holds stays small.
_parse_cached = lru_cache(maxsize=256)(_parse)
_MAX_CACHED_CHARS = 2048

_DEFAULTS = {f.name: f.default for f in fields(RobotsDirectives)}
_VALUE_FIELDS = tuple(f.name for f in fields(RobotsDirectives) if f.compare)
_BLANK = RobotsDirectives()


def _aware(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(timezone.utc)
    return now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)


def _text(value: str | bytes) -> str:
    """A header value as text: UTF-8, undecodable bytes as U+FFFD; only as much of a long
    one as _read_value may read."""
    if isinstance(value, bytes):
        return value[:_MAX_VALUE_BYTES].decode("utf-8", errors="replace")
    return str(value)


def header_values_for_others(values: Iterable[str], user_agent: str) -> list[str]:
    """The X-Robots-Tag values with no directive for ``user_agent``: meant for other
    crawlers only, the usual reason a directive seems ignored."""
    return [value for value in values
            if not RobotsDirectives.from_x_robots_tag(value, user_agent).sources]


def _is_html(response: Any) -> bool:
    """Scrapy's own choice (HtmlResponse), or XHTML served with its XML media type."""
    if any(cls.__name__ == "HtmlResponse" for cls in type(response).__mro__):
        return True
    if not hasattr(response, "selector"):
        return False
    try:
        content_type = response.headers.get(b"Content-Type") or b""
    except Exception:
        return False
    mime = content_type.split(b";")[0].strip().lower()
    return mime == b"application/xhtml+xml"
