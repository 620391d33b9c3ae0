"""The old home of the ``scrapy check`` contracts, kept for the ``SPIDER_CONTRACTS`` that
name them (``scrapy_robots_policy.contracts.RobotsTxtContract``, ...): they now live in
:mod:`scrapy_robots_policy.scrapy.contracts`, with the rest of the Scrapy adapter."""

from scrapy_robots_policy.scrapy.contracts import (
    MetaRobotsContract,
    RobotsTxtContract,
    UsageAllowedContract,
    UsageRefusedContract,
)

__all__ = ["MetaRobotsContract", "RobotsTxtContract", "UsageAllowedContract",
           "UsageRefusedContract"]
