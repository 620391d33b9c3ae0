"""Which parts of Redis failed lately, so that only what they serve falls back.

A single server is one part; a Redis Cluster has one per hash slot, so a dead master
takes only its slots' origins back to per-process fetching and delays. One WARNING per
outage (from the first failure until every part answers again), and one stat per
failed call.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

# The logger name it had before the move to scrapy/: users' log filters name it.
logger = logging.getLogger("scrapy_robots_policy.cache.outages")

#: After a Redis error, that part of Redis is left alone this long.
RECONNECT_AFTER = 10.0


class Outages:
    """Parts of Redis (by scope: 0, or a cluster's slot) that failed, and until when."""

    def __init__(self, crawler: Crawler, url: str, falls_back: str, shared: str) -> None:
        assert crawler.stats is not None  # a crawler has its stats before its components
        self._stats = crawler.stats
        self._crawler = crawler
        self._url = url  # already without its password
        self._falls_back = falls_back  # what each process does alone meanwhile
        self._shared = shared  # what is shared again once Redis answers
        self._down: dict[int, float] = {}  # scope: monotonic time to try again

    def down(self, scope: int) -> bool:
        """Whether ``scope`` failed less than :data:`RECONNECT_AFTER` ago."""
        until = self._down.get(scope)
        return until is not None and time.monotonic() < until

    def failed(self, scope: int, exc: BaseException) -> None:
        self._stats.inc_value("robotstxt/redis_errors")
        if not self._down:
            logger.warning("Redis at %(url)s unreachable (%(error)s): %(falls_back)s by this "
                           "process alone until Redis answers again",
                           {"url": self._url, "error": repr(exc),
                            "falls_back": self._falls_back},
                           extra={"spider": self._crawler.spider})
        self._down[scope] = time.monotonic() + RECONNECT_AFTER

    def reached(self, scope: int) -> None:
        if self._down.pop(scope, None) is not None and not self._down:
            logger.info("Redis at %(url)s reachable again: %(shared)s shared again",
                        {"url": self._url, "shared": self._shared},
                        extra={"spider": self._crawler.spider})

