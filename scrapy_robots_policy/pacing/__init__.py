"""When a request may reach an origin: its pace (Crawl-delay, a shared DOWNLOAD_DELAY) and
the pauses a site asks for (429 / 503, ``Retry-After``). Pure: no Scrapy, the clock is
injected; :mod:`scrapy_robots_policy.scrapy.pacing` applies it to Scrapy's download slots.
"""

from scrapy_robots_policy.pacing.pace import CrawlDelay, Pacer, PaceSettings, Pause
from scrapy_robots_policy.pacing.retry_after import RetryAfter, read_retry_after

__all__ = ["CrawlDelay", "PaceSettings", "Pacer", "Pause", "RetryAfter", "read_retry_after"]
