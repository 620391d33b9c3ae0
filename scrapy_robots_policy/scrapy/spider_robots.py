"""A spider's own requests for an origin's robots.txt (or tdmrep.json), answered from the
plugin's fetch of it.

The downloader middleware fetches every origin's robots.txt anyway, and the usage gate its
tdmrep.json when a declared purpose needs it; a spider that asks for the file too (a
``SitemapSpider`` whose ``sitemap_urls`` name robots.txt) gets that fetch's answer, in
flight or cached, instead of a second download: one fetch per origin, whoever asks first,
and the rules obeyed are the same either way.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from scrapy.http import TextResponse

from scrapy_robots_policy.fetch.document import ROBOTS_TXT, Document
from scrapy_robots_policy.fetch.policy import CLOSING
from scrapy_robots_policy.fetch.verdict import CHECK_ONLY_META
from scrapy_robots_policy.usage.policy import CHECK_PURPOSES_META

if TYPE_CHECKING:
    from urllib.parse import ParseResult

    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from scrapy_robots_policy.fetch.origin import Origin
    from scrapy_robots_policy.fetch.policy import CachedAnswer
    from scrapy_robots_policy.scrapy.refusals import Refusals
    from scrapy_robots_policy.scrapy.rounds import FetchRounds

# The downloader middleware's own logger name, which log filters already use.
logger = logging.getLogger("scrapy_robots_policy.downloader")

#: The flags of an answered response: ``cached`` as Scrapy's HTTP cache marks a response
#: that was not downloaded for its request (the HTTP cache then does not store it), and
#: ``robots_policy`` for whose copy it is.
ANSWERED_FLAGS = ("cached", "robots_policy")


def answerable(request: Request, parsed: ParseResult, document: Document = ROBOTS_TXT
               ) -> bool:
    """Whether ``request`` (whose URL is ``parsed``) GETs its origin's ``document``, which
    the plugin fetches itself. Not a ``scrapy check`` contract's request: its contract
    reads the middleware's decision, as for any page. The path is compared first, the
    cheap miss of every page."""
    if parsed.path != document.path or parsed.query or parsed.params:
        return False
    meta = request.meta
    return (request.method == "GET" and CHECK_ONLY_META not in meta
            and CHECK_PURPOSES_META not in meta)


class SpiderRobotsRequests:
    """Answers, counts and logs a spider's requests for ``document`` (robots.txt, or
    tdmrep.json) from the plugin's entries of it, fetched by ``rounds``."""

    def __init__(self, crawler: Crawler, rounds: FetchRounds, refusals: Refusals,
                 document: Document = ROBOTS_TXT) -> None:
        self._crawler = crawler
        self._stats = crawler.stats
        self._rounds = rounds
        self._refusals = refusals
        self._document = document

    def respond(self, origin: Origin, entry: CachedAnswer | None, request: Request
                ) -> Response | Coroutine[Any, Any, Response | None] | None:
        """The answer to ``request`` from ``entry``, the rounds' deciding entry; with none
        yet, once the fetch in flight (joined, or started) settles."""
        if entry is None:
            return self._answer_when_fetched(origin, request)
        return self._answer(origin, entry, request)

    async def _answer_when_fetched(self, origin: Origin, request: Request) -> Response | None:
        entry = await self._rounds.entry(origin, request, handed=True)
        if entry.summary == CLOSING:  # refused, as every request still waiting
            self._refusals.closing(origin, request, self._document)
        return self._answer(origin, entry, request)

    def _answer(self, origin: Origin, entry: CachedAnswer, request: Request
               ) -> TextResponse | None:
        """The response ``entry`` gives ``request``: the status of the fetch's last answer
        (after its redirects) with its body as kept (2xx only, at most the size cap), at
        the URL asked for; ``None`` (download it) when the fetch got no HTTP answer."""
        extra = {"spider": self._crawler.spider}
        prefix = self._document.stats
        if entry.status is None:  # a network error, another middleware's refusal
            self._stats.inc_value(f"{prefix}/spider_requests_downloaded")
            logger.debug("Downloading %(request)s: the %(file)s of %(origin)s got no HTTP "
                         "answer to pass on (%(why)s)",
                         {"request": request, "file": self._document.name, "origin": origin,
                          "why": entry.summary}, extra=extra)
            return None
        self._stats.inc_value(f"{prefix}/spider_requests_answered")
        logger.debug("Answered %(request)s from the plugin's fetch of it (%(why)s)",
                     {"request": request, "why": entry.summary}, extra=extra)
        return TextResponse(request.url, status=entry.status, body=entry.body or b"",
                            encoding="utf-8", request=request, flags=list(ANSWERED_FLAGS))
