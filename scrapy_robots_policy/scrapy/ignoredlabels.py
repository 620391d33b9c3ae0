"""Labels that sites' usage statements used and this crawl did not read (``ai=n``,
``train-genai=n``, ``use=reference``): what a site said and was not obeyed is never
silent. Each is told once per origin at INFO, with the line or header that held it and
what an earlier revision meant by it, and counted. The usage gate reports those of
robots.txt, the spider middleware those of the pages' Content-Usage headers; what either
told is told once for the crawl (kept in its ``CrawlState``), from whichever saw it first."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from scrapy_robots_policy.cache.memory import LRUCache
from scrapy_robots_policy.scrapy.crawlstate import crawl_state

if TYPE_CHECKING:
    import logging

    from scrapy.crawler import Crawler

    from scrapy_robots_policy.usage.reading import IgnoredLabel

#: (origin, label) pairs remembered as told; a broad crawl meets more origins than this.
_TOLD_MAX = 4096


class IgnoredLabels:
    """Tells and counts each ignored label once per origin."""

    def __init__(self, crawler: Crawler, logger: logging.Logger) -> None:
        self._crawler = crawler
        self._stats = crawler.stats
        self._logger = logger
        state = crawl_state(crawler)
        if state.told_labels is None:
            state.told_labels = LRUCache[tuple[str, str], bool](_TOLD_MAX)
        self._told: LRUCache[tuple[str, str], bool] = state.told_labels

    def report(self, origin: object, ignored: Iterable[IgnoredLabel]) -> None:
        for label in ignored:
            told = (str(origin), label.label)
            if told in self._told:
                continue
            self._told.put(told, True)
            self._stats.inc_value("robots_policy/usage/ignored_labels")
            self._stats.inc_value(f"robots_policy/usage/ignored_labels/{label.stat_name}")
            self._logger.info("Usage label %(label)r of %(origin)s ignored (%(evidence)s): "
                              "%(why)s", {"label": label.label, "origin": origin,
                                          "evidence": label.evidence, "why": label.why},
                              extra={"spider": self._crawler.spider})
