"""The downloader side of usage signals: requests whose origin refuses a declared purpose.

Active only when ``ROBOTS_POLICY_PURPOSES`` declares purposes. What refuses is decided
in :mod:`..usage.policy` (no Scrapy); this adapter fetches the origin's tdmrep.json when a
declared purpose needs it (like robots.txt: once per origin, cached, retried, refusing
while unreachable; with ``ROBOTS_POLICY_REDIS_URL``, once per origin for every process,
through the same Redis cache), refuses what is refused (or only records it:
``ROBOTS_POLICY_USAGE = "record"``), counts and logs each refusal and each label it did not
read, and leaves the origin's reading in ``request.meta`` for the spider middleware's
page-level decision and compliance record. A spider's own request for a tdmrep.json that
the gate fetches is answered from that fetch (:mod:`.spider_robots`), as robots.txt is.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from scrapy.utils.httpobj import urlparse_cached

from scrapy_robots_policy.cache.memory import LRUCache, MemoryCache
from scrapy_robots_policy.fetch.document import TDMREP_JSON
from scrapy_robots_policy.fetch.origin import Origin
from scrapy_robots_policy.fetch.policy import Lookup, Policy
from scrapy_robots_policy.fetch.verdict import CHECK_ONLY_META
from scrapy_robots_policy.scrapy.choose_cache import make_cache
from scrapy_robots_policy.scrapy.download import RobotsDownload
from scrapy_robots_policy.scrapy.ignoredlabels import IgnoredLabels
from scrapy_robots_policy.scrapy.refusals import Refusals
from scrapy_robots_policy.scrapy.rounds import FetchRounds
from scrapy_robots_policy.scrapy.spider_robots import SpiderRobotsRequests, answerable
from scrapy_robots_policy.usage.policy import UsagePolicy, UsageReading

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from scrapy_robots_policy.page.request import RequestDecision
    from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings

# The logger name it had before the move to scrapy/: users' log filters name it.
logger = logging.getLogger("scrapy_robots_policy.usagegate")

#: Problems of origins' usage signals remembered as already logged.
_REPORTED_PROBLEMS = 4096


class UsageGate:
    """Refuses (or records) requests whose origin-level usage signals refuse a purpose."""

    def __init__(self, crawler: Crawler, settings: RobotsPolicySettings, priority: int,
                 refusals: Refusals) -> None:
        self._crawler = crawler
        self._refusals = refusals
        self._stats = crawler.stats
        self._usage = UsagePolicy(settings)
        self._tdmrep_policy = Policy(settings.fetch, document=TDMREP_JSON)
        # Shared like robots.txt when the crawl's purposes need the file; a contract's
        # sample (which declares its own) keeps it in this process.
        self._fetches_tdmrep = self._usage.needs_tdmrep(settings.purposes)
        self._tdmrep_cache = (make_cache(crawler, settings, self._tdmrep_policy)
                              if self._fetches_tdmrep else MemoryCache(settings.max_origins))
        self._tdmrep = FetchRounds(
            crawler, self._tdmrep_policy, self._tdmrep_cache,
            RobotsDownload(crawler, settings, priority, TDMREP_JSON.stats))
        self._reported: LRUCache[tuple[Origin, str], bool] = LRUCache(_REPORTED_PROBLEMS)
        self._ignored = IgnoredLabels(crawler, logger)
        self._spider_requests = SpiderRobotsRequests(crawler, self._tdmrep, refusals,
                                                     TDMREP_JSON)

    def judge(self, decision: RequestDecision, request: Request
              ) -> Response | Coroutine[Any, Any, Response | None] | None:
        """Decide ``request``'s purposes now, or (tdmrep.json not known yet) once it is
        fetched; the reading goes to ``decision.usage``. A spider's own request for the
        tdmrep.json the gate fetches is answered from that fetch instead: a policy file,
        not content, like robots.txt."""
        origin = decision.origin
        if self._answers(request):
            return self._spider_requests.respond(
                origin, self._tdmrep.deciding_entry(origin, request), request)
        purposes = self._usage.purposes_for(request.meta)
        if not purposes:
            return None
        reading = self._usage.for_robots(decision.entry, request.url, decision.user_agent,
                                         purposes)
        if not self._usage.needs_tdmrep(purposes) or (
                reading.refusal is not None and self._enforced(request)):
            self.decide(decision, reading, request)  # refused already: tdmrep.json can wait
            return None
        tdmrep = self._tdmrep.deciding_entry(origin, request)
        if tdmrep is None:
            return self._wait_and_decide(decision, reading, request)
        self.decide(decision, self._usage.with_tdmrep(reading, tdmrep, request.url), request)
        return None

    def known_refusal(self, decision: RequestDecision, request: Request
                      ) -> UsageReading | None:
        """Before the scheduler: the reading that refuses ``request``, if the crawl's
        declared purposes are enforced and the origin's signals already at hand (its
        robots.txt, and its tdmrep.json when a purpose needs it, fetched and fresh) refuse
        one; else ``None`` (nothing refused, a file not known yet or unreachable,
        ``"record"`` mode), and the download decides. Counts and logs nothing: refusing is
        :meth:`decide`'s."""
        purposes = self._usage.purposes
        if not purposes or not self._enforced(request) or self._answers(request):
            return None
        reading = self._usage.for_robots(decision.entry, request.url, decision.user_agent,
                                         purposes)
        if reading.refusal is None and self._usage.needs_tdmrep(purposes):
            tdmrep = self._tdmrep_cache.get(decision.origin)
            if (tdmrep is None or tdmrep.unreachable
                    or self._tdmrep_policy.lookup(tdmrep) is not Lookup.USE):
                return None
            reading = self._usage.with_tdmrep(reading, tdmrep, request.url)
        return reading if reading.refusal is not None else None

    def _answers(self, request: Request) -> bool:
        """Whether ``request`` is a spider's own request for the tdmrep.json the gate
        fetches for the crawl's purposes."""
        return self._fetches_tdmrep and answerable(request, urlparse_cached(request),
                                                   TDMREP_JSON)

    async def _wait_and_decide(self, decision: RequestDecision, reading: UsageReading,
                               request: Request) -> None:
        tdmrep = await self._tdmrep.entry(decision.origin, request)
        self.decide(decision, self._usage.with_tdmrep(reading, tdmrep, request.url), request)

    def _enforced(self, request: Request) -> bool:
        """Whether a refusal refuses: enforcing, and not a ``scrapy check`` sample."""
        return self._usage.enforce and not request.meta.get(CHECK_ONLY_META)

    def decide(self, decision: RequestDecision, reading: UsageReading, request: Request
               ) -> None:
        """Leave ``reading`` in ``decision``; refuse (or record) what it refuses."""
        decision.usage = reading
        self._report_problems(decision.origin, reading)
        if reading.refusal is not None:
            self._refusals.usage(decision, request, self._enforced(request))

    def _report_problems(self, origin: Origin, reading: UsageReading) -> None:
        """Each problem of an origin's files once (not once per request), at DEBUG; each
        label they used and this crawl did not read once, at INFO."""
        self._ignored.report(origin, reading.ignored)
        for problem in reading.problems:
            if (origin, problem) in self._reported:
                continue
            self._reported.put((origin, problem), True)
            self._stats.inc_value("robots_policy/usage/invalid_signals")
            logger.debug("Usage signal of %(origin)s ignored: %(problem)s",
                         {"origin": origin, "problem": problem},
                         extra={"spider": self._crawler.spider})
