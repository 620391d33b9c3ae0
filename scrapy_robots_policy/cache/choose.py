"""The one place where the settings choose the robots.txt cache backend, and with it
where Crawl-delay is kept (one process's slots, or the cluster's turns)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy_robots_policy.cache import RobotsCache
from scrapy_robots_policy.cache.memory import MemoryCache
from scrapy_robots_policy.crawldelay import CrawlDelay
from scrapy_robots_policy.fetch.policy import Policy
from scrapy_robots_policy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_robots_policy.sharedelay import SharedDelay

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


def make_crawl_delay(crawler: Crawler, settings: RobotsPolicySettings, cache: RobotsCache,
                     ) -> CrawlDelay | SharedDelay | None:
    """Per process on Scrapy's slots; for the whole cluster when the cache is shared."""
    shared = settings.crawl_delay or (settings.shared_download_delay
                                      and settings.download_delay > 0)
    # Only a cache shared through Redis means the optional redis package is installed.
    if shared and type(cache) is not MemoryCache:
        from scrapy_robots_policy.cache.redis import RedisCache
        from scrapy_robots_policy.sharedelay import SharedDelay

        assert isinstance(cache, RedisCache)  # the only other backend of make_cache
        return SharedDelay(crawler, settings, cache)
    return CrawlDelay(crawler, settings) if settings.crawl_delay else None
