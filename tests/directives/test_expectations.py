"""What ``@meta_robots TOKEN`` expects of a page's directives, without ``scrapy check``."""

from __future__ import annotations

import pytest

from scrapy_robots_policy.directives import RobotsDirectives
from scrapy_robots_policy.directives.expectations import parse_tokens, unmet


@pytest.mark.parametrize(("tokens", "holds"), [
    (["noindex"], True),
    (["none"], True),
    (["index"], False),
    (["follow"], False),
    (["max-snippet:", "20"], True),
    (["max-snippet:10"], False),
    (["unavailable_after"], False),
    (["noai"], True),
    (["noarchive"], False),
])
def test_tokens_against_directives(tokens: list[str], holds: bool) -> None:
    directives = RobotsDirectives.from_x_robots_tag(
        ["none, max-snippet: 20", "noai", "otherbot: noarchive"], "MyBot")
    why = [unmet(token, directives) for token in parse_tokens(tokens)]
    assert (why == [None]) is holds, why


def test_index_token_fails_once_unavailable_after_has_passed() -> None:
    directives = RobotsDirectives.from_x_robots_tag("unavailable_after: 2001-01-01", "MyBot")
    assert unmet("index", directives) == (
        "not indexable: unavailable_after: 2001-01-01 (from "
        "X-Robots-Tag: unavailable_after: 2001-01-01)")
    assert unmet("unavailable_after", directives) is None
    assert unmet("max-snippet:x", directives) == "max-snippet:x is not a valid value for " \
                                                 "max-snippet"
