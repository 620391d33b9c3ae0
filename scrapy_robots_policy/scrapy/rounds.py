"""Fetching robots.txt during a crawl: the fetch machine driven through Scrapy.

One round per origin at a time: the requests of that origin wait for it (or, while a
stale copy is refreshed, are decided by that copy), and all get the entry it settles.
What a fetch means, redirects, retries and their schedule are
:class:`~scrapy_robots_policy.fetch.machine.RobotsFetch`'s; this module downloads through
Scrapy, sleeps between retries (no longer than the crawl stays open), caches the
outcome, logs it and counts it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred

from scrapy_robots_policy.cache import RobotsCache
from scrapy_robots_policy.fetch.machine import Download, NextStep, RobotsFetch, Settled
from scrapy_robots_policy.fetch.origin import Origin
from scrapy_robots_policy.fetch.policy import CLOSING, CachedAnswer, Lookup, Policy
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.scrapy.closing import CrawlClosing
from scrapy_robots_policy.scrapy.download import RobotsDownload

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

# The logger name it had before the move to scrapy/: users' log filters name it.
logger = logging.getLogger("scrapy_robots_policy.fetch.rounds")

#: Sent with each parsed robots.txt, like Scrapy's middleware does (Scrapy 2.18+ only).
_ROBOTS_PARSED: object | None = getattr(signals, "robots_parsed", None)


@dataclass
class _Round:
    """One origin's fetch in progress (with its retries) and the requests waiting for it."""

    waiters: list[Deferred[CachedAnswer]] = field(default_factory=list)
    handed: int = 0  # waiters handed the answer (a spider's own request for the file)
    task: Deferred[None] | None = None  # held: the event loop keeps only weak references


class FetchRounds:
    """The rounds of fetching in progress, one per origin, and the requests they hold."""

    def __init__(self, crawler: Crawler, policy: Policy, cache: RobotsCache,
                 download: RobotsDownload) -> None:
        self._crawler = crawler
        self._stats = crawler.stats
        self._policy = policy
        self._cache = cache
        self._download = download
        self._document = policy.document
        self._closing = CrawlClosing(crawler)
        self._rounds: dict[Origin, _Round] = {}

    async def entry(self, origin: Origin, request: Request, handed: bool = False
                    ) -> CachedAnswer:
        """The entry of ``origin`` once fetched: joins its round, or starts one.
        ``handed``: the caller gets the answer itself rather than a judgement by it, so an
        unreachable file does not refuse it (the round's WARNING does not count it).

        The caller found nothing usable in the cache, but Scrapy may run this coroutine a
        loop turn later: a round that settled meanwhile has cached its entry, which
        answers instead of a second fetch."""
        waiter: Deferred[CachedAnswer] = Deferred()
        current = self._rounds.get(origin)
        if current is not None:
            current.waiters.append(waiter)
            current.handed += handed
        elif self._policy.lookup(cached := self._cache.get(origin)) is Lookup.USE:
            assert cached is not None  # only an entry can be used
            return cached
        else:
            self._start(origin, request, _Round([waiter], handed))
        return await maybe_deferred_to_future(waiter)

    def deciding_entry(self, origin: Origin, request: Request) -> CachedAnswer | None:
        """The entry that decides ``origin``'s requests now (an expired copy while it is
        refreshed in the background), or ``None``: they wait for a fetch (:meth:`entry`)."""
        entry = self._cache.get(origin)
        lookup = self._policy.lookup(entry)
        if lookup is Lookup.FETCH:
            return None
        if lookup is Lookup.USE_AND_REFRESH:
            self.refresh(origin, request)  # the stale copy answers meanwhile
        return entry

    def refresh(self, origin: Origin, request: Request) -> None:
        """Refetch ``origin``'s robots.txt in the background, unless a round is on."""
        if origin not in self._rounds:
            self._start(origin, request)

    def _start(self, origin: Origin, request: Request, current: _Round | None = None) -> None:
        # Its waiter is registered first: a round may end before this method returns.
        current = self._rounds[origin] = current or _Round()
        current.task = deferred_from_coro(self._run(origin, request))

    async def _run(self, origin: Origin, request: Request) -> None:
        """Fetch (and retry) the robots.txt of ``origin`` until the policy settles it."""
        spider = self._crawler.spider
        entry: CachedAnswer | None = None
        try:
            entry = await self._cache.claim(origin)  # fetched by another process?
            if entry is None:
                entry = await self._settle(origin, request)
        except Exception:
            logger.exception("Error fetching the %(document)s of %(origin)s",
                             {"origin": origin, "document": self._document.name},
                             extra={"spider": spider})
        finally:
            current = self._rounds.pop(origin, None)
            if entry is not None:
                self._cache.put(origin, entry)
            closing = self._closing.started()
            if entry is None or closing:
                # Not settled, or settled after the crawl began closing: what is waiting is
                # refused now (a closing crawl sends no more requests), and the next request
                # of a crawl still running tries again.
                if closing and current and current.waiters:
                    logger.info("%(document)s of %(origin)s %(state)s: %(why)s; refusing "
                                "%(waiting)d waiting requests",
                                {"origin": origin, "why": CLOSING,
                                 "state": "settled too late" if entry else "not settled",
                                 "document": self._document.name,
                                 "waiting": len(current.waiters)}, extra={"spider": spider})
                entry = CachedAnswer(RobotsTxt.disallow_all(),
                                     CLOSING if closing else "not fetched", 0.0, None)
            for waiter in current.waiters if current else ():
                waiter.callback(entry)

    async def _settle(self, origin: Origin, request: Request) -> CachedAnswer | None:
        """Drive the fetch machine to its entry; ``None`` if the crawl closes first."""
        machine = RobotsFetch(self._policy, self._document.url(origin),
                              self._cache.get(origin))
        while not self._closing.started():
            step: NextStep = machine.start()
            while isinstance(step, Download):
                step = machine.received(await self._download.fetched(step.url))
            current = self._rounds.get(origin)
            waiting = len(current.waiters) if current else 0
            if isinstance(step, Settled):
                self._log_outcome(origin, step, waiting - (current.handed if current else 0))
                if (step.answer.definitive and self._document.rules
                        and _ROBOTS_PARSED is not None):
                    # As Scrapy's middleware does: its handlers may be coroutines.
                    await self._crawler.signals.send_catch_log_async(
                        signal=_ROBOTS_PARSED, robotparser=step.answer.rules, request=request)
                return step.entry
            self._stats.inc_value(f"{self._document.stats}/retry_count")
            logger.info("%(document)s of %(origin)s: %(why)s, retrying in %(wait).3g s "
                        "(%(waiting)d requests waiting)",
                        {"origin": origin, "why": step.answer.summary, "wait": step.seconds,
                         "waiting": waiting, "document": self._document.name},
                        extra={"spider": self._crawler.spider})
            await self._closing.sleep(step.seconds)
        return None

    def _log_outcome(self, origin: Origin, settled: Settled, waiting: int) -> None:
        """The round's one INFO or WARNING line, and its stat; ``waiting``: the requests
        waiting to be judged by the answer."""
        entry, chain = settled.entry, settled.chain
        args = {"origin": origin, "why": settled.answer.summary, "waiting": waiting,
                "document": self._document.name,
                "via": f" (via {' -> '.join(chain[1:])})" if len(chain) > 1 else ""}
        extra = {"spider": self._crawler.spider}
        outcome, prefix = settled.outcome, self._document.stats
        if outcome == "unreachable":
            self._stats.inc_value(f"{prefix}/unreachable_count")
            logger.warning("%(document)s of %(origin)s unreachable: %(why)s%(via)s; refusing "
                           "%(waiting)d waiting requests and those of the next %(hold).3g s",
                           {**args, "hold": entry.expires_at - self._policy.now()},
                           extra=extra)
        elif outcome == "stale":
            self._stats.inc_value(f"{prefix}/stale_served_count")
            logger.info("%(document)s of %(origin)s: refresh failed (%(why)s%(via)s), keeping "
                        "the copy fetched %(age).0f s ago", {**args, "age": self._policy.now()
                                                             - (entry.fetched_at or 0.0)},
                        extra=extra)
        elif outcome == "not_fetched":
            self._stats.inc_value(f"{prefix}/not_fetched")
            logger.warning("%(document)s of %(origin)s: %(why)s%(via)s", args, extra=extra)
        else:
            if settled.answer.unparsable:
                self._stats.inc_value(f"{prefix}/unparsable_count")
            logger.info("%(document)s of %(origin)s: %(why)s%(via)s", args, extra=extra)
