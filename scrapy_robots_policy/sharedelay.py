"""Crawl-delay for a whole cluster: one request per origin per delay, from all processes.

With ``ROBOTS_POLICY_REDIS_URL`` set, an allowed request to an origin with a Crawl-delay
(or, with ``ROBOTS_POLICY_SHARED_DOWNLOAD_DELAY``, Scrapy's ``DOWNLOAD_DELAY``) takes a
turn from Redis (one script call: the origin's next free time, moved on by the delay, on
Redis's clock) and is held in the middleware until then. Origins without a delay never
reach this module's Redis call.

- In each process the requests of one origin take their turns one after the other, so
  no process books an origin's turns far ahead of the others. A request woken late for
  its turn (a busy process) takes one more turn instead of going late, which would put
  it close to the next process's request; turns are a tenth longer than the delay (at
  most 1 s) for the same reason.
- A held request does not count against ``CONCURRENT_REQUESTS`` (up to :data:`HELD_MAX`
  of them): a site with a long delay must not take the downloader's places from the
  others, as the requests queued in a slot with a delay do in Scrapy.
- With ``ROBOTS_POLICY_SHARED_DOWNLOAD_DELAY``, the turns replace the per-process
  ``DOWNLOAD_DELAY`` of Scrapy's slots (set to 0 for the slots they serve).
- Redis down (or, on a cluster, the node of the origin's slot): the process keeps the
  delay on its own (the spacing it keeps anyway), with the WARNING and stat of
  :mod:`.cache.outages`; the delay is never dropped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest

from scrapy_robots_policy.cache.redis import RedisCache
from scrapy_robots_policy.cache.redis_store import ERRORS
from scrapy_robots_policy.crawldelay import CrawlDelay, downloader_of
from scrapy_robots_policy.fetch.closing import CrawlClosing
from scrapy_robots_policy.origin import Origin
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

logger = logging.getLogger(__name__)

#: A request woken this much after its turn (a busy process) takes another turn, rather
#: than come close behind the next process's request; seconds (or a twentieth of the
#: delay).
LATE = 0.05
#: Turns are this much (of the delay, at most 1 s) longer than the delay: from a turn to
#: the request reaching the site takes a varying few tens of milliseconds (the downloader,
#: a connection), which would otherwise bring two processes' requests closer than asked.
MARGIN = 0.1
#: Held requests beyond ``CONCURRENT_REQUESTS`` (each costs a little memory); more than
#: this count against it again, as Scrapy's own delays do.
HELD_MAX = 1000


class SharedDelay:
    """Holds each allowed request of a delayed origin until its cluster-wide turn."""

    def __init__(self, crawler: Crawler, settings: RobotsPolicySettings, cache: RedisCache,
                 ) -> None:
        self._crawler = crawler
        assert crawler.stats is not None
        self._stats = crawler.stats
        self._crawl_delay = CrawlDelay(crawler, settings) if settings.crawl_delay else None
        self._download_delay = (settings.download_delay if settings.shared_download_delay
                                else 0.0)
        self._store = cache.store
        self._outages = cache.outages
        self._closing = CrawlClosing(crawler)
        self._lines: dict[Origin, tuple[asyncio.Lock, list[int]]] = {}  # lock, users
        self._next_here: dict[Origin, float] = {}  # monotonic: this process's own spacing
        self._max_origins = settings.max_origins
        self._lent = 0
        if self._download_delay:
            crawler.signals.connect(self._no_slot_delay,
                                    signal=signals.request_reached_downloader)

    def apply(self, origin: Origin, rules: RobotsTxt, user_agent: str, request: Request
              ) -> Coroutine[Any, Any, None] | None:
        """``None`` if ``request`` may go now (no delay); else what to await first."""
        delay = self._download_delay
        if self._crawl_delay is not None:
            delay = max(delay, self._crawl_delay.seconds(origin, rules, user_agent))
        return self._hold(origin, delay) if delay > 0 else None

    async def _hold(self, origin: Origin, delay: float) -> None:
        lent = self._lend()
        lock, users = self._lines.setdefault(origin, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:  # one request of this origin at a time takes its turn
                cut = await self._wait(self._spacing_here(origin))
                for _ in range(2):  # a turn missed (woken late): one more, never two
                    if cut:
                        break
                    wait = await self._turn(origin, delay + min(delay * MARGIN, 1.0))
                    due = time.monotonic() + wait
                    cut = await self._wait(wait)
                    if time.monotonic() - due <= min(LATE, delay / 20):
                        break
                    self._stats.inc_value("robotstxt/crawl_delay/late")
                self._next_here[origin] = time.monotonic() + delay
        finally:
            users[0] -= 1
            if not users[0]:
                del self._lines[origin]
            if lent:
                self._give_back()
        if cut:
            # Sent now, it would come before its turn: it is dropped, and counted.
            self._stats.inc_value("robotstxt/crawl_delay/closing")
            raise IgnoreRequest("the crawl closed while the request waited for its "
                                "Crawl-delay turn")

    def _spacing_here(self, origin: Origin) -> float:
        """What this process still owes the origin's delay since its own last request
        (all there is while Redis is down, and a floor when it comes back)."""
        if len(self._next_here) > self._max_origins:  # forget the turns long passed
            now = time.monotonic()
            self._next_here = {o: t for o, t in self._next_here.items() if t > now}
        return max(self._next_here.get(origin, 0.0) - time.monotonic(), 0.0)

    async def _turn(self, origin: Origin, delay: float) -> float:
        """Seconds until the origin's cluster-wide turn; 0 while Redis is down for it."""
        scope = self._store.scope(origin)
        if self._outages.down(scope):
            return 0.0
        try:
            wait = await self._store.turn(origin, delay)
        except ERRORS as exc:
            self._outages.failed(scope, exc)
            return 0.0
        self._outages.reached(scope)
        return wait

    async def _wait(self, seconds: float) -> bool:
        """Hold the request ``seconds``; whether the crawl closed meanwhile."""
        if seconds <= 0:
            return False
        self._stats.inc_value("robotstxt/crawl_delay/held")
        await self._closing.sleep(seconds)
        return self._closing.started()

    def _no_slot_delay(self, request: Request, spider: Any = None) -> None:
        """Leave ``DOWNLOAD_DELAY`` to the shared turns: a request let go at its turn and
        then held again by its slot would come late, and the next turn too early. Done
        as each request (robots.txt ones too) reaches its slot, before it is queued."""
        downloader = downloader_of(self._crawler)
        slot = downloader.slots.get(request.meta.get(downloader.DOWNLOAD_SLOT, "")) \
            if downloader is not None else None
        if slot is not None:
            slot.delay = 0

    def _lend(self) -> bool:
        """One more place in the downloader while this request is held."""
        downloader = downloader_of(self._crawler)
        if downloader is None or self._lent >= HELD_MAX or downloader.total_concurrency <= 0:
            return False
        downloader.total_concurrency += 1
        self._lent += 1
        return True

    def _give_back(self) -> None:
        downloader = downloader_of(self._crawler)
        if downloader is not None:
            downloader.total_concurrency -= 1
        self._lent -= 1
