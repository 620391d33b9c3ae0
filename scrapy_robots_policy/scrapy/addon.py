"""Addon: ``ADDONS = {"scrapy_robots_policy.Addon": 0}`` turns the whole plugin on.

It puts :class:`~scrapy_robots_policy.scrapy.downloader.RobotsPolicyDownloaderMiddleware` where
Scrapy's ``RobotsTxtMiddleware`` sits (so it sees requests in the same order), disables
Scrapy's, and adds the page-level directives spider middleware next to the spider. The
robots.txt middleware stays inactive unless ``ROBOTSTXT_OBEY`` is true, as Scrapy's own
does; the spider middleware has its own switch, ``ROBOTS_POLICY_DIRECTIVES_OBEY`` (on by
default), since a page that was fetched still states its wishes. It also registers the
``@robotstxt`` and ``@meta_robots`` contracts for ``scrapy check``.

``scrapy check`` builds its ContractsManager from the project settings before any spider
is loaded, so an add-on enabled only in a spider's ``custom_settings`` comes too late for
``SPIDER_CONTRACTS``. But ContractsManager keeps its name -> contract table on the class
(Scrapy 2.13 to 2.19; :func:`.internals.contracts_table`), and the spider's contracts are
only looked up when its crawl starts, after ``update_settings``: registering there makes
``custom_settings`` work too.

``ROBOTSTXT_PARSER`` is read only by the middleware the add-on disables: a value other
than Scrapy's default gets one WARNING per crawl saying so.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from scrapy.settings import default_settings
from scrapy.utils.misc import load_object

from scrapy_robots_policy.scrapy.internals import contracts_table

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

BUILTIN_DOWNLOADER = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
# The public paths (re-exports of this package's modules), which users' settings name and
# which the add-on has always written into them: a settings dump stays the same.
DOWNLOADER = "scrapy_robots_policy.downloader.RobotsPolicyDownloaderMiddleware"
SPIDER = "scrapy_robots_policy.spider.RobotsPolicySpiderMiddleware"
#: Scrapy's ROBOTSTXT_PARSER default (ProtegoRobotParser), and this package's parser for it.
SCRAPY_PARSER: str = default_settings.ROBOTSTXT_PARSER
PARSER = "scrapy_robots_policy.RobotParser"
CONTRACTS = ("scrapy_robots_policy.contracts.RobotsTxtContract",
             "scrapy_robots_policy.contracts.MetaRobotsContract",
             "scrapy_robots_policy.contracts.UsageAllowedContract",
             "scrapy_robots_policy.contracts.UsageRefusedContract")

# The logger name it had before the move to scrapy/: users' log filters name it.
logger = logging.getLogger("scrapy_robots_policy.addon")

#: Where Scrapy's RobotsTxtMiddleware sits in DOWNLOADER_MIDDLEWARES_BASE (2.13 .. 2.19).
BUILTIN_PRIORITY = 100
#: Near the spider, so the spider middleware sees exactly what callbacks yield.
SPIDER_PRIORITY = 950


class Addon:
    """Install the robots.txt downloader middleware and the directives spider middleware."""

    @classmethod
    def update_pre_crawler_settings(cls, settings: BaseSettings) -> None:
        """Register the contracts: ``scrapy check`` reads SPIDER_CONTRACTS before any
        crawler (and so before ``update_settings``) exists."""
        contracts = settings.getdict("SPIDER_CONTRACTS")
        missing = [path for path in CONTRACTS if not any(_is(key, path) for key in contracts)]
        if missing:
            contracts.update(dict.fromkeys(missing, 0))
            cls._set(settings, "SPIDER_CONTRACTS", contracts)

    def update_settings(self, settings: BaseSettings) -> None:
        self._register_contracts(settings)
        self._warn_ignored_parser(settings)
        downloader = settings.getdict("DOWNLOADER_MIDDLEWARES")
        priority = self._take_builtin_place(downloader, settings)
        if not any(_is(key, DOWNLOADER) for key in downloader):  # the user's word wins
            downloader[DOWNLOADER] = priority
        self._set(settings, "DOWNLOADER_MIDDLEWARES", downloader)

        spider = settings.getdict("SPIDER_MIDDLEWARES")
        if not any(_is(key, SPIDER) for key in spider):
            spider[SPIDER] = SPIDER_PRIORITY
            self._set(settings, "SPIDER_MIDDLEWARES", spider)

    @staticmethod
    def _register_contracts(settings: BaseSettings) -> None:
        """Make the contracts known to ``scrapy check`` when the add-on is enabled only in
        a spider's ``custom_settings`` (see the module docstring); entries the user set to
        ``None`` in ``SPIDER_CONTRACTS`` stay off."""
        table = contracts_table()
        if table is None:  # a Scrapy that keeps the table per instance
            if os.environ.get("SCRAPY_CHECK"):  # set by scrapy check while it runs spiders
                logger.warning(
                    "scrapy_robots_policy: the @robotstxt and @meta_robots contracts are "
                    "known to 'scrapy check' only with the add-on in the project's "
                    "settings.py (ADDONS), or with SPIDER_CONTRACTS there")
            return
        contracts = settings.getdict("SPIDER_CONTRACTS")
        for path in CONTRACTS:
            if any(_is(key, path) and value is None for key, value in contracts.items()):
                continue
            contract = load_object(path)
            table.setdefault(contract.name, contract)  # a same-named contract of the user's wins

    @staticmethod
    def _warn_ignored_parser(settings: BaseSettings) -> None:
        """ROBOTSTXT_PARSER is read only by Scrapy's RobotsTxtMiddleware, which the add-on
        disables: say so (once per crawl, as this runs once per crawler) rather than let a
        chosen parser be ignored silently. Scrapy's default and this package's own
        RobotParser (the same engine as the add-on's) are left unsaid."""
        parser = settings.get("ROBOTSTXT_PARSER")
        if not parser or _is(parser, SCRAPY_PARSER) or _is(parser, PARSER):
            return
        logger.warning(
            "ROBOTSTXT_PARSER = %r is not used: with the scrapy_robots_policy add-on, "
            "robots.txt is read by the add-on's own engine (Scrapy's RobotsTxtMiddleware, "
            "which reads ROBOTSTXT_PARSER, is disabled). To use only this package's parser "
            "with Scrapy's middleware, remove the add-on and set "
            "ROBOTSTXT_PARSER = %r", parser, PARSER)

    @staticmethod
    def _take_builtin_place(downloader: dict[Any, Any], settings: BaseSettings) -> int:
        """Disable Scrapy's RobotsTxtMiddleware; return the priority it had."""
        base = settings.getdict("DOWNLOADER_MIDDLEWARES_BASE")
        priority = next((value for key, value in base.items()
                         if _is(key, BUILTIN_DOWNLOADER) and value is not None),
                        BUILTIN_PRIORITY)
        for key in [key for key in downloader if _is(key, BUILTIN_DOWNLOADER)]:
            # The user may have moved it; take its place there.
            value = downloader.pop(key)
            if value is not None:
                priority = value
        downloader[BUILTIN_DOWNLOADER] = None
        return int(priority)

    @staticmethod
    def _set(settings: BaseSettings, name: str, value: dict[Any, Any]) -> None:
        # At the setting's current priority: an "addon" priority would lose against a
        # DOWNLOADER_MIDDLEWARES set in the project's settings, and change nothing.
        settings.set(name, value, priority=settings.getpriority(name) or 0)


def _is(key: Any, path: str) -> bool:
    """Whether a component dict key (import path or class) names the class at ``path``."""
    if isinstance(key, str):
        if key == path:
            return True
        if key.rsplit(".", 1)[-1] != path.rsplit(".", 1)[-1]:
            return False  # cheap: only same-named classes can be the same class
        try:
            key = load_object(key)
        except (ImportError, ValueError, NameError, AttributeError):
            return False
    try:
        return key is load_object(path)  # also through a re-export (contracts/__init__)
    except (ImportError, ValueError, NameError, AttributeError):
        return False
