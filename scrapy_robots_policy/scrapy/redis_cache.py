"""One robots.txt fetch per origin across many Scrapy processes: answers shared in Redis.

The same for tdmrep.json (a second cache of this class, for its document: the usage gate's),
with the same leases, expiry and failure outcomes, under keys of its own.

With ``ROBOTS_POLICY_REDIS_URL`` set, every process (on any host) keeps its in-memory
cache, which answers requests while its copy is fresh without talking to Redis, and goes
to Redis only when its copy is missing or expired (:meth:`RedisCache.claim`):

- a fresh answer in Redis (another process fetched it) is used as it is;
- otherwise one process takes the origin's lease (``SET NX PX``) and fetches; the others
  wait until the write wakes them (:mod:`..cache.wakeups`), or until the lease lapses (its holder
  died) and one of them takes over. The holder renews its lease while its fetch (and
  retries) run;
- the outcome is written with a Lua script that keeps the newer of two answers (by the time
  each was settled), with a TTL, releases the lease and wakes the waiters.

What is stored is what an :class:`~.policy.CachedAnswer` needs (the capped body, not the parsed
rules, and the times), so every process parses locally and the same expiry, retry and 5xx
rules of :mod:`..fetch.policy` apply everywhere. The client is redis-py's asyncio one: Scrapy runs
on the asyncio reactor by default (2.13+), so no call blocks the reactor and no thread is
used. When Redis (or, on a cluster, the node of an origin's slot) cannot be reached, each
process fetches for itself (:mod:`.redis_outages`: a WARNING and the ``robotstxt/redis_errors``
stat), never allowing more than its robots.txt does, and tries Redis again after a while.
Keys, scripts and the connection are :mod:`..cache.redis_store`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from typing import TYPE_CHECKING, Any

from scrapy import signals

from scrapy_robots_policy.cache.memory import MemoryCache
from scrapy_robots_policy.cache.redis_store import ERRORS, SOCKET_TIMEOUT, RedisStore, redacted
from scrapy_robots_policy.cache.wakeups import Wakeups
from scrapy_robots_policy.fetch.document import ROBOTS_TXT
from scrapy_robots_policy.fetch.origin import Origin
from scrapy_robots_policy.fetch.policy import CachedAnswer, Policy
from scrapy_robots_policy.scrapy.redis_outages import Outages
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

# The logger name it had before the move to scrapy/: users' log filters name it.
logger = logging.getLogger("scrapy_robots_policy.cache.redis")

#: The longest wait between two looks at Redis when no write can wake this process
#: (its subscription cannot be opened).
POLL_MAX = 0.5


class RedisCache(MemoryCache):
    """The in-memory cache of one process, shared with the others through Redis."""

    def __init__(self, settings: RobotsPolicySettings, crawler: Crawler, policy: Policy,
                 ) -> None:
        super().__init__(settings.max_origins)
        if not _asyncio_available():
            raise RuntimeError("the Redis cache needs Scrapy's asyncio reactor "
                               "(TWISTED_REACTOR)")
        url = settings.redis_url or ""
        self._policy = policy
        assert crawler.stats is not None  # a crawler has its stats before its components
        self._stats = crawler.stats
        self._crawler = crawler
        lease_time = settings.redis_lease_time
        document = self._document = policy.document
        self.store = RedisStore(url, settings.redis_prefix, lease_time,
                                policy.settings.stale_limit, document)
        #: Shared with the cluster-wide Crawl-delay, which falls back on the same outages.
        self.outages = Outages(crawler, redacted(url), (
            "robots.txt is fetched, and Crawl-delay kept," if document == ROBOTS_TXT
            else f"{document.name} is fetched"), document.name)
        self._wakeups = Wakeups(self.store)
        # Past this, a process stops waiting for a holder that renews its lease but never
        # answers, and fetches itself: the longest a healthy round can last, plus a lease.
        s = policy.settings
        self._max_wait = (s.patience + (s.max_redirects + 1) * settings.fetch_timeout * 2
                          + lease_time)
        self._renew_every = lease_time / 3
        self._fetching: dict[Origin, str] = {}  # origins this process fetches: lease token
        self._renewals: dict[Origin, asyncio.Task[None]] = {}
        self._writes: set[asyncio.Task[None]] = set()
        self._closed = False
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    async def claim(self, origin: Origin) -> CachedAnswer | None:
        """A fresh answer from Redis; else ``None`` once this process holds the lease (or
        Redis is down): it fetches. Waits while another process holds the lease."""
        scope = self.store.scope(origin)
        if self.outages.down(scope):
            return None
        token = os.urandom(8).hex()
        started = time.monotonic()
        while not self._closed:
            with self._wakeups.watch(origin) as woken:
                listening = await self._wakeups.listening()  # before looking: no write missed
                try:
                    state, stored, lease_left = await self.store.claim(
                        origin, self._policy.now(), token, super().get(origin))
                except ERRORS as exc:
                    self.outages.failed(scope, exc)
                    return None
                except ValueError as exc:  # not written by this package (or an older one)
                    self._stats.inc_value("robotstxt/redis_errors")
                    logger.warning("%(document)s of %(origin)s: %(error)s in Redis; fetching "
                                   "it here", {"origin": origin, "error": exc,
                                               "document": self._document.name},
                                   extra={"spider": self._crawler.spider})
                    self._fetching[origin] = ""  # the answer fetched here replaces it
                    return None
                self.outages.reached(scope)
                if state == "fresh":
                    assert stored is not None
                    self._stats.inc_value(f"{self._document.stats}/redis_shared")
                    logger.debug("%(document)s of %(origin)s: taken from Redis (%(why)s)",
                                 {"origin": origin, "why": stored.summary,
                                  "document": self._document.name},
                                 extra={"spider": self._crawler.spider})
                    return stored
                if state == "lease":
                    if stored is not None:  # the cluster's last word is this fetch's "previous"
                        self.put(origin, stored)
                    self._fetching[origin] = token
                    self._renewals[origin] = asyncio.ensure_future(self._keep(origin, token))
                    return None
                if time.monotonic() - started > self._max_wait:
                    logger.warning("%(document)s of %(origin)s: another process has held the "
                                   "fetch for %(waited).0f s; fetching it here too",
                                   {"origin": origin, "waited": time.monotonic() - started,
                                    "document": self._document.name},
                                   extra={"spider": self._crawler.spider})
                    self._fetching[origin] = ""
                    return None
                # Woken by the write; else look again when the lease would lapse (its
                # holder died: take over), or soon when no write can wake this process.
                timeout = lease_left if listening else min(lease_left, POLL_MAX)
                await asyncio.wait([woken], timeout=max(timeout, 0.01))
        return None

    def put(self, key: Origin, value: CachedAnswer) -> None:
        """Cache locally; when this process fetched ``value``, share it (in the background:
        the requests waiting for it go on at once) and release the lease."""
        super().put(key, value)
        token = self._fetching.pop(key, None)
        if token is None:
            return
        renewal = self._renewals.pop(key, None)
        if renewal is not None:
            renewal.cancel()
        now = self._policy.now()
        task = asyncio.ensure_future(self._share(key, value, now, token))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _share(self, origin: Origin, entry: CachedAnswer, version: float, token: str) -> None:
        scope = self.store.scope(origin)
        if self.outages.down(scope):
            return
        try:
            await self.store.write(origin, entry, version, self._policy.now(), token)
        except ERRORS as exc:
            self.outages.failed(scope, exc)
        else:
            self.outages.reached(scope)

    async def _keep(self, origin: Origin, token: str) -> None:
        """Renew the lease while this process fetches (retries included), for as long as
        a round may last (a round that ends without an answer then frees it too)."""
        until = time.monotonic() + self._max_wait
        while time.monotonic() < until:
            await asyncio.sleep(self._renew_every)
            try:
                await self.store.renew(origin, token)
            except ERRORS as exc:
                self.outages.failed(self.store.scope(origin), exc)
                return  # the lease lapses: another process may fetch too, harmless

    async def _spider_closed(self, spider: Any) -> None:
        """Stop waiting and renewing, let the last writes finish, close the connections."""
        self._closed = True
        for renewal in self._renewals.values():
            renewal.cancel()
        if self._writes:
            await asyncio.wait(list(self._writes), timeout=2 * SOCKET_TIMEOUT)
        await self._wakeups.close()
        with contextlib.suppress(*ERRORS):
            await self.store.close()


def _asyncio_available() -> bool:
    try:
        from scrapy.utils.asyncio import is_asyncio_available  # Scrapy 2.14+
    except ImportError:
        from scrapy.utils.reactor import is_asyncio_reactor_installed as is_asyncio_available
    return is_asyncio_available()
