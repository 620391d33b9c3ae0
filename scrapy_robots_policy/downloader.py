"""The old home of the downloader middleware, kept for the settings that name it
(``scrapy_robots_policy.downloader.RobotsPolicyDownloaderMiddleware``): it now lives in
:mod:`scrapy_robots_policy.scrapy.downloader`, with the rest of the Scrapy adapter."""

from scrapy_robots_policy.scrapy.downloader import RobotsPolicyDownloaderMiddleware

__all__ = ["RobotsPolicyDownloaderMiddleware"]
