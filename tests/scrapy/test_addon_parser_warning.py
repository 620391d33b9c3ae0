"""The add-on's one WARNING about a ROBOTSTXT_PARSER it does not use, at the settings level:
values given as classes or through another import path are recognised, and a path that
does not import is warned about, never raised on."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy.robotstxt import ProtegoRobotParser, PythonRobotParser
from scrapy.settings import Settings

from scrapy_robots_policy import RobotParser
from scrapy_robots_policy.scrapy.addon import Addon


def warnings_for(caplog: pytest.LogCaptureFixture, parser: Any) -> list[str]:
    settings = Settings()
    if parser is not None:
        settings.set("ROBOTSTXT_PARSER", parser, priority="project")
    with caplog.at_level("WARNING", logger="scrapy_robots_policy.addon"):
        Addon().update_settings(settings)
    return [r.getMessage() for r in caplog.records if "ROBOTSTXT_PARSER" in r.getMessage()]


@pytest.mark.parametrize("parser", [
    None, "scrapy.robotstxt.ProtegoRobotParser", ProtegoRobotParser,
    "scrapy_robots_policy.RobotParser", "scrapy_robots_policy.scrapy.robotparser.RobotParser",
    RobotParser,
])
def test_scrapys_default_and_our_own_parser_are_not_warned_about(
        caplog: pytest.LogCaptureFixture, parser: Any) -> None:
    assert warnings_for(caplog, parser) == []


@pytest.mark.parametrize("parser", [
    "scrapy.robotstxt.PythonRobotParser", PythonRobotParser, "scrapy_robots_policy.RobotsTxt",
    "no.such.module.RobotParser",  # same class name as ours: imported to compare, and fails
])
def test_another_parser_gets_one_warning_naming_robotparser(
        caplog: pytest.LogCaptureFixture, parser: Any) -> None:
    (message,) = warnings_for(caplog, parser)
    assert repr(parser) in message
    assert "is not used" in message
    assert "ROBOTSTXT_PARSER = 'scrapy_robots_policy.RobotParser'" in message
