"""Where robots.txt answers live: one small protocol, two backends. No Scrapy.

- :mod:`.memory`: one process's answers, bounded (the default);
- :mod:`.redis_store`: the keys and scripts that share answers through Redis, and
  :mod:`.wakeups`, the waiters woken when another process stored one.

The Scrapy side of the Redis backend (the crawl's signals, stats and logs) is
:mod:`scrapy_robots_policy.scrapy.redis_cache`; the one place where the settings pick a
backend is :mod:`scrapy_robots_policy.scrapy.choose_cache`.

The downloader middleware decides from :meth:`RobotsCache.get` alone while an answer is
fresh (no I/O on that path), calls :meth:`RobotsCache.claim` before fetching (another
process may have the answer, or be fetching it), then :meth:`RobotsCache.put`.
"""

from __future__ import annotations

from typing import Protocol

from scrapy_robots_policy.fetch.origin import Origin
from scrapy_robots_policy.fetch.policy import CachedAnswer


class RobotsCache(Protocol):
    """What the downloader middleware needs of a backend."""

    @property
    def evictions(self) -> int:
        """Entries forgotten to stay within the bound (a stat)."""

    def get(self, key: Origin) -> CachedAnswer | None:
        """This process's copy of an origin's answer, fresh or not."""

    def put(self, key: Origin, value: CachedAnswer) -> None:
        """Keep an answer (and share it, where the backend shares)."""

    async def claim(self, origin: Origin) -> CachedAnswer | None:
        """An answer to use instead of fetching, or ``None``: this process fetches."""

    def __len__(self) -> int:
        """Origins kept (a stat)."""
