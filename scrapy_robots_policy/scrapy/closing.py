"""Whether the crawl is closing, and waits that end when it does.

Closing refuses the requests still waiting for a robots.txt, so it is decided from
evidence only: the ``spider_closed`` signal, or Scrapy's own engine saying so. Scrapy
has no public signal or API for "closing has started" (``close_spider`` sends
``spider_closed`` only once every request in progress, those waiting for a robots.txt
among them, is done; ``engine.running`` stays true meanwhile), so the engine's private
slot is read, and only on a real engine whose slot has the real types: never on a
stand-in (a ``MagicMock`` crawler in a user's unit tests, where every attribute is a
truthy mock), which is taken as running.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.core import engine as _engine
from scrapy.core.engine import ExecutionEngine
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import CancelledError, Deferred

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: How often a wait checks whether the engine started closing, in seconds.
_POLL = 0.25
#: The class of the engine's private slot (Scrapy 2.13 to 2.19).
_ENGINE_SLOT: type | None = getattr(_engine, "_Slot", None)
_UNKNOWN = object()


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
        engine = self._crawler.engine
        # type(), not isinstance(): a mock with spec=ExecutionEngine passes isinstance().
        if not issubclass(type(engine), ExecutionEngine):
            return False
        # Scrapy 2.13 to 2.19; an engine without it (a future Scrapy) is taken as running:
        # spider_closed still ends the waiting, where "closing" would refuse every request.
        slot = getattr(engine, "_slot", _UNKNOWN)
        if slot is None:  # the spider is not open (any more)
            return True
        if _ENGINE_SLOT is None or type(slot) is not _ENGINE_SLOT:
            return False
        return issubclass(type(getattr(slot, "closing", None)), Deferred)

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
