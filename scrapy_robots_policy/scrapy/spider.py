"""RobotsPolicySpiderMiddleware: enforce the page-level directives of every response.

It sits next to the spider, so it sees what callbacks yield, and drops what
:mod:`scrapy_robots_policy.page.policy` decides to drop; :mod:`.pageaccounts` counts and
logs why. Every
directive is put in ``response.meta["robots_directives"]`` before the callback runs, for
the user's code to honour the rest (nosnippet, max-snippet, ...). :mod:`.pagetrees`
chooses whether a page's meta tags are read from its tree or streamed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy import Request, signals
from scrapy.exceptions import NotConfigured

from scrapy_robots_policy.directives import RobotsDirectives
from scrapy_robots_policy.page.policy import KEPT, Outcome, Page, PagePolicy
from scrapy_robots_policy.page.record import RECORD_META, annotate, page_record
from scrapy_robots_policy.page.request import DECISION_META, RequestDecision
from scrapy_robots_policy.scrapy.pageaccounts import PageAccounts
from scrapy_robots_policy.scrapy.pagetrees import PageTrees
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from scrapy_robots_policy.scrapy.useragent import UserAgentChoice
from scrapy_robots_policy.usage.policy import (
    USAGE_HEADERS,
    USAGE_META,
    UsagePolicy,
    UsageReading,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.spiders import Spider

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
        self.accounts = PageAccounts(crawler)
        self.policy = PagePolicy(settings)
        self.usage = UsagePolicy(settings)
        self.item_field = settings.item_field
        self.recording = bool(settings.item_field or settings.purposes)
        self.user_agents = UserAgentChoice.for_crawler(crawler)
        crawler.signals.connect(self.user_agents.use_spider, signal=signals.spider_opened)
        self._pages: WeakKeyDictionary[Response, Page] = WeakKeyDictionary()
        self.trees = PageTrees()  # whether each page is read from its tree or streamed

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
        else:
            for obj in result:
                if self._keep(response, page, obj):
                    yield obj
        self.trees.learn(response)

    async def process_spider_output_async(self, response: Response, result: AsyncIterator[Any],
                                          spider: Spider | None = None) -> AsyncIterator[Any]:
        page = self._page(response)
        if not (self.recording or page.filters):  # most pages: at the lowest cost
            async for obj in result:
                yield obj
        else:
            async for obj in result:
                if self._keep(response, page, obj):
                    yield obj
        self.trees.learn(response)

    def _page(self, response: Response) -> Page:
        page = self._pages.get(response)
        if page is None:
            request: Request | None = getattr(response, "request", None)
            directives = RobotsDirectives.from_response(
                response, self.user_agents.for_request(request), self.trees.access(response))
            meta = request.meta if request is not None else {}  # no request, no meta
            usage = self._usage(response, meta, directives)
            page = self.policy.judge(directives, obey=not meta.get("dont_obey_robotstxt"),
                                     usage=usage)
            self._pages[response] = page
            meta[META_KEY] = directives
            if self.recording:
                meta[RECORD_META] = page_record(meta, directives, usage, url=response.url,
                                                body=response.body)
            self.accounts.read(response, page)
        return page

    def _usage(self, response: Response, meta: dict[str, Any],
               directives: RobotsDirectives) -> UsageReading | None:
        purposes = self.usage.purposes_for(meta)
        if not purposes:
            return None
        decision = meta.get(DECISION_META)  # the origin's reading, made before the request
        origin = decision.usage if isinstance(decision, RequestDecision) else None
        usage = meta[USAGE_META] = self.usage.for_page(
            origin, response.url, usage_headers(response), directives,
            purposes)
        return usage

    def _keep(self, response: Response, page: Page, obj: Any) -> bool:
        if isinstance(obj, Request):
            return self._apply(response, self.policy.for_request(page, response, obj.url), obj)
        if not self._apply(response, self.policy.for_item(page)):
            return False
        if self.item_field and not annotate(obj, self.item_field, response.meta.get(RECORD_META)):
            self.stats.inc_value("robots_policy/items_not_annotated")
        return True

    def _apply(self, response: Response, outcome: Outcome, request: Request | None = None
               ) -> bool:
        """Count and log what the page policy decided of one object; whether it is kept."""
        if outcome is KEPT:
            return True
        if outcome.links_unreadable:
            self.accounts.unreadable_links(response)
        if outcome.count is not None and outcome.reason is not None:
            self.accounts.dropped(outcome.count, outcome.reason, response, outcome.message,
                                  request)
        return outcome.kept


def usage_headers(response: Response) -> dict[str, list[str]]:
    """The usage headers of a response, as :class:`.UsagePolicy` takes them: by lower-case
    name, as text (latin-1, as HTTP/1.1 carries it); odd headers are skipped."""
    found: dict[str, list[str]] = {}
    for name in USAGE_HEADERS:
        try:
            values = response.headers.getlist(name)
        except Exception:  # a response without headers, or a header object that fails
            continue
        if values:
            found[name.lower()] = [value.decode("latin-1") if isinstance(value, bytes)
                                   else str(value) for value in values]
    return found
