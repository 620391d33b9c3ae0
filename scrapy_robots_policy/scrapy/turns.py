"""A paced origin's requests, from every process of a cluster, one per pace: turns in Redis.

A request takes its turn only when nothing else holds it (its slot would send it now), so
no wait of this process's own can come between the turn and the request leaving: the
turn is booked (one script call: the origin's next free time, moved on by the pace, on
Redis's clock) and the slot asks again until it is due.

- Turns are a tenth longer than the pace (at most 1 s): from the turn to the request
  reaching the site takes a varying few milliseconds.
- A request that could not leave at its turn (a busy process) books one more, never two,
  rather than come close behind the next process's request (``robotstxt/crawl_delay/retaken``).
  Its turn began on Redis's clock at some moment of the script call: late is counted from
  the call, waiting from the answer, so a slow answer is late and not early.
- A pause one process observed (429, 503) moves the origin's next turn past it and is
  announced on a channel, so that every process holds that origin, paced or not.
- Redis down (or, on a cluster, the node of the origin's slot), or a turn it answers that
  no script of this package would: the turn is now, and each process keeps the pace by
  itself, with the WARNING and stat of :mod:`.redis_outages`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy import signals

from scrapy_robots_policy.cache.redis_store import ERRORS, SOCKET_TIMEOUT, stop_reading
from scrapy_robots_policy.fetch.origin import Origin, origin_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

    from scrapy_robots_policy.scrapy.redis_cache import RedisCache

logger = logging.getLogger(__name__)

#: A request woken this much after its turn (or a twentieth of the pace) takes another.
LATE = 0.05
#: Turns are this much (of the pace, at most 1 s) longer than the pace.
MARGIN = 0.1
#: How often a slot asks again while its request's turn is being booked, in seconds.
BOOKING_POLL = 0.005
_BOOKING = (-1.0, -1.0)  # a turn asked for, no answer yet


class ClusterTurns:
    """Booked turns of the requests about to leave, and the cluster's pauses."""

    def __init__(self, crawler: Crawler, cache: RedisCache) -> None:
        assert crawler.stats is not None
        self._stats = crawler.stats
        self._store = cache.store
        self._outages = cache.outages
        # Monotonic times of each turn: (the earliest it may have begun, the latest), or
        # _BOOKING while the script runs.
        self._due: dict[Request, tuple[float, float]] = {}
        self._retaken: set[Request] = set()
        self._tasks: set[asyncio.Future[None]] = set()  # the loop keeps weak references
        self._listeners: list[Callable[[Origin, float], None]] = []
        self._reader: asyncio.Future[None] | None = None
        self._closed = False
        self._sender = os.urandom(6).hex()  # this process's own announcements are skipped
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    def wait(self, origin: Origin, request: Request, pace: float) -> float:
        """Seconds ``request`` still waits for its turn: 0 when it may leave now."""
        due = self._due.get(request)
        if due is None or due == _BOOKING:
            if due is None:
                self._book(origin, request, pace)
            return BOOKING_POLL
        earliest, latest = due
        now = time.monotonic()
        if latest > now:
            return latest - now
        if now - earliest > min(LATE, pace / 20) and request not in self._retaken:
            self._retaken.add(request)
            self._stats.inc_value("robotstxt/crawl_delay/retaken")
            self._book(origin, request, pace)
            return BOOKING_POLL
        del self._due[request]
        self._retaken.discard(request)
        return 0.0

    def booked(self, request: Request) -> bool:
        """Whether ``request`` has a turn booked (or being booked)."""
        return request in self._due

    def forget(self) -> None:
        """Drop the turns of requests that will not leave (a closing crawl)."""
        self._due.clear()
        self._retaken.clear()

    def on_pause(self, listener: Callable[[Origin, float], None]) -> None:
        """Call ``listener(origin, seconds)`` for each pause another process announces."""
        self._listeners.append(listener)

    def share_pause(self, origin: Origin, seconds: float) -> None:
        """Announce a pause observed here to the whole cluster."""
        self._spawn(self._share_pause(origin, seconds))

    def _book(self, origin: Origin, request: Request, pace: float) -> None:
        self._due[request] = _BOOKING
        self._spawn(self._take_turn(origin, request, pace + min(pace * MARGIN, 1.0)))

    async def _take_turn(self, origin: Origin, request: Request, length: float) -> None:
        scope = self._store.scope(origin)
        asked = time.monotonic()
        wait = 0.0
        try:
            if not self._outages.down(scope):
                try:
                    wait = await self._store.turn(origin, length)
                except ERRORS as exc:
                    self._outages.failed(scope, exc)
                else:
                    self._outages.reached(scope)
        finally:  # whatever failed, the request never waits for an answer that will not come
            if request in self._due:  # not forgotten meanwhile
                self._due[request] = (asked + wait, time.monotonic() + wait)

    async def _share_pause(self, origin: Origin, seconds: float) -> None:
        scope = self._store.scope(origin)
        if self._outages.down(scope):
            return
        try:
            await self._store.pause(origin, seconds, self._sender)
        except ERRORS as exc:
            self._outages.failed(scope, exc)

    async def _read_pauses(self) -> None:
        """Listen for the pauses of the other processes while the spider runs; a lost
        connection is opened again after a while."""
        while not self._closed:
            try:
                async with self._store.subscription(self._store.pause_channel) as pubsub:
                    while not self._closed:
                        message = await pubsub.get_message(timeout=SOCKET_TIMEOUT)
                        if message is not None and message["type"] == "message":
                            self._announced(message["data"])
            except ERRORS:
                await asyncio.sleep(SOCKET_TIMEOUT)

    def _announced(self, data: bytes) -> None:
        parts = data.decode("utf-8", "replace").split(" ", 2)
        if len(parts) == 3 and parts[1] == self._sender:
            return
        origin = origin_of(parts[-1]) if len(parts) == 3 else None
        ms = parts[0]
        if origin is None or not ms.isascii() or not ms.isdigit():
            self._stats.inc_value("robotstxt/redis_errors")
            logger.warning("Unreadable pause announced in Redis: %(data)r", {"data": data})
            return
        for listener in self._listeners:
            listener(origin, int(ms) / 1000)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _spider_opened(self, spider: Any = None) -> None:
        if self._listeners and self._reader is None:
            self._reader = asyncio.ensure_future(self._read_pauses())

    async def _spider_closed(self, spider: Any = None) -> None:
        self._closed = True
        if self._reader is not None:
            await stop_reading(self._reader)
            self._reader = None
