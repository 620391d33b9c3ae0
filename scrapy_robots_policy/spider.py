"""RobotsPolicySpiderMiddleware: enforce the page-level directives of every response.

It sits next to the spider, so it sees what callbacks yield, and drops what
:mod:`scrapy_robots_policy.pagepolicy` decides to drop, counting and logging why. Every
directive is put in ``response.meta["robots_directives"]`` before the callback runs, for
the user's code to honour the rest (nosnippet, max-snippet, ...).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy import Request, signals
from scrapy.exceptions import NotConfigured

from scrapy_robots_policy.directives import RobotsDirectives
from scrapy_robots_policy.pagepolicy import Page, PagePolicy, Reason
from scrapy_robots_policy.record import RECORD_META, annotate, page_record
from scrapy_robots_policy.settings import RobotsPolicySettings
from scrapy_robots_policy.usagepolicy import (
    ORIGIN_USAGE_META,
    USAGE_META,
    UsagePolicy,
    UsageReading,
    usage_headers,
)
from scrapy_robots_policy.useragent import UserAgentChoice

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.spiders import Spider

logger = logging.getLogger(__name__)

#: Where callbacks and later middlewares find the response's RobotsDirectives.
META_KEY = "robots_directives"


class RobotsPolicySpiderMiddleware:
    """Drop items of noindex pages and requests of nofollow pages; expose all directives."""

    def __init__(self, crawler: Crawler):
        settings = RobotsPolicySettings.of(crawler)
        if not settings.directives_obey:
            raise NotConfigured("ROBOTS_POLICY_DIRECTIVES_OBEY is False")
        self.crawler = crawler
        self.stats = crawler.stats
        self.policy = PagePolicy(settings)
        self.usage = UsagePolicy(settings)
        self.item_field = settings.item_field
        self.recording = bool(settings.item_field or settings.purposes)
        self.user_agents = UserAgentChoice.for_crawler(crawler)
        crawler.signals.connect(self.user_agents.use_spider, signal=signals.spider_opened)
        self._pages: WeakKeyDictionary[Response, Page] = WeakKeyDictionary()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RobotsPolicySpiderMiddleware:
        return cls(crawler)

    def process_spider_input(self, response: Response, spider: Spider | None = None) -> None:
        """Compute the directives before the callback runs, so it can read them in meta."""
        self._page(response)

    def process_spider_output(self, response: Response, result: Iterable[Any],
                              spider: Spider | None = None) -> Iterator[Any]:
        page = self._page(response)
        if not (self.recording or page.filters):  # nothing to drop or annotate: pass on
            yield from result
            return
        for obj in result:
            if self._keep(response, page, obj):
                yield obj

    async def process_spider_output_async(self, response: Response, result: AsyncIterator[Any],
                                          spider: Spider | None = None) -> AsyncIterator[Any]:
        page = self._page(response)
        if not (self.recording or page.filters):  # most pages: at the lowest cost
            async for obj in result:
                yield obj
            return
        async for obj in result:
            if self._keep(response, page, obj):
                yield obj

    def _page(self, response: Response) -> Page:
        page = self._pages.get(response)
        if page is None:
            request: Request | None = getattr(response, "request", None)
            directives = RobotsDirectives.from_response(
                response, self.user_agents.for_request(request))
            meta = request.meta if request is not None else {}  # no request, no meta
            usage = self._usage(response, meta, directives)
            page = self.policy.judge(directives, obey=not meta.get("dont_obey_robotstxt"),
                                     usage=usage)
            self._pages[response] = page
            meta[META_KEY] = directives
            if self.recording:
                meta[RECORD_META] = page_record(meta, response.url, directives, usage)
            self._count(response, page)
        return page

    def _usage(self, response: Response, meta: dict[str, Any],
               directives: RobotsDirectives) -> UsageReading | None:
        purposes = self.usage.purposes_for(meta)
        if not purposes:
            return None
        usage = meta[USAGE_META] = self.usage.for_page(
            meta.get(ORIGIN_USAGE_META), response.url, usage_headers(response), directives,
            purposes)
        return usage

    def _keep(self, response: Response, page: Page, obj: Any) -> bool:
        if isinstance(obj, Request):
            return self._keep_request(response, page, obj)
        reason = self.policy.dropped_item(page)
        if reason is not None:
            self._drop("items_dropped", reason, response, "Dropped an item of %(url)s: %(why)s")
            return False
        recorded = self.policy.recorded_item(page)
        if recorded is not None:  # ROBOTS_POLICY_USAGE = "record": kept, and counted
            self._drop("items_refused_recorded", recorded, response,
                       "Kept an item of %(url)s (usage recorded, not enforced): %(why)s")
        if self.item_field and not annotate(obj, self.item_field, response.meta.get(RECORD_META)):
            self.stats.inc_value("robots_policy/items_not_annotated")
        return True

    def _keep_request(self, response: Response, page: Page, request: Request) -> bool:
        unread = page.links is None
        reason = self.policy.dropped_request(page, response, request.url)
        if unread and page.links is not None and not page.links.readable:  # read just now, failed
            self.stats.inc_value("robots_policy/parse_errors")
            logger.warning("Could not read the links of %(url)s",
                           {"url": response.url}, extra={"spider": self.crawler.spider})
        if reason is not None:
            self._drop("requests_dropped", reason, response,
                       "Not following %(request)s of %(url)s: %(why)s", request)
        return reason is None

    def _count(self, response: Response, page: Page) -> None:
        stats, url, extra = self.stats, response.url, {"spider": self.crawler.spider}
        stats.inc_value("robots_policy/response_count")
        if page.noindex is not None:
            stats.inc_value("robots_policy/responses/noindex")
        if page.nofollow is not None:
            stats.inc_value("robots_policy/responses/nofollow")
        directives = page.directives
        for problem in directives.problems:
            stats.inc_value("robots_policy/invalid_directives")
            logger.debug("%(problem)s on %(url)s", {"problem": problem, "url": url}, extra=extra)
        for problem in page.usage.problems if page.usage else ():
            stats.inc_value("robots_policy/usage/invalid_signals")
            logger.debug("Usage signal of %(url)s ignored: %(problem)s",
                         {"url": url, "problem": problem}, extra=extra)
        if directives.cut:  # one line per response, however much was cut
            stats.inc_value("robots_policy/values_cut", len(directives.cut))
            logger.debug("Robots directives of %(url)s read in part: %(cut)s",
                         {"url": url, "cut": "; ".join(directives.cut)}, extra=extra)
        for error in directives.errors:
            stats.inc_value("robots_policy/parse_errors")
            logger.warning("Robots directives of %(url)s: %(error)s",
                           {"url": url, "error": error}, extra=extra)

    def _drop(self, what: str, reason: Reason, response: Response, message: str,
              request: Request | None = None) -> None:
        self.stats.inc_value(f"robots_policy/{what}")
        self.stats.inc_value(f"robots_policy/{what}/{reason.name}")
        logger.debug(message, {"url": response.url, "why": reason.text, "request": request},
                     extra={"spider": self.crawler.spider})

