"""X-Robots-Tag headers: user-agent prefixes, every value counting, bad bytes."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from scrapy.http import Response

from scrapy_robots_policy import RobotsDirectives

UTC = timezone.utc
R = RobotsDirectives


@pytest.mark.parametrize(("values", "expected"), [
    # a prefix scopes the rest of its value, also mid-list
    (["noindex, mybot: nofollow"], R(noindex=True, nofollow=True)),
    (["noindex, otherbot: nofollow"], R(noindex=True)),
    (["otherbot: noindex, mybot: nofollow"], R(nofollow=True)),
    (["mybot: noindex, otherbot: nofollow, noarchive"], R(noindex=True)),
    (["otherbot: noindex", "nofollow"], R(nofollow=True)),  # the scope ends with its header
    (["mybot:", "noarchive"], R(noarchive=True)),
    (["robots: noindex"], R(noindex=True)),
    # a valued directive is never a user agent, also behind a prefix
    (["max-snippet: 20, unavailable_after: 2020-01-01"],
     R(max_snippet=20, unavailable_after=datetime(2020, 1, 1, tzinfo=UTC))),
    (["mybot: max-snippet: 0"], R(max_snippet=0, nosnippet=True)),
    (["otherbot: max-snippet: 0"], R()),
    (["mybot: unavailable_after: Saturday, 01-Jul-23 15:00:00 GMT, noarchive"],
     R(noarchive=True, unavailable_after=datetime(2023, 7, 1, 15, 0, tzinfo=UTC))),
    (["unavailable_after: Sat, 01 Jul 2023 15:00:00 GMT, otherbot: noindex"],
     R(unavailable_after=datetime(2023, 7, 1, 15, 0, tzinfo=UTC))),
    # a full product token with version still names the crawler
    (["MyBot/2.0: noindex"], R(noindex=True)),
    (["mybot-news: noindex"], R()),
])
def test_header_user_agent_prefixes(values, expected):
    assert R.from_x_robots_tag(values, "MyBot/1.2 (+http://example.com/bot)") == expected


def test_every_header_counts_not_just_the_last():
    response = Response("http://example.com/doc.pdf", headers={
        "X-Robots-Tag": ["noarchive", "mybot: noindex", "nosnippet"]})
    assert R.from_response(response, "mybot") == R(noindex=True, noarchive=True, nosnippet=True)


def test_header_name_is_case_insensitive():
    response = Response("http://example.com/", headers={"x-ROBOTS-tag": "noindex"})
    assert R.from_response(response, "mybot").noindex


def test_a_single_string_is_one_header_value():
    assert R.from_x_robots_tag("noindex, nofollow", "mybot") == R(noindex=True, nofollow=True)
    assert R.from_x_robots_tag(b"noindex", "mybot") == R(noindex=True)


def test_invalid_utf8_header_still_parses_the_rest():
    assert R.from_x_robots_tag([b"\xff\xfe, noindex"], "mybot") == R(noindex=True)
