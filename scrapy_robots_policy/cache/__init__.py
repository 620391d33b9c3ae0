"""Where robots.txt answers live: one small protocol, two backends.

- :mod:`.memory`: one process's answers, bounded (the default);
- :mod:`.redis`: the same, shared between processes through Redis;
- :mod:`.choose`: the one place where the settings pick a backend.

The downloader middleware decides from :meth:`RobotsCache.get` alone while an answer is
fresh (no I/O on that path), calls :meth:`RobotsCache.claim` before fetching (another
process may have the answer, or be fetching it), then :meth:`RobotsCache.put`.
"""

from __future__ import annotations

from typing import Protocol

from scrapy_robots_policy.fetch.policy import Entry
from scrapy_robots_policy.origin import Origin


class RobotsCache(Protocol):
    """What the downloader middleware needs of a backend."""

    @property
    def evictions(self) -> int:
        """Entries forgotten to stay within the bound (a stat)."""

    def get(self, key: Origin) -> Entry | None:
        """This process's copy of an origin's answer, fresh or not."""

    def put(self, key: Origin, value: Entry) -> None:
        """Keep an answer (and share it, where the backend shares)."""

    async def claim(self, origin: Origin) -> Entry | None:
        """An answer to use instead of fetching, or ``None``: this process fetches."""

    def __len__(self) -> int:
        """Origins kept (a stat)."""
