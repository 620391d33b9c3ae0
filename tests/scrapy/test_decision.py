"""The downloader middleware decides each request once: how many times it asks the engine,
and that the refusal, the record's meta and a check sample all carry that one decision."""

from __future__ import annotations

import contextlib
import time
from typing import Any
from unittest.mock import patch

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest

from scrapy_robots_policy.fetch.origin import origin_of
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.fetch.verdict import CHECK_ONLY_META, VERDICT_META
from scrapy_robots_policy.page.request import DECISION_META, RequestDecision
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.scrapy.downloader import RobotsPolicyDownloaderMiddleware
from tests.support import idle_crawler

BODY = (b"User-agent: *\nDisallow: /private/\n\n"
        b"User-agent: GPTBot\nDisallow: /articles/\n")


class Bot(Spider):
    name = "bot"


def middleware(**settings: Any) -> RobotsPolicyDownloaderMiddleware:
    crawler = idle_crawler(Bot, {"ROBOTSTXT_OBEY": True, "USER_AGENT": "MyBot/1.0", **settings})
    crawler.spider = Bot()
    mw = RobotsPolicyDownloaderMiddleware(crawler)
    origin = origin_of("http://e.com/")
    assert origin is not None
    now = time.time()
    mw._cache.put(origin, CachedAnswer(RobotsTxt.parse(BODY), "200", now + 1e6, now, body=BODY))
    return mw


def asked(mw: RobotsPolicyDownloaderMiddleware, request: Request) -> tuple[int, int]:
    """How many times the engine was asked (allowed, decide) for ``request``."""
    spy_allowed = patch.object(RobotsTxt, "allowed", autospec=True, side_effect=RobotsTxt.allowed)
    spy_decide = patch.object(RobotsTxt, "decide", autospec=True, side_effect=RobotsTxt.decide)
    with spy_allowed as allowed, spy_decide as decide, contextlib.suppress(IgnoreRequest):
        assert mw.process_request(request) is None  # cached: decided at once
    return allowed.call_count, decide.call_count


def test_an_allowed_request_costs_one_yes_or_no_and_no_object() -> None:
    request = Request("http://e.com/public")
    assert asked(middleware(), request) == (1, 0)
    assert DECISION_META not in request.meta


def test_a_refusal_reads_its_line_once_and_leaves_its_decision() -> None:
    mw = middleware()
    request = Request("http://e.com/private/x")
    with pytest.raises(IgnoreRequest, match=r"line 2: Disallow: /private/ \(user agent"):
        mw.process_request(request)
    decision = request.meta[DECISION_META]
    assert isinstance(decision, RequestDecision) and decision.verdict.line == 2
    # the yes or no of the fast path, then the line: not a third time for the log
    assert asked(mw, Request("http://e.com/private/y")) == (1, 1)
    assert mw.crawler.stats.get_value("robotstxt/forbidden/rule") == 2


@pytest.mark.parametrize("settings", [{"ROBOTS_POLICY_ITEM_FIELD": "robots"},
                                      {"ROBOTS_POLICY_ALSO_OBEY": ["GPTBot"]}])
def test_when_the_line_is_needed_anyway_it_is_asked_once_allowed_or_not(settings: Any) -> None:
    mw = middleware(**settings)
    allowed = Request("http://e.com/public")
    assert asked(mw, allowed) == (0, 1)
    assert allowed.meta[DECISION_META].verdict.allowed
    assert asked(mw, Request("http://e.com/private/x")) == (0, 1)


def test_an_also_obeyed_token_refuses_naming_its_line() -> None:
    request = Request("http://e.com/articles/1")
    with pytest.raises(IgnoreRequest, match=r"line 5: Disallow: /articles/ \(user agent 'GPTBot'"):
        middleware(ROBOTS_POLICY_ALSO_OBEY=["GPTBot"]).process_request(request)


def test_a_check_sample_gets_the_verdict_and_is_never_refused() -> None:
    request = Request("http://e.com/private/x", meta={CHECK_ONLY_META: True})
    mw = middleware()
    assert asked(mw, request) == (0, 1)
    verdict = request.meta[VERDICT_META]
    assert not verdict.allowed and verdict.line == 2
    assert request.meta[DECISION_META].verdict is verdict and request.meta[
        DECISION_META].check_only


def test_dont_obey_robotstxt_asks_nothing() -> None:
    request = Request("http://e.com/private/x", meta={"dont_obey_robotstxt": True})
    assert asked(middleware(ROBOTS_POLICY_ITEM_FIELD="robots"), request) == (0, 0)
    assert DECISION_META not in request.meta
