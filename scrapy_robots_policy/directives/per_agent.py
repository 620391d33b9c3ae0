"""Deciding per agent: the page-level directives that apply to one crawler.

:class:`RobotsDirectives` takes the directives addressed to ``robots`` (``*``) and to the
crawler's own name, from Robots-Tag (:mod:`.robots_tag`) and X-Robots-Tag (:mod:`.headers`)
headers and meta tags (:mod:`.meta`), the most restrictive winning (:mod:`.fold`), and
answers questions about them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from scrapy_robots_policy.directives.fold import (
    MAX_PROBLEMS,
    MAX_SOURCES,
    kept_sources,
)
from scrapy_robots_policy.directives.headers import read_x_robots_tag
from scrapy_robots_policy.directives.meta import (
    html_text,
    meta_tags,
    read_meta,
    streamed_meta_tags,
)
from scrapy_robots_policy.directives.response import (
    PUBLIC_HTML,
    HtmlAccess,
    read_response,
    robots_tag_lines,
)
from scrapy_robots_policy.directives.robots_tag import read_robots_tag
from scrapy_robots_policy.directives.values import effect_of, stricter_value
from scrapy_robots_policy.directives.vocabulary import FLAGS, VALUED, Directive
from scrapy_robots_policy.robotstxt import product_token


@dataclass(frozen=True)
class RobotsDirectives:
    """The page-level directives that apply to one crawler for one response.

    Built from headers and meta tags addressed to ``robots`` and to the crawler's own
    name; when they conflict the most restrictive wins (see :meth:`combine`).
    ``sources`` keeps the applicable directives in document order (the first 64, and the
    deciding ones among the rest), ``problems`` values that were ignored, ``errors`` what
    could not be read at all and ``cut`` what was left unread because it was too long or
    too many; ``lenient`` the Robots-Tag fields read only after a repair (see
    :mod:`.robots_tag`); ``usage_meta`` the (name, content) pairs of the page's TDMRep meta
    tags (``tdm-reservation``, ``tdm-policy``), read in the same pass for
    ``usage.tdmrep``; none of them takes part in equality.
    """

    noindex: bool = False
    nofollow: bool = False
    noarchive: bool = False
    nosnippet: bool = False
    notranslate: bool = False
    noimageindex: bool = False
    indexifembedded: bool = False
    noai: bool = False
    noimageai: bool = False
    max_snippet: int | None = None
    max_video_preview: int | None = None
    max_image_preview: str | None = None
    unavailable_after: datetime | None = None
    sources: tuple[Directive, ...] = field(default=(), compare=False, repr=False)
    problems: tuple[str, ...] = field(default=(), compare=False, repr=False)
    errors: tuple[str, ...] = field(default=(), compare=False, repr=False)
    cut: tuple[str, ...] = field(default=(), compare=False, repr=False)
    lenient: tuple[str, ...] = field(default=(), compare=False, repr=False)
    usage_meta: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    # --- construction -------------------------------------------------------------

    @classmethod
    def _fold(cls, found: list[tuple[Directive, dict[str, Any]]], values: dict[str, Any],
              problems: list[str], cut: list[str]) -> RobotsDirectives:
        """The directives ``collect`` gathered into ``found`` and folded into ``values``."""
        if not found and not problems and not cut and not values:
            return _BLANK
        values["sources"] = kept_sources(found, values)
        values["problems"] = tuple(problems[:MAX_PROBLEMS])
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
        return cls._fold(*read_x_robots_tag(values, product_token(user_agent)))

    @classmethod
    def from_robots_tag(cls, values: Iterable[str | bytes] | str | bytes,
                        user_agent: str) -> RobotsDirectives:
        """Directives from every ``Robots-Tag`` field line of a response (one RFC 9651 List:
        ``*;nosnippet, ExampleBot;noindex``): the rules for ``*`` and for the crawler."""
        if isinstance(values, (str, bytes)):
            values = [values]
        if not values:
            return _BLANK
        return cls._fold(*read_robots_tag(values, product_token(user_agent)))

    @classmethod
    def from_meta(cls, tags: Iterable[tuple[str, str]], user_agent: str) -> RobotsDirectives:
        """Directives from ``(name, content)`` pairs of meta tags; other names are skipped."""
        return cls._fold(*read_meta(tags, product_token(user_agent)))

    @classmethod
    def from_selector(cls, selector: Any, user_agent: str) -> RobotsDirectives:
        """Directives from the meta tags of an already parsed document (a parsel Selector):
        a page the spider has parsed is not parsed again."""
        tags = meta_tags(selector, product_token(user_agent))
        return cls.from_meta(tags, user_agent) if tags else _BLANK

    @classmethod
    def from_html(cls, html: str | bytes, user_agent: str) -> RobotsDirectives:
        """Directives from the robots meta tags of an HTML (or XHTML) document."""
        try:
            text = html_text(html)
            if not text.strip():
                return cls()
            tags = streamed_meta_tags(text, product_token(user_agent))
            return cls.from_meta(tags, user_agent) if tags else _BLANK
        except Exception as error:  # lxml refuses some inputs; bad HTML must never raise
            return cls(errors=(f"could not parse HTML: {error!r}",))

    @classmethod
    def from_response(cls, response: Any, user_agent: str,
                      html: HtmlAccess = PUBLIC_HTML) -> RobotsDirectives:
        """Directives of a Scrapy response: its headers, and its meta tags if it is HTML.

        The page is streamed through the parser for its meta tags, no tree left on the
        response, unless ``html`` gives a tree to read (the spider middleware's own
        choice: the tree a spider that parses builds anyway).
        """
        agent = product_token(user_agent)
        headers, tags, errors = read_response(response, agent, html)
        robots_tag = robots_tag_lines(response, errors)
        size = sum(map(len, (*headers, *robots_tag))) + sum(len(n) + len(c) for n, c in tags)
        if size <= _MAX_CACHED_CHARS:
            result = _parse_cached(robots_tag, headers, tags, agent)
        else:
            result = _parse(robots_tag, headers, tags, agent)
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
        lenient = list(self.lenient)
        usage_meta = list(self.usage_meta)
        for other in others:
            for name in values:
                values[name] = stricter_value(name, values[name], getattr(other, name))
            sources.extend(other.sources)
            problems.extend(other.problems)
            errors.extend(other.errors)
            cut.extend(other.cut)
            lenient.extend(other.lenient)
            usage_meta.extend(other.usage_meta)
        kept = kept_sources([(d, effect_of(d.name, d.value) or {}) for d in sources], values) \
            if len(sources) > MAX_SOURCES else tuple(sources)
        values.update(sources=kept, problems=tuple(problems[:MAX_PROBLEMS]),
                      errors=tuple(errors), cut=tuple(cut), lenient=tuple(lenient),
                      usage_meta=tuple(usage_meta))
        return self._make(values)

    def _blank(self) -> bool:
        """Nothing found at all: combining with it changes nothing (the common case)."""
        return not (self.sources or self.problems or self.errors or self.cut
                    or self.lenient or self.usage_meta) and self == _BLANK

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
            effect = effect_of(directive.name, directive.value) or {}
            if effect.get(attribute) == wanted:
                return directive
        return None

    @property
    def others(self) -> tuple[Directive, ...]:
        """Directives this class has no attribute for (``noml``, ...), for user code."""
        return tuple(d for d in self.sources if d.name not in FLAGS and d.name not in VALUED)

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


def _parse(robots_tag: tuple[str, ...], headers: tuple[str, ...],
           tags: tuple[tuple[str, str], ...], agent: str) -> RobotsDirectives:
    """The union of every source's rules for ``agent``, the standard header's first."""
    return RobotsDirectives.from_robots_tag(robots_tag, agent).combine(
        RobotsDirectives.from_x_robots_tag(headers, agent),
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
