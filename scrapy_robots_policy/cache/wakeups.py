"""Waking the processes that wait for another's robots.txt fetch, instead of polling.

Each process keeps one subscription to the store's channel, opened the first time it
waits; the write script publishes the origin it wrote (``RedisStore.announced``: with the
document's name when it is not robots.txt). A waiter registers, makes sure
the subscription is live, and only then asks Redis again, so no write can fall between
its look and its wait. A lost subscription wakes every waiter (they look again) and is
opened anew by the next wait; when it cannot be, waiters poll as they did before.
Closed, it subscribes no more.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

from scrapy_robots_policy.cache.redis_store import (
    ERRORS,
    SOCKET_TIMEOUT,
    RedisStore,
    stop_reading,
)
from scrapy_robots_policy.fetch.origin import Origin


class Wakeups:
    """One subscription per process; the futures of the waiters, by origin."""

    def __init__(self, store: RedisStore) -> None:
        self._store = store
        self._waiting: dict[str, set[asyncio.Future[None]]] = {}
        self._ready: asyncio.Future[bool] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    @contextlib.contextmanager
    def watch(self, origin: Origin) -> Iterator[asyncio.Future[None]]:
        """A future done when ``origin``'s answer is written (or the subscription lost)."""
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        announced = self._store.announced(origin)
        waiting = self._waiting.setdefault(announced, set())
        waiting.add(woken)
        try:
            yield woken
        finally:
            waiting.discard(woken)
            if not waiting:
                self._waiting.pop(announced, None)

    async def listening(self) -> bool:
        """Whether writes reach this process now (subscribing if it does not yet)."""
        if self._closed:
            return False
        if self._reader is None:
            self._ready = asyncio.get_running_loop().create_future()
            self._reader = asyncio.ensure_future(self._read(self._ready))
        ready = self._ready
        assert ready is not None
        # asyncio.wait, not wait_for: a cancellation of the waiting claim is never lost.
        done, _ = await asyncio.wait([ready], timeout=2 * SOCKET_TIMEOUT)
        return bool(done) and ready.result()

    async def _read(self, ready: asyncio.Future[bool]) -> None:
        try:
            async with self._store.subscription(self._store.channel) as pubsub:
                while not self._closed:
                    message = await pubsub.get_message(timeout=SOCKET_TIMEOUT)
                    if message is None:
                        continue
                    if message["type"] == "subscribe" and not ready.done():
                        ready.set_result(True)
                    elif message["type"] == "message":
                        self._wake(self._waiting.get(message["data"].decode(), ()))
        except ERRORS:
            pass  # the next wait subscribes again
        finally:
            if not ready.done():
                ready.set_result(False)
            self._reader = None
            for waiting in list(self._waiting.values()):
                self._wake(waiting)

    @staticmethod
    def _wake(futures: Any) -> None:
        for woken in list(futures):
            if not woken.done():
                woken.set_result(None)

    async def close(self) -> None:
        self._closed = True
        if self._reader is not None:
            await stop_reading(self._reader)
