"""Real crawls: a page's meta tags are read from the tree a spider that parses builds
anyway, and streamed (nothing left on the response) for a spider that never parses."""

from __future__ import annotations

from typing import Any, ClassVar

import scrapy

from scrapy_robots_policy.scrapy import internals
from scrapy_robots_policy.scrapy.pagetrees import PROBE_EVERY
from tests.support import LocalServer, Reply, run_crawl

PAGES = 80
SETTINGS: dict[str, Any] = {
    "ROBOTSTXT_OBEY": False, "USER_AGENT": "TestBot/1.0", "CONCURRENT_REQUESTS": 1,
    "SPIDER_MIDDLEWARES": {"scrapy_robots_policy.scrapy.spider.RobotsPolicySpiderMiddleware": 950},
}


def page(index: int) -> Reply:
    """Page ``index``: noarchive, and a link to the next page."""
    link = f'<a href="/{index + 1}">next</a>' if index + 1 < PAGES else ""
    return Reply(body=f'<html><head><meta name="robots" content="noarchive"></head>'
                      f"<body>{link}</body></html>",
                 headers={"Content-Type": "text/html; charset=utf-8"})


class Pages(scrapy.Spider):
    """Follows the chain of pages, through two callbacks by turns; reports whether each
    page's tree was there before the callback parsed it (the middleware read the tree)
    or not (it streamed the page)."""

    name = "pages"
    parses_below: ClassVar[dict[str, int]] = {}  # by callback: the pages it parses

    def parse(self, response: Any) -> Any:
        return self.read(response, "parse")

    def other(self, response: Any) -> Any:
        return self.read(response, "other")

    def read(self, response: Any, callback: str) -> Any:
        index = int(response.url.rsplit("/", 1)[1] or 0)
        yield {"callback": callback, "index": index,
               "tree": internals.SCRAPY_HTML.tree(response) is not None,
               "noarchive": response.meta["robots_directives"].noarchive}
        if index < self.parses_below[callback]:
            response.css("title").get()
        if index + 1 < PAGES:
            yield response.follow(f"/{index + 1}", self.other if index % 2 == 0 else self.parse)


def crawl(**parses_below: int) -> list[dict[str, Any]]:
    class Spider(Pages):
        pass

    Spider.parses_below = parses_below
    routes = {"/": page(0), **{f"/{i}": page(i) for i in range(1, PAGES)}}
    with LocalServer(routes) as server:
        result = run_crawl(Spider, SETTINGS, start_urls=[server.url("/")])
    assert len(result.items) == PAGES, result.log
    assert all(item["noarchive"] for item in result.items)  # read either way
    return result.items


def test_the_pages_of_a_spider_that_parses_are_read_from_their_tree_and_parsed_once():
    items = crawl(parse=PAGES, other=PAGES)
    streamed = [item for item in items if not item["tree"]]
    # The first page of each callback (the start URL's, None, is parse's too), and one in
    # PROBE_EVERY after, to see that it still parses.
    assert 2 <= len(streamed) <= 3 + PAGES // PROBE_EVERY, streamed


def test_the_pages_of_a_spider_that_never_parses_are_streamed():
    assert not any(item["tree"] for item in crawl(parse=0, other=0))


def test_what_is_learnt_is_per_callback():
    items = crawl(parse=PAGES, other=0)
    assert not any(item["tree"] for item in items if item["callback"] == "other")
    read_from_tree = [item["tree"] for item in items if item["callback"] == "parse"]
    assert sum(read_from_tree) >= len(read_from_tree) - 2 - PAGES // PROBE_EVERY


def test_a_callback_that_stops_parsing_has_its_pages_streamed_again():
    items = crawl(parse=10, other=0)
    # It parsed the pages before 10; one probe, at most PROBE_EVERY of its pages later
    # (every other page is its), sees that it no longer does.
    late = [item for item in items if item["callback"] == "parse"
            and item["index"] > 10 + 2 * PROBE_EVERY + 2]
    assert late and not any(item["tree"] for item in late), items
