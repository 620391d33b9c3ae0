"""Which user agent robots rules are read for, in Scrapy's own order of precedence."""

from __future__ import annotations

import pytest
from scrapy import Request, Spider
from scrapy.settings import Settings

from scrapy_robots_policy.useragent import UserAgentChoice


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
    choice = UserAgentChoice(Settings(settings))
    if spider is not None:
        choice.use_spider(spider())
    headers = {"User-Agent": header} if header else {}
    assert choice.for_request(Request("http://example.com/", headers=headers)) == expected


def test_no_request_gives_the_fallback() -> None:
    assert UserAgentChoice(Settings({"USER_AGENT": "SettingBot"})).for_request(None) == "SettingBot"
