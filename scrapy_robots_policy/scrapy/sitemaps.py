"""The Sitemap URLs of an origin's robots.txt, for spider code, from the plugin's own copy.

The downloader middleware fetches each origin's robots.txt once; a spider that wants the
``Sitemap:`` lines it lists reads them here instead of requesting the file again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import Request
from scrapy.http.request import NO_CALLBACK

from scrapy_robots_policy.fetch.origin import origin_of, robots_url
from scrapy_robots_policy.scrapy.crawlstate import crawl_state

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_robots_policy.fetch.policy import CachedAnswer


def sitemap_urls(crawler: Crawler, url: str) -> list[str] | None:
    """The Sitemap URLs of the robots.txt governing ``url`` (any URL of the origin), as
    cached now, in file order; ``None`` when it is not known: not fetched yet, unreachable,
    or robots.txt not obeyed (``ROBOTSTXT_OBEY`` off). No request, no wait.

    >>> sitemap_urls(self.crawler, response.url)  # doctest: +SKIP
    ['https://example.com/sitemap.xml']
    """
    middleware = crawl_state(crawler).robots_middleware
    origin = origin_of(url)
    if middleware is None or origin is None:
        return None
    return _sitemaps(middleware.known_entry(origin))


async def fetch_sitemap_urls(crawler: Crawler, url: str) -> list[str] | None:
    """As :func:`sitemap_urls`, but an origin not known yet has its robots.txt fetched
    first (or joins the fetch in flight), the one fetch its requests would wait for.
    ``None`` when it stays unknown (unreachable) or robots.txt is not obeyed.

    >>> await fetch_sitemap_urls(self.crawler, "https://example.com")  # doctest: +SKIP
    ['https://example.com/sitemap.xml']
    """
    middleware = crawl_state(crawler).robots_middleware
    origin = origin_of(url)
    if middleware is None or origin is None:
        return None
    asking = Request(robots_url(origin), callback=NO_CALLBACK)  # for robots_parsed
    return _sitemaps(await middleware.robots_entry(origin, asking))


def _sitemaps(entry: CachedAnswer | None) -> list[str] | None:
    if entry is None or entry.unreachable:
        return None
    return list(entry.rules.sitemaps)
