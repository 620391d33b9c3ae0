"""The import paths users' settings and code named before the Scrapy adapter moved to
``scrapy_robots_policy.scrapy`` still work, and name the very same objects."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from scrapy.settings import Settings

from scrapy_robots_policy.scrapy.addon import CONTRACTS, DOWNLOADER, SPIDER, Addon, _is

#: (old path, new path) of every name kept for users.
OLD_AND_NEW = [
    ("scrapy_robots_policy.Addon", "scrapy_robots_policy.scrapy.addon.Addon"),
    ("scrapy_robots_policy.RobotsPolicyDownloaderMiddleware",
     "scrapy_robots_policy.scrapy.downloader.RobotsPolicyDownloaderMiddleware"),
    ("scrapy_robots_policy.RobotsPolicySpiderMiddleware",
     "scrapy_robots_policy.scrapy.spider.RobotsPolicySpiderMiddleware"),
    ("scrapy_robots_policy.RobotsTxt", "scrapy_robots_policy.robotstxt.RobotsTxt"),
    ("scrapy_robots_policy.RobotsDirectives", "scrapy_robots_policy.directives.RobotsDirectives"),
    ("scrapy_robots_policy.addon.Addon", "scrapy_robots_policy.scrapy.addon.Addon"),
    ("scrapy_robots_policy.downloader.RobotsPolicyDownloaderMiddleware",
     "scrapy_robots_policy.scrapy.downloader.RobotsPolicyDownloaderMiddleware"),
    ("scrapy_robots_policy.spider.RobotsPolicySpiderMiddleware",
     "scrapy_robots_policy.scrapy.spider.RobotsPolicySpiderMiddleware"),
    ("scrapy_robots_policy.spider.META_KEY", "scrapy_robots_policy.scrapy.spider.META_KEY"),
    *[(f"scrapy_robots_policy.contracts.{name}", f"scrapy_robots_policy.scrapy.contracts.{name}")
      for name in ("RobotsTxtContract", "MetaRobotsContract", "UsageAllowedContract",
                   "UsageRefusedContract")],
]

#: Those that name a class (a component dict key may name them).
CLASSES = [(old, new) for old, new in OLD_AND_NEW if not old.endswith("META_KEY")]


def load(path: str) -> object:
    module, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("old", "new"), OLD_AND_NEW)
def test_every_old_path_imports_the_same_object_as_its_new_home(old: str, new: str) -> None:
    assert load(old) is load(new)


def test_the_addon_writes_the_public_paths_it_always_wrote() -> None:
    assert DOWNLOADER == "scrapy_robots_policy.downloader.RobotsPolicyDownloaderMiddleware"
    assert SPIDER == "scrapy_robots_policy.spider.RobotsPolicySpiderMiddleware"
    assert all(path.startswith("scrapy_robots_policy.contracts.") for path in CONTRACTS)


@pytest.mark.parametrize(("old", "new"), CLASSES)
def test_the_addon_takes_old_and_new_paths_for_the_same_class(old: str, new: str) -> None:
    assert _is(old, new) and _is(new, old)
    assert _is(load(old), new)


@pytest.mark.parametrize("named", [
    "scrapy_robots_policy.downloader.RobotsPolicyDownloaderMiddleware",
    "scrapy_robots_policy.RobotsPolicyDownloaderMiddleware",
    "scrapy_robots_policy.scrapy.downloader.RobotsPolicyDownloaderMiddleware",
])
def test_a_project_naming_the_middleware_by_any_path_gets_it_once(named: str) -> None:
    settings = Settings()
    settings.setdict({"DOWNLOADER_MIDDLEWARES": {named: 90},
                      "SPIDER_MIDDLEWARES": {
                          "scrapy_robots_policy.spider.RobotsPolicySpiderMiddleware": None}},
                     priority="project")
    Addon().update_settings(settings)
    downloader = settings.getdict("DOWNLOADER_MIDDLEWARES")
    assert downloader[named] == 90
    assert [key for key in downloader if _is(key, DOWNLOADER)] == [named]
    spider = settings.getdict("SPIDER_MIDDLEWARES")
    assert [key for key in spider if _is(key, SPIDER)] == [
        "scrapy_robots_policy.spider.RobotsPolicySpiderMiddleware"]


def test_a_contract_switched_off_under_its_old_path_stays_off() -> None:
    old = "scrapy_robots_policy.contracts.RobotsTxtContract"
    settings = Settings()
    settings.set("SPIDER_CONTRACTS", {old: None}, priority="project")
    Addon.update_pre_crawler_settings(settings)
    contracts = settings.getdict("SPIDER_CONTRACTS")
    assert contracts[old] is None
    assert [key for key in contracts if _is(key, old)] == [old]


def test_the_engine_and_directives_still_import_without_scrapy() -> None:
    code = ("import sys; from scrapy_robots_policy import RobotsTxt, RobotsDirectives; "
            "assert not any(m == 'scrapy' or m.startswith(('scrapy.', 'twisted')) "
            "for m in sys.modules), sorted(m for m in sys.modules if 'scrapy' in m)")
    subprocess.run([sys.executable, "-c", code], check=True)
