"""What is read once per crawl lives on the crawler, not in a module-global registry."""

from __future__ import annotations

import gc
import weakref
from unittest import mock

from scrapy.settings import Settings

from scrapy_robots_policy.scrapy import crawlstate, settings, useragent
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from scrapy_robots_policy.scrapy.useragent import UserAgentChoice


def frozen_mock_crawler() -> mock.MagicMock:
    crawler = mock.MagicMock()  # as Scrapy's own middleware tests build one
    crawler.settings = Settings({"USER_AGENT": "SettingBot"})
    crawler.settings.freeze()
    return crawler


def test_no_module_keeps_crawlers() -> None:
    for module in (crawlstate, settings, useragent):
        assert not any(isinstance(value, (dict, weakref.WeakKeyDictionary))
                       and not name.isupper() for name, value in vars(module).items()
                       if not name.startswith("__")), module


def test_a_mocked_crawler_keeps_its_own_state_and_drops_it_with_itself() -> None:
    crawler = frozen_mock_crawler()
    choice = UserAgentChoice.for_crawler(crawler)
    assert UserAgentChoice.for_crawler(crawler) is choice
    assert RobotsPolicySettings.of(crawler) is RobotsPolicySettings.of(crawler)
    assert UserAgentChoice.for_crawler(frozen_mock_crawler()) is not choice
    gone = weakref.ref(crawlstate.crawl_state(crawler))
    del crawler, choice
    gc.collect()
    assert gone() is None


def test_a_crawler_that_takes_no_attribute_is_read_each_time() -> None:
    crawler = mock.MagicMock(spec_set=["settings", "stats", "engine", "signals", "spider"])
    crawler.settings = Settings({"USER_AGENT": "SettingBot"})
    crawler.settings.freeze()
    assert RobotsPolicySettings.of(crawler).user_agent == "SettingBot"
    assert UserAgentChoice.for_crawler(crawler).for_request(None) == "SettingBot"
