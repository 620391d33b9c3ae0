"""The one place where the settings choose the robots.txt cache backend."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy_robots_policy.cache import RobotsCache
from scrapy_robots_policy.cache.memory import MemoryCache
from scrapy_robots_policy.fetch.policy import Policy
from scrapy_robots_policy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


def make_cache(crawler: Crawler, settings: RobotsPolicySettings, policy: Policy) -> RobotsCache:
    """In memory, or shared through Redis when ``ROBOTS_POLICY_REDIS_URL`` is set."""
    if not settings.redis_url:
        return MemoryCache(settings.max_origins)
    try:
        from scrapy_robots_policy.cache.redis import RedisCache

        return RedisCache(settings, crawler, policy)
    except Exception as exc:
        # A misconfiguration (no redis package, a malformed URL, no asyncio reactor) must
        # not stop the crawl nor make it obey less: each process fetches for itself.
        if crawler.stats is not None:
            crawler.stats.inc_value("robotstxt/redis_errors")
        logger.error("ROBOTS_POLICY_REDIS_URL is set but robots.txt cannot be shared "
                     "(%(error)s): each process fetches its own", {"error": exc})
        return MemoryCache(settings.max_origins)

