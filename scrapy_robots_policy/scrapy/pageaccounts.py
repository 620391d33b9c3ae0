"""How the spider middleware accounts for pages: what each response's directives and
usage signals held, and every item or link it drops, counted and told in one log line.
The spider side's counterpart of :mod:`.refusals`, so that every drop is accounted for the
same way.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy_robots_policy.fetch.origin import origin_of
from scrapy_robots_policy.scrapy.ignoredlabels import IgnoredLabels

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from scrapy_robots_policy.page.policy import Page, Reason

# The spider middleware's own logger name, which log filters already use.
logger = logging.getLogger("scrapy_robots_policy.spider")


class PageAccounts:
    """Counts and logs what the pages of one crawl held, and what was dropped from them."""

    def __init__(self, crawler: Crawler) -> None:
        self._crawler = crawler
        self._stats = crawler.stats
        self._ignored = IgnoredLabels(crawler, logger)

    def read(self, response: Response, page: Page) -> None:
        """Count a page read: its noindex or nofollow, and whatever in it was unusable."""
        stats, url, extra = self._stats, response.url, {"spider": self._crawler.spider}
        stats.inc_value("robots_policy/response_count")
        if page.noindex is not None:
            stats.inc_value("robots_policy/responses/noindex")
        if page.nofollow is not None:
            stats.inc_value("robots_policy/responses/nofollow")
        directives = page.directives
        for problem in directives.problems:
            stats.inc_value("robots_policy/invalid_directives")
            logger.debug("%(problem)s on %(url)s", {"problem": problem, "url": url}, extra=extra)
        for problem in page.usage.problems if page.usage else ():
            stats.inc_value("robots_policy/usage/invalid_signals")
            logger.debug("Usage signal of %(url)s ignored: %(problem)s",
                         {"url": url, "problem": problem}, extra=extra)
        for lenient in directives.lenient:
            stats.inc_value("robots_policy/robots_tag_lenient")
            logger.debug("%(lenient)s, on %(url)s", {"lenient": lenient, "url": url},
                         extra=extra)
        if page.usage and page.usage.ignored:
            self._ignored.report(origin_of(url) or url, page.usage.ignored)
        if directives.cut:  # one line per response, however much was cut
            stats.inc_value("robots_policy/values_cut", len(directives.cut))
            logger.debug("Robots directives of %(url)s read in part: %(cut)s",
                         {"url": url, "cut": "; ".join(directives.cut)}, extra=extra)
        for error in directives.errors:
            stats.inc_value("robots_policy/parse_errors")
            logger.warning("Robots directives of %(url)s: %(error)s",
                           {"url": url, "error": error}, extra=extra)

    def unreadable_links(self, response: Response) -> None:
        """The links of a nofollow page could not be read (its HTML did not parse)."""
        self._stats.inc_value("robots_policy/parse_errors")
        logger.warning("Could not read the links of %(url)s",
                       {"url": response.url}, extra={"spider": self._crawler.spider})

    def dropped(self, what: str, reason: Reason, response: Response, message: str,
                request: Request | None = None) -> None:
        """Count ``what`` (``items_dropped``, ``requests_dropped``...) for ``reason``."""
        self._stats.inc_value(f"robots_policy/{what}")
        self._stats.inc_value(f"robots_policy/{what}/{reason.name}")
        logger.debug(message, {"url": response.url, "why": reason.text, "request": request},
                     extra={"spider": self._crawler.spider})
