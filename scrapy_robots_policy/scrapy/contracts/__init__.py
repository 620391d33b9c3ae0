"""``scrapy check`` contracts, registered by the add-on: what robots rules and usage
signals say about a spider's sample pages (``@robotstxt``, ``@meta_robots``,
``@usage_allowed``, ``@usage_refused``)."""

from scrapy_robots_policy.scrapy.contracts.robots import MetaRobotsContract, RobotsTxtContract
from scrapy_robots_policy.scrapy.contracts.usage import UsageAllowedContract, UsageRefusedContract

__all__ = ["MetaRobotsContract", "RobotsTxtContract", "UsageAllowedContract",
           "UsageRefusedContract"]
