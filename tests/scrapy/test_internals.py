"""What scrapy/internals.py reads of Scrapy's non-public state still holds, on the Scrapy
installed (CI runs the suite on the oldest and the newest supported: 2.13 and 2.19).

The behaviour built on it is tested by real crawls (closing: tests/scrapy/test_crawl_faults.py;
pacing: tests/scrapy/test_crawl_pacing.py); this says, when a Scrapy release changes a private
detail, which one.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
import scrapy
from scrapy import signals
from scrapy.contracts import ContractsManager
from scrapy.core.downloader import Slot
from scrapy.http import HtmlResponse
from twisted.internet.defer import Deferred

from scrapy_robots_policy.scrapy import internals
from tests.support import LocalServer, Reply, run_crawl


class Observing(scrapy.Spider):
    """Records, into its stats, what internals.py reads of a live crawl."""

    name = "observing"

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Observing:
        spider: Observing = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.on_closed, signal=signals.spider_closed)
        return spider

    def parse(self, response: Any) -> None:
        stats, engine = self.crawler.stats, self.crawler.engine
        stats.set_value("t/engine_slot_known", type(engine._slot) is internals.ENGINE_SLOT)
        stats.set_value("t/closing_while_running", internals.engine_closing(engine))
        stats.set_value("t/scraper_found", internals.scraper_of(self.crawler) is not None)
        new = scrapy.Request(response.urljoin("/never"))
        stats.set_value("t/new_seen", [internals.seen_by_scheduler(self.crawler, new)
                                       for _ in range(2)])
        downloader = internals.downloader_of(self.crawler)
        slot = internals.slot_of(downloader, response.request) if downloader else None
        stats.set_value("t/slot_found", type(slot) is Slot)
        if slot is None:
            return
        stats.set_value("t/slot_fields", all(
            hasattr(slot, name) for name in ("queue", "active", "concurrency", "lastseen")))
        stats.set_value("t/since_last_sent", internals.since_last_sent(slot))
        stats.set_value("t/can_send", internals.can_send(slot))
        stats.set_value("t/queued", internals.queued(slot))
        paced = internals.paced_slot_class(lambda _slot, own: own + 7.0)
        internals.adopt(slot, paced)
        stats.set_value("t/adopted", type(slot) is paced)
        stats.set_value("t/paced_delay", slot.download_delay())

    def on_closed(self, spider: Any) -> None:
        engine = self.crawler.engine
        slot = getattr(engine, "_slot", None)
        self.crawler.stats.set_value(
            "t/closing_deferred", isinstance(getattr(slot, "closing", None), Deferred))
        self.crawler.stats.set_value("t/closing_at_close", internals.engine_closing(engine))


def test_a_live_crawl_has_the_private_state_internals_reads() -> None:
    with LocalServer({"/": Reply(body="<html></html>")}) as s:
        r = run_crawl(Observing, {"DOWNLOAD_DELAY": 0}, start_urls=[s.url("/")])
    assert r.stat("t/engine_slot_known") is True, r.log
    assert r.stat("t/closing_while_running") is False
    assert r.stat("t/scraper_found") is True
    # The scheduler's duplicate filter: a new request was not seen, and asking records it.
    assert r.stat("t/new_seen") == [False, True]
    assert r.stat("t/slot_found") is True
    assert r.stat("t/slot_fields") is True
    # lastseen is read with Scrapy's own clock: the last send was a moment ago.
    assert 0 <= r.stat("t/since_last_sent") < 30
    assert r.stat("t/can_send") is True and r.stat("t/queued") == 0
    assert r.stat("t/adopted") is True and r.stat("t/paced_delay") == 7.0
    # Closing has started when spider_closed is sent: the slot's closing is a Deferred.
    assert r.stat("t/closing_deferred") is True
    assert r.stat("t/closing_at_close") is True


def test_the_contracts_table_is_kept_on_the_class() -> None:
    table = internals.contracts_table()
    assert table is not None and table is ContractsManager.contracts


def test_refused_queued_requests_fail_their_deferred() -> None:
    try:
        slot = Slot(1, 0.0)  # Scrapy 2.14+: randomize_delay is deprecated
    except TypeError:
        slot = Slot(1, 0.0, False)  # Scrapy 2.13: required
    request, deferred = scrapy.Request("http://e.com/"), Deferred()
    failures: list[Any] = []
    deferred.addErrback(failures.append)
    slot.queue.append((request, deferred))
    assert internals.first_queued(slot) is request and internals.queued(slot) == 1
    assert internals.refuse_queued(slot, ValueError("closing")) == [request]
    assert internals.queued(slot) == 0 and failures[0].check(ValueError)


def test_stand_ins_are_never_read() -> None:
    crawler = mock.MagicMock()
    assert internals.engine_closing(crawler.engine) is False
    assert internals.downloader_of(crawler) is None
    assert internals.scraper_of(crawler) is None
    assert internals.seen_by_scheduler(crawler, scrapy.Request("http://example.com/")) is False


# --- a response's HTML (SCRAPY_HTML, for the spider middleware) ---------------------------

MIDDLEWARE = "scrapy_robots_policy.scrapy.spider.RobotsPolicySpiderMiddleware"
NOARCHIVE = '<html><head><meta name="robots" content="noarchive"></head><body>x</body></html>'


@pytest.mark.parametrize("content_type", ["text/html; charset=utf-8", "text/html"])
def test_a_response_keeps_its_tree_and_text_where_scrapy_html_looks(content_type):
    # Without a charset in the header, Scrapy infers the encoding and keeps the text it
    # decoded for that: SCRAPY_HTML puts it back to "not decoded" too.
    response = HtmlResponse("http://e.com/", body=NOARCHIVE.encode(),
                            headers={"Content-Type": content_type})
    assert response._cached_selector is None and response._cached_ubody is None
    assert internals.SCRAPY_HTML.tree(response) is None
    assert internals.SCRAPY_HTML.text(response) == NOARCHIVE
    assert response._cached_ubody is None  # decoded for the middleware alone: not kept
    selector = response.selector
    assert response._cached_selector is selector
    assert internals.SCRAPY_HTML.tree(response) is selector
    kept = response._cached_ubody
    assert kept == NOARCHIVE
    assert internals.SCRAPY_HTML.text(response) is kept and response._cached_ubody is kept


class LeavesNothing(scrapy.Spider):
    """Reports whether the middleware left a tree or a decoded text on a page it read."""

    name = "leaves_nothing"

    def parse(self, response: Any) -> Any:
        yield {"noarchive": response.meta["robots_directives"].noarchive,
               "tree": response._cached_selector is not None,
               "text": response._cached_ubody is not None}


class TrimsRobotsTags:
    """A spider middleware before ours that parses the page and removes its robots tags
    from the tree: had ours parsed the page again, it would find them."""

    def process_spider_input(self, response: Any, spider: Any = None) -> None:
        for node in response.xpath('//meta[@name="robots"]'):
            node.root.getparent().remove(node.root)


def test_a_page_is_read_without_a_tree_or_text_left_or_from_the_tree_already_built():
    with LocalServer({"/": Reply(body=NOARCHIVE,
                                 headers={"Content-Type": "text/html; charset=utf-8"})}) as s:
        url = s.url("/")
        # Scrapy's MetaRefreshMiddleware decodes every HTML page (and keeps the text):
        # off here, so that what the text costs is ours alone.
        alone = run_crawl(LeavesNothing, {"SPIDER_MIDDLEWARES": {MIDDLEWARE: 950},
                                          "METAREFRESH_ENABLED": False}, start_urls=[url])
        trimmed = run_crawl(LeavesNothing, {"SPIDER_MIDDLEWARES": {
            MIDDLEWARE: 950, f"{__name__}.TrimsRobotsTags": 900}}, start_urls=[url])
    assert alone.items == [{"noarchive": True, "tree": False, "text": False}], alone.log
    assert trimmed.items == [{"noarchive": False, "tree": True, "text": True}], trimmed.log
