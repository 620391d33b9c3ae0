"""Which robots.txt cache a crawl gets, and what the log says when Redis cannot be used."""

from __future__ import annotations

import importlib.abc
import logging
import sys
from collections.abc import Sequence
from types import ModuleType

import pytest
from scrapy import Spider

from scrapy_robots_policy.cache.memory import MemoryCache
from scrapy_robots_policy.fetch.policy import Policy
from scrapy_robots_policy.scrapy.choose_cache import make_cache
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from tests.support import idle_crawler


class _NoRedis(importlib.abc.MetaPathFinder):
    """Imports as on a machine without the ``redis`` package."""

    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> None:
        if name.partition(".")[0] == "redis":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


@pytest.fixture
def without_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(sys.modules):
        if name.partition(".")[0] == "redis" or name.startswith((
                "scrapy_robots_policy.scrapy.redis", "scrapy_robots_policy.cache.redis")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_NoRedis(), *sys.meta_path])


def test_without_the_redis_package_the_error_says_which_extra_to_install(
    without_redis: None, caplog: pytest.LogCaptureFixture
) -> None:
    crawler = idle_crawler(Spider, {"ROBOTS_POLICY_REDIS_URL": "redis://127.0.0.1:1/0"})
    settings = RobotsPolicySettings.read(crawler.settings)
    with caplog.at_level(logging.ERROR, logger="scrapy_robots_policy.cache.choose"):
        cache = make_cache(crawler, settings, Policy(settings.fetch))
    assert isinstance(cache, MemoryCache)  # the crawl goes on, each process fetching
    assert [record.getMessage() for record in caplog.records] == [
        "ROBOTS_POLICY_REDIS_URL is set but robots.txt cannot be shared (No module named "
        "'redis'; install the redis extra: pip install \"scrapy_robots_policy[redis]\"): "
        "each process fetches its own"]
    assert crawler.stats is not None
    assert crawler.stats.get_value("robotstxt/redis_errors") == 1


def test_other_redis_errors_get_no_install_hint(caplog: pytest.LogCaptureFixture) -> None:
    crawler = idle_crawler(Spider, {"ROBOTS_POLICY_REDIS_URL": "notaurl"})
    settings = RobotsPolicySettings.read(crawler.settings)
    with caplog.at_level(logging.ERROR, logger="scrapy_robots_policy.cache.choose"):
        make_cache(crawler, settings, Policy(settings.fetch))
    [message] = [record.getMessage() for record in caplog.records]
    assert message.startswith("ROBOTS_POLICY_REDIS_URL is set but robots.txt cannot be shared (")
    assert "pip install" not in message
