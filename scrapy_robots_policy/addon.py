"""The old home of the add-on, kept for the settings that name it
(``ADDONS = {"scrapy_robots_policy.addon.Addon": 0}``): it now lives in
:mod:`scrapy_robots_policy.scrapy.addon`, with the rest of the Scrapy adapter."""

from scrapy_robots_policy.scrapy.addon import Addon

__all__ = ["Addon"]
