"""How the downloader middleware refuses a request: counted, explained in one DEBUG line
naming what decided, then ``IgnoreRequest`` with the same reason. One place for both kinds
of refusal, robots.txt's and the usage signals', so that every refusal is accounted for
the same way.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, NoReturn

from scrapy.exceptions import IgnoreRequest

from scrapy_robots_policy.fetch.document import ROBOTS_TXT, Document
from scrapy_robots_policy.fetch.origin import robots_url
from scrapy_robots_policy.fetch.policy import CLOSING

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

    from scrapy_robots_policy.fetch.origin import Origin
    from scrapy_robots_policy.page.request import RequestDecision

# The downloader middleware's own logger name, which log filters already use.
logger = logging.getLogger("scrapy_robots_policy.downloader")


class Refusals:
    """Counts, logs and raises the refusals of one crawl."""

    def __init__(self, crawler: Crawler, also_obey: tuple[str, ...] = ()) -> None:
        self._crawler = crawler
        self._stats = crawler.stats
        self._also_obey = also_obey

    def robots(self, decision: RequestDecision, request: Request) -> NoReturn:
        """Refuse ``request`` as robots.txt decided (``decision``'s verdict, read, never
        decided again)."""
        origin, entry, verdict = decision.origin, decision.entry, decision.verdict
        self._stats.inc_value("robotstxt/forbidden")
        extra = {"spider": self._crawler.spider}
        if entry.unreachable:
            self._stats.inc_value("robotstxt/forbidden/closing" if entry.summary == CLOSING
                                  else "robotstxt/forbidden/unreachable")
            logger.debug("Forbidden by robots.txt: %(request)s (robots.txt of %(origin)s "
                         "unreachable: %(why)s)",
                         {"request": request, "origin": origin, "why": entry.summary},
                         extra=extra)
        else:
            self._stats.inc_value("robotstxt/forbidden/rule")
            if verdict.user_agent in self._also_obey:
                self._stats.inc_value(f"robots_policy/also_obey/forbidden/{verdict.user_agent}")
            logger.debug("Forbidden by robots.txt: %(request)s (%(origin)s/robots.txt line "
                         "%(line)s%(rule)s, user agent %(agent)r)",
                         {"request": request, "origin": origin, "line": verdict.line,
                          "rule": f": {verdict.rule}" if verdict.rule else "",
                          "agent": verdict.user_agent}, extra=extra)
        raise IgnoreRequest(f"Forbidden by robots.txt: {verdict.reason}")

    def closing(self, origin: Origin, request: Request, document: Document = ROBOTS_TXT
                ) -> NoReturn:
        """Refuse a request that no rule could refuse (a spider's request for ``document``
        itself) but that still waited for the plugin's fetch of it when the crawl began
        closing, for a closing crawl sends no more requests. For robots.txt it is counted
        and logged as the other requests waiting then; for another file, beside the
        spider's other requests for it (``.../spider_requests_refused``)."""
        extra = {"spider": self._crawler.spider}
        if document is ROBOTS_TXT:
            self._stats.inc_value("robotstxt/forbidden")
            self._stats.inc_value("robotstxt/forbidden/closing")
            logger.debug("Forbidden by robots.txt: %(request)s (robots.txt of %(origin)s "
                         "unreachable: %(why)s)", {"request": request, "origin": origin,
                                                   "why": CLOSING}, extra=extra)
            raise IgnoreRequest(f"Forbidden by robots.txt: {robots_url(origin)} unreachable "
                                f"({CLOSING})")
        self._stats.inc_value(f"{document.stats}/spider_requests_refused")
        logger.debug("Refused %(request)s: the %(file)s of %(origin)s was still being "
                     "fetched (%(why)s)", {"request": request, "file": document.name,
                                           "origin": origin, "why": CLOSING}, extra=extra)
        raise IgnoreRequest(f"Refused: the {document.name} of {origin} was still being "
                            f"fetched ({CLOSING})")

    def usage(self, decision: RequestDecision, request: Request, enforce: bool) -> None:
        """Refuse ``request`` for the purpose its origin's signals refuse (``decision``'s
        usage reading has a refusal); with ``enforce`` False (``ROBOTS_POLICY_USAGE =
        "record"``, ``scrapy check``) only count and log it."""
        refusal = decision.usage.refusal if decision.usage is not None else None
        assert refusal is not None, "only a refused purpose is refused"
        what = "requests_refused" if enforce else "requests_refused_recorded"
        source = refusal.signal.source if refusal.signal is not None else "unknown"
        self._stats.inc_value(f"robots_policy/usage/{what}")
        self._stats.inc_value(f"robots_policy/usage/{what}/{source}/{refusal.purpose}")
        logger.debug("%(what)s by usage signals: %(request)s (%(reason)s)",
                     {"what": "Refused" if enforce else "Recorded, not refused",
                      "request": request, "reason": refusal.reason},
                     extra={"spider": self._crawler.spider})
        if enforce:
            raise IgnoreRequest(f"Refused by usage signals: {refusal.reason}")
