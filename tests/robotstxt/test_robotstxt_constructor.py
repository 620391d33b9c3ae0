"""``RobotsTxt(body)`` never answers allow-all: it raises a TypeError pointing at
``RobotsTxt.parse`` (and at ``RobotParser`` for Scrapy's ROBOTSTXT_PARSER), while the
constructions the engine makes itself keep working."""

from __future__ import annotations

import pickle

import pytest

from scrapy_robots_policy import RobotsTxt

BODY = "User-agent: *\nDisallow: /\n"


@pytest.mark.parametrize("body", [BODY, BODY.encode(), b"", "", b"\xff\xfe\x00garbage"])
def test_a_body_given_to_the_constructor_is_a_clear_type_error(body: bytes | str) -> None:
    with pytest.raises(TypeError) as raised:
        RobotsTxt(body)  # type: ignore[arg-type]
    message = str(raised.value)
    assert "RobotsTxt.parse" in message
    assert "scrapy_robots_policy.RobotParser" in message
    assert type(body).__name__ in message


def test_a_body_given_by_keyword_is_refused_too() -> None:
    with pytest.raises(TypeError, match=r"RobotsTxt\.parse"):
        RobotsTxt(data=BODY.encode())


def test_parse_and_the_fixed_outcomes_still_work() -> None:
    assert not RobotsTxt.parse(BODY).allowed("https://example.com/x", "FooBot")
    assert not RobotsTxt.parse(BODY.encode()).allowed("/x", "FooBot")
    assert RobotsTxt.allow_all().allowed("https://example.com/x", "FooBot")
    assert not RobotsTxt.disallow_all().allowed("https://example.com/x", "FooBot")
    assert RobotsTxt().allowed("/x", "FooBot")  # no body, no groups: what a 404 means
    assert RobotsTxt.allow_all().sitemaps == ()


def test_a_parsed_file_survives_pickling() -> None:
    rules = pickle.loads(pickle.dumps(RobotsTxt.parse(BODY)))
    assert not rules.allowed("/x", "FooBot")
