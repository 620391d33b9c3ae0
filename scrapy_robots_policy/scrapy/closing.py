"""Whether the crawl is closing, and waits that end when it does.

Closing refuses the requests still waiting for a robots.txt, so it is decided from
evidence only: the ``spider_closed`` signal, or Scrapy's own engine saying so. Scrapy
has no public signal or API for "closing has started", so the engine's private slot is
read (:func:`.internals.engine_closing`, where the reason is told), and only on a real
engine: a stand-in (a ``MagicMock`` crawler in a user's unit tests, where every
attribute is a truthy mock) is taken as running.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import CancelledError, Deferred

from scrapy_robots_policy.scrapy.internals import engine_closing

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: How often a wait checks whether the engine started closing, in seconds.
_POLL = 0.25


class CrawlClosing:
    """Watches one crawl for the evidence that it is closing."""

    def __init__(self, crawler: Crawler) -> None:
        self._crawler = crawler
        self._closed = False
        self._sleeps: set[Deferred[Any]] = set()
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    def started(self) -> bool:
        """Whether the crawl is closing (CLOSESPIDER_*, Ctrl-C, an idle spider, an error)."""
        if self._closed:
            return True
        return engine_closing(self._crawler.engine)

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less if the crawl closes meanwhile."""
        from twisted.internet import reactor
        from twisted.internet.task import deferLater

        clock: Any = reactor
        # In slices, so that a closing crawl does not wait out a retry schedule.
        end = clock.seconds() + seconds
        while not self.started():
            left = end - clock.seconds()
            if left <= 0:
                return
            sleep = deferLater(clock, min(left, _POLL), lambda: None)
            self._sleeps.add(sleep)
            try:
                await maybe_deferred_to_future(sleep)
            except CancelledError:
                return
            finally:
                self._sleeps.discard(sleep)

    def _spider_closed(self, spider: Any) -> None:
        self._closed = True
        for sleep in list(self._sleeps):
            sleep.cancel()
