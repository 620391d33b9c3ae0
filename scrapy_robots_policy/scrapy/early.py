"""Refusing a request before the scheduler when its origin's answer is already known.

A request that a spider yields (start requests included), that a downloader middleware
sends back (a redirect, a retry) or that a component hands to ``engine.crawl()`` (as
scrapy-redis does with the start URLs it pops from Redis) is sent with Scrapy's
``request_scheduled`` signal just before the scheduler takes it; a handler raising
``IgnoreRequest`` drops it there (Scrapy 2.13+). One hook sees every way into the
scheduler, where a spider middleware would miss the last two, so a disallowed request
never takes a place in the queue (scrapy-redis's shared one included), nor a worker's
download slot.

It is refused only with an answer the download would give too: robots.txt fetched (by
this process, or taken from Redis) and fresh, and, purposes declared and enforced, the
origin's usage signals. Origins not known yet, a stale copy (the download refreshes it)
and temporary refusals (robots.txt unreachable) are left to the download, as are the
requests that skip the check there (``dont_obey_robotstxt``, ``scrapy check`` samples).
A refusal is counted, logged and raised by the same :class:`.Refusals` as at download
time; its errback gets the failure through Scrapy's scraper, as a download failure
(:func:`.internals.hand_to_errback`). Where that cannot be done (a stand-in engine, a
future Scrapy), nothing is refused early.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.log import failure_to_exc_info
from twisted.python.failure import Failure

from scrapy_robots_policy.fetch.origin import Origins
from scrapy_robots_policy.fetch.policy import Lookup
from scrapy_robots_policy.fetch.verdict import CHECK_ONLY_META
from scrapy_robots_policy.page.request import DECISION_META, RequestDecision
from scrapy_robots_policy.scrapy import internals
from scrapy_robots_policy.scrapy.useragent import UserAgentChoice
from scrapy_robots_policy.usage.policy import CHECK_PURPOSES_META

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

    from scrapy_robots_policy.cache import RobotsCache
    from scrapy_robots_policy.fetch.policy import Policy
    from scrapy_robots_policy.scrapy.refusals import Refusals
    from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
    from scrapy_robots_policy.scrapy.usagegate import UsageGate
    from scrapy_robots_policy.usage.policy import UsageReading

# The downloader middleware's logger, whose refusals these are.
logger = logging.getLogger("scrapy_robots_policy.downloader")


class EarlyRefusal:
    """Refuses, as they are scheduled, the requests that a known answer refuses. Built by
    the downloader middleware, with its cache, policy, usage gate and refusals: one cached
    answer and one way of refusing for both."""

    def __init__(self, crawler: Crawler, settings: RobotsPolicySettings, policy: Policy,
                 cache: RobotsCache, usage: UsageGate, refusals: Refusals) -> None:
        self._crawler = crawler
        self._stats = crawler.stats
        self._policy = policy
        self._cache = cache
        self._usage = usage
        self._refusals = refusals
        self._user_agents = UserAgentChoice.for_crawler(crawler)
        self._also_obey = settings.also_obey
        self._purposes = bool(settings.purposes)
        self._origins = Origins()
        crawler.signals.connect(self._scheduled, signal=signals.request_scheduled)

    def _scheduled(self, request: Request, spider: Any = None) -> None:
        """Refuse ``request`` (``IgnoreRequest``, which drops it) if a known answer does."""
        meta = request.meta
        if (meta.get("dont_obey_robotstxt") or CHECK_ONLY_META in meta
                or CHECK_PURPOSES_META in meta):
            return
        parsed = urlparse_cached(request)
        origin = self._origins.of(request.url, parsed.scheme, parsed.netloc)
        if origin is None:
            return
        entry = self._cache.get(origin)
        if entry is None or entry.unreachable or self._policy.lookup(entry) is not Lookup.USE:
            return  # not known, stale or only a temporary answer: the download decides
        user_agent = self._user_agents.for_request(request)
        # As at download time: the engine's cheap yes or no first; a decision (which line)
        # only for a refusal, or when more than the crawler's own group is read.
        allowed = not self._also_obey and entry.rules.allowed(request.url, user_agent)
        if allowed and not self._purposes:
            return
        decision = RequestDecision(origin, entry, request.url, user_agent, self._also_obey)
        reading: UsageReading | None = None
        if allowed or decision.verdict.allowed:
            reading = self._usage.known_refusal(decision, request) if self._purposes else None
            if reading is None:
                return
        self._refuse(decision, reading, request)

    def _refuse(self, decision: RequestDecision, reading: UsageReading | None,
                request: Request) -> None:
        """Refuse as the download would: robots.txt's refusal, or (``reading``) the usage
        signals'; the errback gets the same ``IgnoreRequest``."""
        scraper = internals.scraper_of(self._crawler)
        if scraper is None:
            return  # no errback could be called here: the download refuses it
        if not request.dont_filter and internals.seen_by_scheduler(self._crawler, request):
            return  # a duplicate: the scheduler filters it, as it did before
        request.meta[DECISION_META] = decision  # as the download leaves it, for the errback
        try:
            if reading is None:
                self._refusals.robots(decision, request)
            else:
                self._usage.decide(decision, reading, request)
        except IgnoreRequest:
            if reading is None:
                self._stats.inc_value("robotstxt/forbidden/early")
            else:
                self._stats.inc_value("robots_policy/usage/requests_refused_early")
            # The exception as raised, with its traceback, as a download failure has it.
            failure = Failure()  # type: ignore[no-untyped-call]
            internals.hand_to_errback(scraper, failure, request).addErrback(
                self._errback_failed, request)
            raise

    def _errback_failed(self, failure: Failure, request: Request) -> None:
        logger.error("Error handing the refusal of %(request)s to its errback",
                     {"request": request}, exc_info=failure_to_exc_info(failure),
                     extra={"spider": self._crawler.spider})
