"""RobotsPolicyDownloaderMiddleware: a request is downloaded only if its robots.txt allows it.

Thin by design: it finds a request's origin, asks the cache and the policy whether its
robots.txt is known, has it fetched when not (:mod:`.rounds`), and refuses what the
rules disallow with :exc:`~scrapy.exceptions.IgnoreRequest`. A spider's own request for
a robots.txt is answered from that fetch (:mod:`.spider_robots`), never downloaded twice.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.httpobj import urlparse_cached

from scrapy_robots_policy.fetch.origin import Origin, Origins
from scrapy_robots_policy.fetch.policy import CachedAnswer, Policy
from scrapy_robots_policy.fetch.verdict import CHECK_ONLY_META, VERDICT_META
from scrapy_robots_policy.page.request import DECISION_META, RequestDecision
from scrapy_robots_policy.scrapy.choose_cache import make_cache
from scrapy_robots_policy.scrapy.crawlstate import crawl_state
from scrapy_robots_policy.scrapy.download import RobotsDownload
from scrapy_robots_policy.scrapy.early import EarlyRefusal
from scrapy_robots_policy.scrapy.pacing import make_pacing
from scrapy_robots_policy.scrapy.refusals import Refusals
from scrapy_robots_policy.scrapy.rounds import FetchRounds
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from scrapy_robots_policy.scrapy.spider_robots import SpiderRobotsRequests, answerable
from scrapy_robots_policy.scrapy.usagegate import UsageGate
from scrapy_robots_policy.scrapy.useragent import UserAgentChoice
from scrapy_robots_policy.usage.policy import CHECK_PURPOSES_META

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response
    from typing_extensions import Self


class RobotsPolicyDownloaderMiddleware:
    """Obey robots.txt as Google and RFC 9309 do; a drop-in for Scrapy's RobotsTxtMiddleware.

    Enabled by ``ROBOTSTXT_OBEY``; see the README for the ``ROBOTS_POLICY_*`` settings.
    """

    #: Priority of robots.txt requests, as in Scrapy's own middleware.
    DOWNLOAD_PRIORITY: int = 1000

    def __init__(self, crawler: Crawler) -> None:
        settings = RobotsPolicySettings.of(crawler)
        if not settings.obey_robotstxt:
            raise NotConfigured
        self.crawler = crawler
        self._stats = crawler.stats
        self._policy = Policy(settings.fetch)
        self._cache = make_cache(crawler, settings, self._policy)
        self._rounds = FetchRounds(crawler, self._policy, self._cache,
                                   RobotsDownload(crawler, settings, self.DOWNLOAD_PRIORITY))
        self._pacing = make_pacing(crawler, settings, self._cache)
        self._refusals = Refusals(crawler, settings.also_obey)
        # Also without declared purposes: a @usage_* contract asks for its own.
        self._usage = UsageGate(crawler, settings, self.DOWNLOAD_PRIORITY, self._refusals)
        self._user_agents = UserAgentChoice.for_crawler(crawler)
        self._also_obey = settings.also_obey
        self._purposes = settings.purposes
        # Whether every request needs robots.txt's deciding line, allowed or not (for the
        # compliance record, or to know the also-obeyed tokens' answer): then the engine is
        # asked for it at once, rather than for a yes or no and then again for the line.
        self._needs_line = bool(settings.item_field or settings.purposes or settings.also_obey)
        self._origins = Origins()
        self._spider_robots = SpiderRobotsRequests(crawler, self._rounds, self._refusals)
        crawl_state(crawler).robots_middleware = self  # for spider code (.sitemaps)
        # Requests that the answers cached here refuse are refused before the scheduler.
        # Held here: Scrapy's signals keep only a weak reference to a handler.
        self._early = (EarlyRefusal(crawler, settings, self._policy, self._cache, self._usage,
                                    self._refusals) if settings.early_refusal else None)
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request, spider: Any = None
                        ) -> Response | Coroutine[Any, Any, Response | None] | None:
        """Pass or refuse ``request``; when its robots.txt is not known yet, wait for it.
        A request for the robots.txt itself is answered from the plugin's fetch of it.

        Not a coroutine function on purpose: a request whose answer is cached is decided
        synchronously, without the cost of a coroutine; only waiting returns one.
        """
        if request.meta.get("dont_obey_robotstxt"):
            return None
        parsed = urlparse_cached(request)  # Scrapy caches it per request
        origin = self._origins.of(request.url, parsed.scheme, parsed.netloc)
        if origin is None:  # data:, file:, or nothing a robots.txt could govern
            return None
        entry = self._rounds.deciding_entry(origin, request)
        if answerable(request, parsed):  # fetched once, whoever asks
            return self._spider_robots.respond(origin, entry, request)
        if entry is None:
            return self._wait_and_judge(origin, request)
        return self._judge(origin, entry, request)

    async def robots_entry(self, origin: Origin, request: Request) -> CachedAnswer:
        """What robots.txt says of ``origin`` now, fetched first if unknown (for spider
        code: :mod:`.sitemaps`); ``request`` is the one that asks."""
        entry = self._rounds.deciding_entry(origin, request)
        return (entry if entry is not None
                else await self._rounds.entry(origin, request, handed=True))

    def known_entry(self, origin: Origin) -> CachedAnswer | None:
        """This process's copy of ``origin``'s robots.txt, fresh or not, without a fetch."""
        return self._cache.get(origin)

    async def _wait_and_judge(self, origin: Origin, request: Request) -> Response | None:
        then = self._judge(origin, await self._rounds.entry(origin, request), request)
        return await then if isinstance(then, Coroutine) else then

    def _judge(self, origin: Origin, entry: CachedAnswer, request: Request
               ) -> Response | Coroutine[Any, Any, Response | None] | None:
        """Refuse ``request`` if disallowed; else what to await before its download (the
        usage check), if anything. When it may leave is the download slot's business
        (:mod:`.pacing`), told the origin's Crawl-delay here.

        robots.txt decides once: an allowed request that nothing else reads is only asked
        the engine's cheap yes or no; any other gets one :class:`.RequestDecision`, in its
        meta, which the refusal, the usage gate and the compliance record all read."""
        user_agent = self._user_agents.for_request(request)
        meta = request.meta
        check_only = meta.get(CHECK_ONLY_META)
        if not (check_only or self._needs_line) and entry.rules.allowed(request.url, user_agent):
            self._pacing.crawl_delay(origin, entry.rules, user_agent)
            if CHECK_PURPOSES_META in meta:  # a usage sample: its reading needs a decision
                decision = meta[DECISION_META] = RequestDecision(
                    origin, entry, request.url, user_agent, self._also_obey)
                return self._usage.judge(decision, request)
            return None
        decision = meta[DECISION_META] = RequestDecision(
            origin, entry, request.url, user_agent, self._also_obey, check_only=bool(check_only))
        if check_only:  # scrapy check: decide, never refuse
            meta[VERDICT_META] = decision.verdict
            return self._usage.judge(decision, request)
        if not decision.verdict.allowed:
            self._refusals.robots(decision, request)
        self._pacing.crawl_delay(origin, entry.rules, user_agent)
        if self._purposes or CHECK_PURPOSES_META in meta:
            return self._usage.judge(decision, request)
        return None

    def _spider_opened(self, spider: Any) -> None:
        self._user_agents.use_spider(spider)

    def _spider_closed(self, spider: Any) -> None:
        self._stats.set_value("robotstxt/cached_origins", len(self._cache))
        self._stats.set_value("robotstxt/cache_evictions", self._cache.evictions)

