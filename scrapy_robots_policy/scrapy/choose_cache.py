"""The one place where the settings choose the cache backend of robots.txt (and of
tdmrep.json, whose cache is chosen the same way for its own document)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy_robots_policy.cache import RobotsCache
from scrapy_robots_policy.cache.memory import MemoryCache
from scrapy_robots_policy.fetch.policy import Policy
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

# The logger name it had before the move to scrapy/: users' log filters name it.
logger = logging.getLogger("scrapy_robots_policy.cache.choose")


def make_cache(crawler: Crawler, settings: RobotsPolicySettings, policy: Policy) -> RobotsCache:
    """In memory, or shared through Redis when ``ROBOTS_POLICY_REDIS_URL`` is set."""
    if not settings.redis_url:
        return MemoryCache(settings.max_origins)
    try:
        from scrapy_robots_policy.scrapy.redis_cache import RedisCache

        return RedisCache(settings, crawler, policy)
    except Exception as exc:
        # A misconfiguration (no redis package, a malformed URL, no asyncio reactor) must
        # not stop the crawl nor make it obey less: each process fetches for itself.
        if crawler.stats is not None:
            crawler.stats.inc_value("robotstxt/redis_errors")
        logger.error("ROBOTS_POLICY_REDIS_URL is set but %(document)s cannot be shared "
                     "(%(error)s%(hint)s): each process fetches its own",
                     {"error": exc, "hint": _hint(exc), "document": policy.document.name})
        return MemoryCache(settings.max_origins)


def _hint(exc: Exception) -> str:
    """What to do about ``exc``, when it is the missing ``redis`` package (an optional
    dependency: "No module named 'redis'" alone does not say which extra brings it)."""
    missing = exc.name if isinstance(exc, ImportError) else None
    if missing and missing.partition(".")[0] == "redis":
        return '; install the redis extra: pip install "scrapy_robots_policy[redis]"'
    return ""

