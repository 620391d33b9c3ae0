"""RobotsPolicySpiderMiddleware without a crawl: what it does with each object a callback yields.

The crawl tests (test_crawl_directives.py) show the behaviour end to end; these pin the
details that a crawl cannot isolate: one computation per response however many objects
it yields, item annotation rules, and the user-agent fallbacks.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
import scrapy
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request, Response

from scrapy_robots_policy import RobotsDirectives, RobotsPolicySpiderMiddleware
from scrapy_robots_policy.directives import response as response_module
from scrapy_robots_policy.directives.lists import MAX_VALUE_CHARS
from scrapy_robots_policy.scrapy.spider import META_KEY
from tests.support import idle_crawler


def middleware(**settings: Any) -> RobotsPolicySpiderMiddleware:
    crawler = idle_crawler(scrapy.Spider, {"USER_AGENT": "TestBot/1.0", **settings})
    return RobotsPolicySpiderMiddleware.from_crawler(crawler)


def page(body: str = "", headers: dict[str, Any] | None = None, url: str = "http://e.com/p",
         request_headers: dict[str, str] | None = None) -> HtmlResponse:
    request = Request(url, headers=request_headers or {"User-Agent": "TestBot/1.0"})
    return HtmlResponse(url, body=body.encode(), headers=headers or {}, request=request)


def run(mw: RobotsPolicySpiderMiddleware, response: Response, objects: list[Any]) -> list[Any]:
    mw.process_spider_input(response)
    return list(mw.process_spider_output(response, objects))


def run_async(mw: RobotsPolicySpiderMiddleware, response: Response,
              objects: list[Any]) -> list[Any]:
    async def source():
        for obj in objects:
            yield obj

    async def collect():
        return [obj async for obj in mw.process_spider_output_async(response, source())]

    return asyncio.run(collect())


NONE = '<meta name="robots" content="none"><a href="/a">a</a>'


@pytest.mark.parametrize("runner", [run, run_async])
def test_items_and_requests_of_a_none_page_are_dropped(runner):
    mw = middleware()
    out = runner(mw, page(NONE), [{"a": 1}, Request("http://e.com/a"), "text item"])
    assert out == []
    assert mw.stats.get_value("robots_policy/items_dropped/none") == 2
    assert mw.stats.get_value("robots_policy/requests_dropped/none") == 1


def test_directives_are_computed_once_per_response(monkeypatch):
    calls = []
    original = RobotsDirectives.from_response.__func__

    def counting(cls, response, user_agent, *how):
        calls.append(response)
        return original(cls, response, user_agent, *how)

    monkeypatch.setattr(RobotsDirectives, "from_response", classmethod(counting))
    mw = middleware()
    response = page('<meta name="robots" content="noarchive"><a href="/a">a</a>')
    out = run(mw, response, [{"n": n} for n in range(50)] + [Request("http://e.com/a")])
    assert len(out) == 51
    assert calls == [response]
    assert response.meta[META_KEY] == RobotsDirectives(noarchive=True)
    assert mw.stats.get_value("robots_policy/response_count") == 1


def test_meta_is_set_before_the_callback_runs():
    mw = middleware()
    response = page('<meta name="testbot" content="max-snippet:7">')
    mw.process_spider_input(response)
    assert response.meta[META_KEY].max_snippet == 7


@dataclass
class DataItem:
    title: str = ""
    robots: Any = None


class DeclaredItem(scrapy.Item):
    title = scrapy.Field()


def test_item_field_annotates_what_can_take_it():
    mw = middleware(ROBOTS_POLICY_ITEM_FIELD="robots", ROBOTS_POLICY_DROP_NOINDEX=False)
    response = page('<meta name="robots" content="noindex, max-snippet:3">')
    plain, data, declared = {"title": "t"}, DataItem("t"), DeclaredItem(title="t")
    out = run(mw, response, [plain, data, declared, "not an item"])
    assert out == [plain, data, declared, "not an item"]
    # The compliance record: robots.txt was not consulted here (no downloader middleware).
    assert plain["robots"] == {"page": plain["robots"]["page"], "robotstxt": None,
                               "directives": {"noindex": True, "max_snippet": 3}}
    assert plain["robots"]["page"]["url"] == response.url  # the content it speaks for
    assert data.robots == plain["robots"]
    assert "robots" not in declared  # an Item without that field is left alone, and counted
    assert mw.stats.get_value("robots_policy/items_not_annotated") == 1


def test_items_are_not_annotated_by_default():
    item = {"title": "t"}
    assert run(middleware(), page("<p>x</p>"), [item]) == [{"title": "t"}]


@pytest.mark.parametrize(("settings", "request_headers", "dropped"), [
    ({}, {"User-Agent": "TestBot/1.0"}, True),  # the header the request was sent with
    ({}, {"User-Agent": "OtherBot/2.0"}, False),
    ({"ROBOTSTXT_USER_AGENT": "testbot"}, {"User-Agent": "OtherBot/2.0"}, True),
    ({"ROBOTSTXT_USER_AGENT": "otherbot"}, {"User-Agent": "TestBot/1.0"}, False),
])
def test_whose_meta_name_applies(settings, request_headers, dropped):
    response = page('<meta name="testbot" content="noindex">', request_headers=request_headers)
    assert (run(middleware(**settings), response, [{"a": 1}]) == []) is dropped


def test_user_agent_setting_when_the_request_carried_none():
    response = page('<meta name="testbot" content="noindex">')
    response.request.headers.pop(b"User-Agent")
    assert run(middleware(), response, [{"a": 1}]) == []  # USER_AGENT = TestBot/1.0


def test_a_response_without_request_is_still_judged():
    mw = middleware()
    response = HtmlResponse("http://e.com/", body=b'<meta name="robots" content="noindex">')
    assert list(mw.process_spider_output(response, [{"a": 1}])) == []


def test_disabled_by_setting():
    with pytest.raises(NotConfigured):
        middleware(ROBOTS_POLICY_DIRECTIVES_OBEY=False)


def unreadable(error: Exception, body: bytes, **kwargs):
    """A page whose text and selector raise ``error`` when the middleware asks for them."""
    response = page("<p>x</p>")

    class Unreadable(HtmlResponse):
        @property
        def text(self):
            raise error

        @property
        def selector(self):
            raise error

    return Unreadable(response.url, body=body, request=response.request, **kwargs)


def test_unreadable_page_is_logged_and_counted_not_raised(caplog):
    mw = middleware()
    broken = unreadable(ValueError("cannot parse"), b'<meta name="robots" content="nofollow">',
                        headers={"X-Robots-Tag": "noindex"})
    assert run(mw, broken, [{"a": 1}]) == []  # the header still counts
    assert mw.stats.get_value("robots_policy/parse_errors") == 1
    assert "could not parse HTML" in caplog.text


def test_a_page_that_cannot_hold_a_robots_meta_tag_is_not_parsed(monkeypatch):
    def parse(text, agent, encoded=None):
        raise AssertionError("parsed")

    monkeypatch.setattr(response_module, "streamed_meta_tags", parse)
    mw = middleware()
    plain = page('<meta name="description" content="noindex">')
    assert run(mw, plain, [{"a": 1}]) == [{"a": 1}]
    assert mw.stats.get_value("robots_policy/parse_errors") is None
    # the same page with a robots meta tag is parsed (here: fails to)
    assert run(mw, page('<meta name="robots" content="noindex">'), [{"a": 1}]) == [{"a": 1}]
    assert mw.stats.get_value("robots_policy/parse_errors") == 1


@pytest.mark.parametrize("name", ["&#114;obots", "ROBOTS", "Test&#x42;ot", "rob\0ots"])
def test_a_robots_meta_tag_name_however_spelled_is_read(name):
    response = page(f'<html><head><meta name="{name}" content="noindex"></head></html>')
    assert run(middleware(), response, [{"a": 1}]) == []


def test_a_cut_value_is_counted_and_logged_once_per_response(caplog):
    mw = middleware()
    junk = "noindex, " + "a, " * 5330
    response = page("<p>x</p>", headers={"X-Robots-Tag": [junk, junk]},
                    url="http://e.com/long")
    with caplog.at_level("DEBUG", logger="scrapy_robots_policy.spider"):
        assert run(mw, response, [{"a": 1}]) == []  # the noindex at the start still counts
    assert mw.stats.get_value("robots_policy/values_cut") == 2
    lines = [r.getMessage() for r in caplog.records if "read in part" in r.getMessage()]
    assert len(lines) == 1
    assert "http://e.com/long" in lines[0]
    assert f"X-Robots-Tag value longer than {MAX_VALUE_CHARS} characters" in lines[0]
    assert all(len(r.getMessage()) < 1000 for r in caplog.records)
    # what the callback sees in meta is a few KB, not a copy of the 32 KB of headers
    kept = response.meta[META_KEY]
    assert len(kept.sources) <= 64
    assert sum(len(d.raw) for d in kept.sources) < 64 * 202


@pytest.mark.parametrize("shift", range(-6, 2))
def test_a_robots_meta_tag_deep_in_a_large_page_is_read(shift):
    head = '<html><head><meta name="'
    filler = "<!--" + "x" * (65_536 + shift - len(head) - 7) + "-->"  # "robots" near 64 Ki
    response = page(f'{filler}{head}robots" content="noindex"></head></html>')
    assert run(middleware(), response, [{"a": 1}]) == []
