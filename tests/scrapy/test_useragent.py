"""Which user agent robots rules are read for, in Scrapy's own order of precedence."""

from __future__ import annotations

import logging

import pytest
from scrapy import Request, Spider
from scrapy.settings import Settings

from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from scrapy_robots_policy.scrapy.useragent import UserAgentChoice
from tests.support import idle_crawler


class NamedSpider(Spider):
    name = "named"
    user_agent = "SpiderBot/3"


@pytest.mark.parametrize(("settings", "header", "spider", "expected"), [
    ({"ROBOTSTXT_USER_AGENT": "RobotsBot"}, "HeaderBot/1", NamedSpider, "RobotsBot"),
    ({"USER_AGENT": "SettingBot"}, "HeaderBot/1", NamedSpider, "HeaderBot/1"),
    ({"USER_AGENT": "SettingBot",
      "DEFAULT_REQUEST_HEADERS": {"user-agent": "DefaultsBot"}}, None, NamedSpider,
     "DefaultsBot"),
    ({"USER_AGENT": "SettingBot"}, None, NamedSpider, "SpiderBot/3"),
    ({"USER_AGENT": "SettingBot"}, None, None, "SettingBot"),
])
def test_precedence(settings: dict, header: str | None, spider: type | None,
                    expected: str) -> None:
    choice = UserAgentChoice(RobotsPolicySettings.read(Settings(settings)))
    if spider is not None:
        choice.use_spider(spider())
    headers = {"User-Agent": header} if header else {}
    assert choice.for_request(Request("http://example.com/", headers=headers)) == expected


def test_no_request_gives_the_fallback() -> None:
    settings = RobotsPolicySettings.read(Settings({"USER_AGENT": "SettingBot"}))
    assert UserAgentChoice(settings).for_request(None) == "SettingBot"


FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"


def test_a_browser_user_agent_naming_no_crawler_is_warned_about_once_per_crawl(
        caplog: pytest.LogCaptureFixture) -> None:
    crawler = idle_crawler(NamedSpider, {"USER_AGENT": "SettingBot"})
    choice = UserAgentChoice.for_crawler(crawler)
    assert UserAgentChoice.for_crawler(crawler) is choice  # both middlewares share it
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_policy.useragent"):
        for agent in ("MyBot/1.0", "Mozilla/5.0 (compatible; MyBot/1.0; +https://x)"):
            choice.for_request(Request("http://example.com/", headers={"User-Agent": agent}))
        assert not caplog.records
        for agent in (FIREFOX, FIREFOX, "Mozilla/5.0 (Windows NT 10.0) Chrome/120.0"):
            choice.for_request(Request("http://example.com/", headers={"User-Agent": agent}))
        UserAgentChoice.for_crawler(crawler).for_request(
            Request("http://example.com/", headers={"User-Agent": FIREFOX}))
        assert len(caplog.records) == 1
        assert FIREFOX in caplog.text
        assert "Set ROBOTSTXT_USER_AGENT" in caplog.text
        other = idle_crawler(NamedSpider, {"ROBOTSTXT_USER_AGENT": FIREFOX})
        assert UserAgentChoice.for_crawler(other).for_request(None) == FIREFOX
        assert len(caplog.records) == 2  # another crawl
