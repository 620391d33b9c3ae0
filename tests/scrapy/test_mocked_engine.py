"""The middleware under a mocked engine, as users unit-test their spiders.

Such a crawler's engine answers every attribute with a truthy mock: nothing about it
may be read as "the crawl is closing", which would refuse every request unfetched.
Closing on a real engine is tested by a real crawl (tests/scrapy/test_crawl_faults.py).
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from scrapy import signals
from scrapy.core.engine import ExecutionEngine
from scrapy.http import Request, Response, TextResponse

from scrapy_robots_policy import RobotsPolicyDownloaderMiddleware, RobotsTxt
from tests.mock_engine import (
    DOWNLOAD_ASYNC,
    answer,
    assert_allowed,
    assert_refused,
    engine_download,
    in_reactor,
    mock_crawler,
)

ROBOTS = b"User-agent: *\nDisallow: /private\n"


def robots(status: int = 200, body: bytes = ROBOTS) -> Response:
    return TextResponse("http://site.local/robots.txt", status=status, body=body)


def stat_keys(crawler: mock.MagicMock) -> list[str]:
    return [c.args[0] for c in crawler.stats.inc_value.call_args_list]


def spec_engine(crawler: mock.MagicMock) -> None:
    """An engine mocked with ``spec`` (it passes isinstance(ExecutionEngine)) and given a
    mocked private slot, whose ``closing`` is a truthy mock."""
    download = engine_download(crawler)
    crawler.engine = mock.MagicMock(spec=ExecutionEngine)
    crawler.engine._slot = mock.MagicMock()
    setattr(crawler.engine, "download_async" if DOWNLOAD_ASYNC else "download", download)


@pytest.mark.parametrize("engine", ["magicmock", "spec"])
@pytest.mark.parametrize("reactor", ["asyncio", "epoll"])
def test_a_mocked_engine_gets_real_answers_and_robots_parsed(reactor: str, engine: str
                                                            ) -> None:
    crawler = mock_crawler({"ROBOTSTXT_OBEY": True})
    if engine == "spec":
        spec_engine(crawler)

    async def scenario() -> None:
        answer(crawler, robots())
        mw = RobotsPolicyDownloaderMiddleware.from_crawler(crawler)
        public = Request("http://site.local/public")
        await assert_allowed(mw, public)
        refused = await assert_refused(mw, Request("http://site.local/private/x"))
        assert "robots.txt line 2: Disallow: /private" in str(refused)
        assert engine_download(crawler).call_count == 1
        keys = stat_keys(crawler)
        assert "robotstxt/forbidden/rule" in keys
        assert not [k for k in keys if "unreachable" in k or "closing" in k], keys
        if hasattr(signals, "robots_parsed"):  # Scrapy 2.18+
            sent = [c.kwargs for c in crawler.signals.send_catch_log_async.call_args_list
                    if c.kwargs.get("signal") is signals.robots_parsed]
            assert len(sent) == 1
            assert sent[0]["request"] is public
            assert isinstance(sent[0]["robotparser"], RobotsTxt)
            assert not sent[0]["robotparser"].allowed("/private", "bot")

    in_reactor(scenario, reactor)


@pytest.mark.parametrize("reactor", ["asyncio", "epoll"])
def test_a_mocked_engine_retries_an_unreachable_robots_txt(reactor: str) -> None:
    """The retry wait asks whether the crawl is closing, every 0.25 s: with a mock it is
    not, so the requests wait for the retry and get its answer."""
    crawler = mock_crawler({"ROBOTSTXT_OBEY": True, "ROBOTS_POLICY_RETRY_BACKOFF": 0.3,
                            "ROBOTS_POLICY_RETRY_PATIENCE": 10})
    replies = iter([robots(503, b"")])

    async def scenario() -> Any:
        answer(crawler, lambda request: next(replies, robots()))
        mw = RobotsPolicyDownloaderMiddleware.from_crawler(crawler)
        await assert_allowed(mw, Request("http://site.local/public"))
        await assert_refused(mw, Request("http://site.local/private"))
        return engine_download(crawler).call_count, stat_keys(crawler)

    calls, keys = in_reactor(scenario, reactor)
    assert calls == 2
    assert "robotstxt/retry_count" in keys
    assert "robotstxt/forbidden/closing" not in keys


def test_a_request_decided_before_a_round_ends_but_run_after_it_uses_its_answer() -> None:
    """Scrapy may run a waiting request's coroutine a loop turn after process_request
    returned it; the round that ended meanwhile answers it, with no second fetch (CI
    caught one in a real crawl)."""
    crawler = mock_crawler({"ROBOTSTXT_OBEY": True})

    async def scenario() -> int:
        answer(crawler, robots())
        mw = RobotsPolicyDownloaderMiddleware.from_crawler(crawler)
        late = mw.process_request(Request("http://site.local/late"))  # nothing cached yet
        await assert_allowed(mw, Request("http://site.local/first"))
        assert late is not None
        await late
        await assert_refused(mw, Request("http://site.local/private"))
        return int(engine_download(crawler).call_count)

    assert in_reactor(scenario) == 1


@pytest.mark.parametrize("engine", ["magicmock", "spec"])
def test_crawl_delay_leaves_a_mocked_downloader_alone(engine: str) -> None:
    """ROBOTS_POLICY_CRAWL_DELAY sets the delay of Scrapy's download slots: a mocked
    downloader has none to set, and comparing its mocks with the delay must not fail."""
    crawler = mock_crawler({"ROBOTSTXT_OBEY": True, "ROBOTS_POLICY_CRAWL_DELAY": True})
    if engine == "spec":
        spec_engine(crawler)

    async def scenario() -> None:
        answer(crawler, robots(body=b"User-agent: *\nCrawl-delay: 2\nDisallow: /private\n"))
        mw = RobotsPolicyDownloaderMiddleware.from_crawler(crawler)
        await assert_allowed(mw, Request("http://site.local/public"))
        await assert_allowed(mw, Request("http://site.local/public/again"))
        await assert_refused(mw, Request("http://site.local/private"))

    in_reactor(scenario)
