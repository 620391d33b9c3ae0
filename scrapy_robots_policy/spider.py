"""RobotsPolicySpiderMiddleware: enforce the page-level directives of every response.

It sits next to the spider, so it sees what callbacks yield: items of a page that may
not be indexed are dropped, requests of a page whose links may not be followed are not
scheduled, and every directive is put in ``response.meta["robots_directives"]`` before
the callback runs, for the user's code to honour the rest (nosnippet, max-snippet, ...).
The decisions themselves live in :mod:`scrapy_robots_policy.directives`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from itemadapter import ItemAdapter
from scrapy import Request, signals
from scrapy.exceptions import NotConfigured
from w3lib.url import canonicalize_url

from scrapy_robots_policy.directives import Directive, RobotsDirectives
from scrapy_robots_policy.useragent import UserAgentChoice

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.spiders import Spider

logger = logging.getLogger(__name__)

#: Where callbacks and later middlewares find the response's RobotsDirectives.
META_KEY = "robots_directives"

_LINKS_HTML = "//a[@href] | //area[@href]"
_LINKS_XML = "//*[local-name()='a' or local-name()='area'][@href]"


@dataclass(frozen=True)
class _Reason:
    """A decision's stat suffix (the directive's name) and its log text (with provenance)."""

    name: str
    text: str

    @classmethod
    def of(cls, directive: Directive | None, fallback: str) -> _Reason:
        return cls(directive.name, str(directive)) if directive else cls(fallback, fallback)


@dataclass
class _Page:
    """What one response decided, computed once however many objects its callback yields."""

    directives: RobotsDirectives
    noindex: _Reason | None  # why the page may not be indexed, if so
    nofollow: _Reason | None  # why its links may not be followed, if so
    obey: bool  # False when the request opted out with dont_obey_robotstxt
    links: frozenset[str] | None = None  # canonical URLs of <a>/<area> links, on demand
    rel_nofollow: frozenset[str] | None = None  # URLs only ever linked with rel=nofollow


_REL_NOFOLLOW = _Reason("rel_nofollow", 'a link marked rel="nofollow"')


class RobotsPolicySpiderMiddleware:
    """Drop items of noindex pages and requests of nofollow pages; expose all directives."""

    def __init__(self, crawler: Crawler):
        settings = crawler.settings
        if not settings.getbool("ROBOTS_POLICY_DIRECTIVES_OBEY", True):
            raise NotConfigured("ROBOTS_POLICY_DIRECTIVES_OBEY is False")
        self.crawler = crawler
        self.stats = crawler.stats
        self.drop_noindex = settings.getbool("ROBOTS_POLICY_DROP_NOINDEX", True)
        self.obey_nofollow = settings.getbool("ROBOTS_POLICY_OBEY_NOFOLLOW", True)
        self.links_only = settings.getbool("ROBOTS_POLICY_NOFOLLOW_LINKS_ONLY", False)
        self.obey_rel_nofollow = settings.getbool("ROBOTS_POLICY_OBEY_REL_NOFOLLOW", False)
        self.item_field: str | None = settings.get("ROBOTS_POLICY_ITEM_FIELD") or None
        self.user_agents = UserAgentChoice.for_crawler(crawler)
        crawler.signals.connect(self.user_agents.use_spider, signal=signals.spider_opened)
        self._pages: WeakKeyDictionary[Response, _Page] = WeakKeyDictionary()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RobotsPolicySpiderMiddleware:
        return cls(crawler)

    # --- Scrapy hooks ------------------------------------------------------------------

    def process_spider_input(self, response: Response, spider: Spider | None = None) -> None:
        """Compute the directives before the callback runs, so it can read them in meta."""
        self._page(response)

    def process_spider_output(self, response: Response, result: Iterable[Any],
                              spider: Spider | None = None) -> Iterator[Any]:
        page = self._page(response)
        if not self._has_work(page):
            yield from result
            return
        for obj in result:
            if self._keep(response, page, obj):
                yield obj

    async def process_spider_output_async(self, response: Response, result: AsyncIterator[Any],
                                          spider: Spider | None = None) -> AsyncIterator[Any]:
        page = self._page(response)
        if not self._has_work(page):  # most pages: pass everything on at the lowest cost
            async for obj in result:
                yield obj
            return
        async for obj in result:
            if self._keep(response, page, obj):
                yield obj

    # --- decisions ---------------------------------------------------------------------

    def _page(self, response: Response) -> _Page:
        page = self._pages.get(response)
        if page is None:
            user_agent = self.user_agents.for_request(getattr(response, "request", None))
            directives = RobotsDirectives.from_response(response, user_agent)
            meta = _meta(response)
            noindex = nofollow = None
            if not directives.indexable():
                noindex = _Reason.of(directives.why_not_indexable(), "noindex")
            if directives.nofollow:
                nofollow = _Reason.of(directives.decided_by("nofollow"), "nofollow")
            page = _Page(directives, noindex, nofollow, not meta.get("dont_obey_robotstxt"))
            self._pages[response] = page
            meta[META_KEY] = directives
            self._count(response, page)
        return page

    def _has_work(self, page: _Page) -> bool:
        """Whether anything this response yields could be dropped or annotated."""
        return bool(self.item_field) or (page.obey and (
            page.noindex is not None or page.nofollow is not None or self.obey_rel_nofollow))

    def _keep(self, response: Response, page: _Page, obj: Any) -> bool:
        if isinstance(obj, Request):
            return self._keep_request(response, page, obj)
        if page.obey and self.drop_noindex and page.noindex is not None:
            self._drop("items_dropped", page.noindex, response,
                       "Dropped an item of %(url)s: %(why)s")
            return False
        if self.item_field:
            self._annotate(obj, page.directives)
        return True

    def _keep_request(self, response: Response, page: _Page, request: Request) -> bool:
        if not page.obey:
            return True
        if self.obey_nofollow and page.nofollow is not None and (
                not self.links_only or _canonical(request.url) in self._links(response, page)):
            self._drop("requests_dropped", page.nofollow, response,
                       "Not following %(request)s of %(url)s: %(why)s", request)
            return False
        if self.obey_rel_nofollow:
            self._links(response, page)
            if _canonical(request.url) in (page.rel_nofollow or ()):
                self._drop("requests_dropped", _REL_NOFOLLOW, response,
                           "Not following %(request)s of %(url)s: %(why)s", request)
                return False
        return True

    def _links(self, response: Response, page: _Page) -> frozenset[str]:
        """The page's <a href>/<area href> links, read from the response's own selector."""
        if page.links is None:
            links, followed, nofollowed = _page_links(response)
            if links is None:
                self.stats.inc_value("robots_policy/parse_errors")
                logger.warning("Could not read the links of %(url)s",
                               {"url": response.url}, extra={"spider": self.crawler.spider})
            page.links = frozenset(links or ())
            page.rel_nofollow = frozenset(nofollowed - followed)
        return page.links

    def _annotate(self, obj: Any, directives: RobotsDirectives) -> None:
        """Copy the directives onto dict-like items that have (or accept) the field."""
        if not ItemAdapter.is_item(obj):
            return
        try:
            ItemAdapter(obj)[self.item_field] = directives.as_dict()
        except (KeyError, TypeError, AttributeError):  # a declared Item without that field
            self.stats.inc_value("robots_policy/items_not_annotated")

    # --- stats and logs ----------------------------------------------------------------

    def _count(self, response: Response, page: _Page) -> None:
        spider = self.crawler.spider
        self.stats.inc_value("robots_policy/response_count")
        if page.noindex is not None:
            self.stats.inc_value("robots_policy/responses/noindex")
        if page.nofollow is not None:
            self.stats.inc_value("robots_policy/responses/nofollow")
        for problem in page.directives.problems:
            self.stats.inc_value("robots_policy/invalid_directives")
            logger.debug("%(problem)s on %(url)s", {"problem": problem, "url": response.url},
                         extra={"spider": spider})
        if page.directives.cut:  # one line per response, however much was cut
            self.stats.inc_value("robots_policy/values_cut", len(page.directives.cut))
            logger.debug("Robots directives of %(url)s read in part: %(cut)s",
                         {"url": response.url, "cut": "; ".join(page.directives.cut)},
                         extra={"spider": spider})
        for error in page.directives.errors:
            self.stats.inc_value("robots_policy/parse_errors")
            logger.warning("Robots directives of %(url)s: %(error)s",
                           {"url": response.url, "error": error}, extra={"spider": spider})

    def _drop(self, what: str, reason: _Reason, response: Response, message: str,
              request: Request | None = None) -> None:
        self.stats.inc_value(f"robots_policy/{what}")
        self.stats.inc_value(f"robots_policy/{what}/{reason.name}")
        logger.debug(message, {"url": response.url, "why": reason.text, "request": request},
                     extra={"spider": self.crawler.spider})


def _meta(response: Response) -> dict[str, Any]:
    try:
        return response.meta
    except AttributeError:  # a response built without a request has no meta
        return {}


def _canonical(url: str) -> str:
    try:
        return canonicalize_url(url)
    except Exception:  # odd URLs are compared as written
        return url


def _page_links(response: Response) -> tuple[list[str] | None, set[str], set[str]]:
    """(all link URLs, URLs linked without rel=nofollow, URLs linked with it), canonical.

    None instead of the list when the response is not a document we can read links from.
    """
    try:
        selector = response.selector  # type: ignore[attr-defined]
        query = _LINKS_HTML if selector.type == "html" else _LINKS_XML
        nodes = selector.xpath(query)
    except Exception:
        return (None, set(), set()) if hasattr(response, "text") else ([], set(), set())
    links: list[str] = []
    followed: set[str] = set()
    nofollowed: set[str] = set()
    for node in nodes:
        attrib = node.attrib
        try:
            url = _canonical(response.urljoin(attrib.get("href", "").strip()))
        except Exception:  # hrefs such as "http://[" cannot be joined: not a link to follow
            continue
        links.append(url)
        if "nofollow" in attrib.get("rel", "").lower().split():
            nofollowed.add(url)
        else:
            followed.add(url)
    return links, followed, nofollowed
