"""The old home of the spider middleware, kept for the settings that name it
(``scrapy_robots_policy.spider.RobotsPolicySpiderMiddleware``): it now lives in
:mod:`scrapy_robots_policy.scrapy.spider`, with the rest of the Scrapy adapter."""

from scrapy_robots_policy.scrapy.spider import META_KEY, RobotsPolicySpiderMiddleware

__all__ = ["META_KEY", "RobotsPolicySpiderMiddleware"]
