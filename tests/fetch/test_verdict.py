"""Verdict without a crawl: which line of which group decided, and why a request is refused
when robots.txt could not be had."""

from __future__ import annotations

import pytest

from scrapy_robots_policy.fetch.origin import origin_of
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.fetch.verdict import Verdict
from scrapy_robots_policy.robotstxt import RobotsTxt

BODY = (b"User-agent: *\n"            # line 1
        b"Disallow: /private/\n"      # line 2
        b"Allow: /private/open\n"     # line 3
        b"\n"
        b"User-agent: GPTBot\n"       # line 5
        b"Disallow: /articles/\n"     # line 6
        b"\n"
        b"User-agent: Google-Extended\n"  # line 8
        b"Disallow: /\n")             # line 9
ORIGIN = origin_of("https://example.com/")


def cached(body: bytes | None = BODY, *, unreachable: str | None = None) -> CachedAnswer:
    if unreachable is not None:
        return CachedAnswer(RobotsTxt.disallow_all(), unreachable, 2e9, None)
    rules = RobotsTxt.parse(body) if body is not None else RobotsTxt.allow_all()
    return CachedAnswer(rules, "200" if body is not None else "404: allow all", 2e9, 1e9,
                        body=body)


def verdict(url: str, entry: CachedAnswer | None = None, agent: str = "MyBot/1.0",
            also_obey: tuple[str, ...] = ()) -> Verdict:
    assert ORIGIN is not None
    return Verdict.of(ORIGIN, entry or cached(), url, agent, also_obey)


def test_a_refusal_names_the_disallow_line_and_the_user_agent() -> None:
    said = verdict("https://example.com/private/x")
    assert not said.allowed
    assert (said.line, said.rule) == (2, "Disallow: /private/")
    assert said.reason == ("https://example.com/robots.txt line 2: Disallow: /private/ "
                           "(user agent 'MyBot/1.0')")


def test_the_longest_match_decides_and_an_allow_names_its_line() -> None:
    said = verdict("https://example.com/private/open/1")
    assert said.allowed
    assert (said.line, said.rule) == (3, "Allow: /private/open")


def test_no_rule_matched_is_said_so() -> None:
    said = verdict("https://example.com/public")
    assert said.allowed and said.line is None and said.rule is None
    assert said.reason == "https://example.com/robots.txt: no rule matched (user agent 'MyBot/1.0')"


def test_an_unreachable_robots_txt_refuses_and_says_why() -> None:
    said = verdict("https://example.com/public", cached(unreachable="503"))
    assert not said.allowed and said.line is None
    assert said.unreachable == "503"
    assert said.reason == "https://example.com/robots.txt unreachable (503)"


def test_a_404_allows_with_no_line() -> None:
    said = verdict("https://example.com/private/x", cached(None))
    assert said.allowed and said.line is None and said.unreachable is None


def test_an_also_obeyed_token_that_refuses_is_named_with_its_line() -> None:
    said = verdict("https://example.com/articles/1", also_obey=("GPTBot", "Google-Extended"))
    assert not said.allowed
    assert (said.user_agent, said.line, said.rule) == ("GPTBot", 6, "Disallow: /articles/")
    # the first token that refuses is named, in the order of the setting
    later = verdict("https://example.com/articles/1",
                    also_obey=("Google-Extended", "GPTBot"))
    assert (later.user_agent, later.line) == ("Google-Extended", 9)


def test_an_also_obeyed_token_without_a_group_of_its_own_changes_nothing() -> None:
    # CCBot has no group: the "*" group does not count for it, so it refuses nothing
    said = verdict("https://example.com/articles/1", also_obey=("CCBot",))
    assert said.allowed and said.user_agent == "MyBot/1.0"


def test_the_crawlers_own_refusal_wins_over_the_tokens() -> None:
    said = verdict("https://example.com/private/x", also_obey=("Google-Extended",))
    assert (said.user_agent, said.line) == ("MyBot/1.0", 2)


@pytest.mark.parametrize("agent", ["MyBot/1.0", "GPTBot"])
def test_the_robots_txt_uri_itself_is_always_allowed(agent: str) -> None:
    assert verdict("https://example.com/robots.txt", cached(b"User-agent: *\nDisallow: /\n"),
                   agent).allowed
