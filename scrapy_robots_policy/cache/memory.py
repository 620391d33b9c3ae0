"""Robots.txt answers in memory, bounded, least recently used evicted.

A broad crawl meets an unbounded number of origins; keeping every answer forever would
grow without limit, so the cache holds at most ``max_origins`` entries and forgets the one
unused for longest (it is simply fetched again if its origin comes back).

:class:`MemoryCache` is the middleware's default backend (one cache per process);
:mod:`.redis` shares answers between processes on top of it (``ROBOTS_POLICY_REDIS_URL``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

from scrapy_robots_policy.fetch.origin import Origin
from scrapy_robots_policy.fetch.policy import CachedAnswer

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """A mapping of at most ``max_size`` items; reading or writing an item makes it recent.

    >>> cache = LRUCache(2); cache.put("a", 1); cache.put("b", 2); cache.get("a")
    1
    >>> cache.put("c", 3); list(cache)
    ['a', 'c']
    """

    def __init__(self, max_size: int) -> None:
        if max_size < 1:
            raise ValueError(f"an LRU cache needs room for at least one item, not {max_size}")
        self.max_size = max_size
        self.evictions = 0
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.max_size:
            self._items.popitem(last=False)
            self.evictions += 1

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[K]:
        """Keys from least to most recently used (does not change the order)."""
        return iter(self._items)


class MemoryCache(LRUCache[Origin, CachedAnswer]):
    """The answers of one process: the default backend of the downloader middleware.

    The middleware decides from :meth:`get` alone while an answer is fresh (no I/O on that
    path), and calls :meth:`claim` before fetching, then :meth:`put` with the outcome.
    """

    async def claim(self, origin: Origin) -> CachedAnswer | None:
        """An answer to use instead of fetching (another process fetched it), or ``None``:
        this process fetches. In memory nobody else fetches."""
        return None
