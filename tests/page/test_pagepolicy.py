"""PagePolicy without a middleware: which objects of a page are dropped, and why."""

from __future__ import annotations

import pytest
from scrapy.http import HtmlResponse, Response

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.page.policy import KEPT, REL_NOFOLLOW, PageLinks, PagePolicy, Reason
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from scrapy_robots_policy.usage import Reading, Signal
from scrapy_robots_policy.usage.policy import UsageReading
from scrapy_robots_policy.usage.purposes import USAGE_HEADER

LINKS = ('<a href="/a">a</a> <a href="/b" rel="nofollow">b</a> '
         '<a href="/c" rel="Nofollow">c</a> <a href="/c">c again</a> <a href="http://[">x</a>')


def policy(**settings: bool) -> PagePolicy:
    return PagePolicy(RobotsPolicySettings(**settings))


def html(body: str) -> HtmlResponse:
    return HtmlResponse("http://e.com/p", body=body.encode())


def test_reasons_name_the_directive_and_where_it_came_from() -> None:
    page = policy().judge(RobotsDirectives.from_x_robots_tag("none", "bot"))
    assert page.noindex == page.nofollow == Reason("none", "none (from X-Robots-Tag: none)")
    assert policy().for_item(page).reason == page.noindex
    assert policy(drop_noindex=False).for_item(page).reason is None


def test_an_opted_out_page_drops_nothing() -> None:
    page = policy().judge(RobotsDirectives.from_x_robots_tag("none", "bot"), obey=False)
    assert not page.filters
    assert policy().for_item(page).reason is None
    assert policy().for_request(page, html(LINKS), "http://e.com/a").reason is None


@pytest.mark.parametrize(("url", "dropped"), [("http://e.com/a", True), ("http://e.com/z", False)])
def test_links_only_drops_only_the_pages_links(url: str, dropped: bool) -> None:
    page = policy().judge(RobotsDirectives(nofollow=True))
    mine = policy(nofollow_links_only=True)
    assert (mine.for_request(page, html(LINKS), url).reason is not None) is dropped
    assert policy().for_request(page, html(LINKS), url).reason is not None


def test_rel_nofollow_drops_links_only_ever_marked_so() -> None:
    mine = policy(obey_rel_nofollow=True)
    page = mine.judge(RobotsDirectives())
    assert page.filters
    response = html(LINKS)
    assert mine.for_request(page, response, "http://e.com/b").reason == REL_NOFOLLOW
    assert mine.for_request(page, response, "http://e.com/c").reason is None  # also followed
    assert policy().judge(RobotsDirectives()).filters is False


def test_links_are_canonical_and_unjoinable_ones_skipped() -> None:
    links = PageLinks.read(html(LINKS))
    assert links == PageLinks(frozenset({"http://e.com/a", "http://e.com/b", "http://e.com/c"}),
                              frozenset({"http://e.com/b"}), readable=True)


def test_unreadable_links() -> None:
    class Broken(HtmlResponse):
        @property
        def selector(self):
            raise ValueError("cannot parse")

    assert not PageLinks.read(Broken("http://e.com/", body=b"x")).readable
    assert PageLinks.read(Response("http://e.com/", body=b"x")).readable  # not text: no links


# -- the one Outcome the spider middleware applies -------------------------------------------

REFUSED = UsageReading.of(("ai-train",), Reading((
    Signal("ai-train", False, USAGE_HEADER, "Content-Usage: train-ai=n"),)))


def test_an_item_of_a_noindex_page_is_dropped_counted_and_told() -> None:
    page = policy().judge(RobotsDirectives.from_x_robots_tag("noindex", "bot"))
    outcome = policy().for_item(page)
    assert not outcome.kept
    assert (outcome.count, outcome.reason) == ("items_dropped", page.noindex)
    assert outcome.message == "Dropped an item of %(url)s: %(why)s"
    assert policy().for_item(policy().judge(RobotsDirectives())) is KEPT


def test_a_refused_purpose_drops_items_when_enforced_and_counts_them_when_recorded() -> None:
    enforced = PagePolicy(RobotsPolicySettings(purposes=("ai-train",), usage="enforce"))
    page = enforced.judge(RobotsDirectives(), usage=REFUSED)
    outcome = enforced.for_item(page)
    assert not outcome.kept and outcome.count == "items_dropped"
    assert outcome.reason == Reason("usage/content-usage-header/ai-train",
                                    "ai-train refused (Content-Usage: train-ai=n)")
    recording = PagePolicy(RobotsPolicySettings(purposes=("ai-train",), usage="record"))
    kept = recording.for_item(recording.judge(RobotsDirectives(), usage=REFUSED))
    assert kept.kept and kept.count == "items_refused_recorded"
    assert kept.reason == outcome.reason
    assert kept.message == "Kept an item of %(url)s (usage recorded, not enforced): %(why)s"


def test_a_nofollow_page_drops_requests_counted_and_told() -> None:
    page = policy().judge(RobotsDirectives.from_x_robots_tag("nofollow", "bot"))
    outcome = policy().for_request(page, html(LINKS), "http://e.com/a")
    assert not outcome.kept and outcome.count == "requests_dropped"
    assert outcome.reason == Reason("nofollow", "nofollow (from X-Robots-Tag: nofollow)")
    assert outcome.message == "Not following %(request)s of %(url)s: %(why)s"
    assert not outcome.links_unreadable  # links_only off: the links were never read


def test_unreadable_links_are_told_once_per_page_by_the_request_that_read_them() -> None:
    class Broken(HtmlResponse):
        @property
        def selector(self):
            raise ValueError("cannot parse")

    mine = policy(nofollow_links_only=True)
    page = mine.judge(RobotsDirectives(nofollow=True))
    response = Broken("http://e.com/", body=b"x")
    first = mine.for_request(page, response, "http://e.com/a")
    assert first.kept and first.links_unreadable and first.count is None  # no link known
    assert mine.for_request(page, response, "http://e.com/b") is KEPT
