"""Crawl-delay applied to Scrapy's download slots (``ROBOTS_POLICY_CRAWL_DELAY``).

Scrapy's slots are per host (not per origin), so the largest delay of the host's origins
wins. The delay is not randomised (that would shorten some gaps below the Crawl-delay)
and never exceeds ``ROBOTS_POLICY_MAX_CRAWL_DELAY``: "Crawl-delay: 1e308" would stall the
host, and its requests in the scheduler, for the rest of the crawl. This is the path of
one process; with ``ROBOTS_POLICY_REDIS_URL``, the processes share each origin's delay
instead (:mod:`.sharedelay`).
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

from scrapy.core.downloader import Downloader, Slot

from scrapy_robots_policy.origin import Origin
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

logger = logging.getLogger(__name__)

#: How to say "no random variation of the delay" to a download slot: Scrapy 2.13 knows
#: ``randomize_delay``, later versions ``jitter`` (and deprecate the former).
_NO_JITTER: tuple[str, Any] = (("jitter", 0.0) if hasattr(Slot, "jitter")
                               else ("randomize_delay", False))


class CrawlDelay:
    """Slows the download slot of each allowed request down to its origin's Crawl-delay."""

    def __init__(self, crawler: Crawler, settings: RobotsPolicySettings) -> None:
        self._crawler = crawler
        self._max = settings.max_crawl_delay
        self._capped: set[Origin] = set()  # origins whose cap was logged

    def seconds(self, origin: Origin, rules: RobotsTxt, user_agent: str) -> float:
        """The Crawl-delay of ``rules`` for ``user_agent``, capped; 0 for none."""
        delay = rules.crawl_delay(user_agent)
        if not delay or not 0 < delay < math.inf:  # also false for NaN
            return 0.0
        if delay > self._max:
            if origin not in self._capped:
                self._capped.add(origin)
                logger.warning("Crawl-delay of %(delay)s s in the robots.txt of %(origin)s "
                               "capped to %(cap)s s (ROBOTS_POLICY_MAX_CRAWL_DELAY)",
                               {"delay": delay, "origin": origin, "cap": self._max},
                               extra={"spider": self._crawler.spider})
            return max(self._max, 0.0)
        return delay

    def apply(self, origin: Origin, rules: RobotsTxt, user_agent: str, request: Request
              ) -> None:
        """Give the slot of ``request`` the Crawl-delay of ``rules``, if it is longer."""
        delay = self.seconds(origin, rules, user_agent)
        downloader = downloader_of(self._crawler)
        if not delay or downloader is None:
            return
        key = downloader.get_slot_key(request)
        slot_settings = downloader.per_slot_settings.setdefault(key, {})
        if slot_settings.get("delay", 0) >= delay:
            return
        # Applied to the slot when Scrapy (re)creates it, and to the live slot now.
        slot_settings["delay"] = delay
        slot_settings[_NO_JITTER[0]] = _NO_JITTER[1]
        slot = downloader.slots.get(key)
        if slot is not None and slot.delay < delay:
            slot.delay = delay
            setattr(slot, *_NO_JITTER)
        logger.info("Crawl-delay of %(delay)s s applied to download slot %(key)r",
                    {"delay": delay, "key": key}, extra={"spider": self._crawler.spider})


def downloader_of(crawler: Crawler) -> Downloader | None:
    """The crawl's real downloader; ``None`` for a stand-in (a MagicMock crawler in a
    user's unit tests), which has no slot to slow down."""
    downloader = getattr(crawler.engine, "downloader", None)
    # type(), not isinstance(): a mock with spec=Downloader passes isinstance().
    if not issubclass(type(downloader), Downloader):
        return None
    return downloader
