"""Obey robots.txt and page-level robots directives in Scrapy, as Google and RFC 9309 define them.

The robots.txt engine and the directive parser import without Scrapy; the Scrapy
components are loaded on first use, so ``from scrapy_robots_policy import RobotsTxt``
stays cheap and dependency-free.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: The one place the version is written: setup.cfg reads it (``attr:``).
__version__ = "0.1.0"

__all__ = [
    "Addon",
    "RobotParser",
    "RobotsDirectives",
    "RobotsPolicyDownloaderMiddleware",
    "RobotsPolicySpiderMiddleware",
    "RobotsTxt",
    "fetch_sitemap_urls",
    "sitemap_urls",
]

_HOMES = {
    "RobotsTxt": "robotstxt",
    "RobotsDirectives": "directives",
    "RobotsPolicyDownloaderMiddleware": "scrapy.downloader",
    "RobotsPolicySpiderMiddleware": "scrapy.spider",
    "Addon": "scrapy.addon",
    "RobotParser": "scrapy.robotparser",  # for ROBOTSTXT_PARSER, with Scrapy's middleware
    "sitemap_urls": "scrapy.sitemaps",  # an origin's Sitemap URLs, from the plugin's copy
    "fetch_sitemap_urls": "scrapy.sitemaps",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
