"""The Addon puts our middlewares in place of Scrapy's, whatever the project already set."""

from __future__ import annotations

from typing import Any

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.settings import Settings
from scrapy.utils.conf import build_component_list

from scrapy_robots_policy.scrapy.addon import BUILTIN_DOWNLOADER, DOWNLOADER, SPIDER, Addon


def enabled(settings: Settings, name: str) -> list[str]:
    components = build_component_list(settings.getwithbase(name))
    return [c if isinstance(c, str) else f"{c.__module__}.{c.__qualname__}"
            for c in components]


def with_addon(project: dict[str, Any] | None = None) -> Settings:
    settings = Settings()
    settings.setdict(project or {}, priority="project")
    Addon().update_settings(settings)
    return settings


def test_replaces_the_builtin_at_its_place_and_adds_the_spider_middleware() -> None:
    settings = with_addon()
    downloader = enabled(settings, "DOWNLOADER_MIDDLEWARES")
    assert BUILTIN_DOWNLOADER not in downloader
    assert settings.getdict("DOWNLOADER_MIDDLEWARES")[DOWNLOADER] == \
        settings.getdict("DOWNLOADER_MIDDLEWARES_BASE")[BUILTIN_DOWNLOADER]
    assert settings.getdict("SPIDER_MIDDLEWARES")[SPIDER] == 950
    assert SPIDER in enabled(settings, "SPIDER_MIDDLEWARES")


def test_keeps_the_project_middlewares_set_at_project_priority() -> None:
    mine = "myproject.middlewares.Custom"
    settings = with_addon({"DOWNLOADER_MIDDLEWARES": {mine: 543},
                           "SPIDER_MIDDLEWARES": {"myproject.middlewares.Spidery": 10}})
    downloader = settings.getdict("DOWNLOADER_MIDDLEWARES")
    assert downloader[mine] == 543 and downloader[DOWNLOADER] == 100
    assert downloader[BUILTIN_DOWNLOADER] is None
    spider = settings.getdict("SPIDER_MIDDLEWARES")
    assert spider["myproject.middlewares.Spidery"] == 10 and spider[SPIDER] == 950


def test_takes_the_place_the_project_gave_the_builtin() -> None:
    settings = with_addon({"DOWNLOADER_MIDDLEWARES": {RobotsTxtMiddleware: 650}})
    downloader = settings.getdict("DOWNLOADER_MIDDLEWARES")
    assert downloader[DOWNLOADER] == 650
    assert RobotsTxtMiddleware not in downloader
    assert BUILTIN_DOWNLOADER not in enabled(settings, "DOWNLOADER_MIDDLEWARES")


def test_the_projects_own_word_on_our_middlewares_wins() -> None:
    settings = with_addon({
        "DOWNLOADER_MIDDLEWARES": {"scrapy_robots_policy.RobotsPolicyDownloaderMiddleware": 90},
        "SPIDER_MIDDLEWARES": {SPIDER: None},
    })
    downloader = settings.getdict("DOWNLOADER_MIDDLEWARES")
    assert downloader["scrapy_robots_policy.RobotsPolicyDownloaderMiddleware"] == 90
    assert DOWNLOADER not in downloader  # not installed twice under another name
    assert SPIDER not in enabled(settings, "SPIDER_MIDDLEWARES")
