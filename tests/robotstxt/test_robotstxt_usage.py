"""Usage lines in robots.txt (Content-Signal, Content-Usage) and decide_named."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_policy.robotstxt import RobotsTxt, UsageLine
from scrapy_robots_policy.robotstxt.usage import MAX_USAGE_LINES, MAX_USAGE_VALUE

# draft-ietf-aipref-attach-05, section 3.4 (its table of paths is checked below).
ATTACH_EXAMPLE = b"""User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
"""

# The file contentsignals.org publishes (its comment block shortened).
CONTENT_SIGNALS_EXAMPLE = b"""# As a condition of accessing this website, you agree to abide by
# the following content signals: ...
User-Agent: *
Content-Signal: ai-train=no, search=yes, ai-input=yes
Allow: /
"""


def values(rules: RobotsTxt, url: str, agent: str) -> list[tuple[str, str, int]]:
    return [(u.key, u.value, u.line) for u in rules.usage_lines(url, agent)]


def test_attach_draft_example_paths() -> None:
    rules = RobotsTxt.parse(ATTACH_EXAMPLE)
    assert values(rules, "https://example.com/test", "OtherBot") == [
        ("content-usage", "train-ai=n", 4)]
    assert values(rules, "https://example.com/ai-ok/test", "OtherBot") == [
        ("content-usage", "train-ai=y", 5)]
    assert rules.usage_lines("/ai-ok/test", "OtherBot")[0].path == "/ai-ok/"
    # ExampleBot has a group of its own: the * group's lines are not its.
    assert values(rules, "/ai-ok/test", "ExampleBot/2.0 (+https://x)") == [
        ("content-usage", "train-ai=y", 9)]


def test_content_signals_policy_example() -> None:
    rules = RobotsTxt.parse(CONTENT_SIGNALS_EXAMPLE)
    (line,) = rules.usage_lines("/anything", "FooBot")
    assert line == UsageLine("content-signal", "ai-train=no, search=yes, ai-input=yes", 4)
    assert str(line) == "Content-Signal: ai-train=no, search=yes, ai-input=yes"


def test_lines_before_any_group_apply_to_every_agent() -> None:
    rules = RobotsTxt.parse(b"Content-Signal: ai-train=no\n\nUser-agent: GPTBot\n"
                            b"Content-Signal: search=yes\nDisallow: /private\n")
    assert values(rules, "/", "GPTBot") == [
        ("content-signal", "ai-train=no", 1), ("content-signal", "search=yes", 4)]
    # No group for this agent at all: the lines outside groups still apply.
    assert values(rules, "/", "CCBot") == [("content-signal", "ai-train=no", 1)]


def test_a_line_after_a_blank_line_still_belongs_to_its_group() -> None:
    # RFC 9309: a group runs until the next user-agent line; blank lines do not end it.
    rules = RobotsTxt.parse(b"User-agent: GPTBot\nDisallow: /x\n\nContent-Signal: ai-train=no\n"
                            b"User-agent: *\nAllow: /\n")
    assert values(rules, "/", "GPTBot") == [("content-signal", "ai-train=no", 4)]
    assert values(rules, "/", "CCBot") == []


def test_groups_for_the_same_agent_merge_and_the_most_specific_group_wins() -> None:
    rules = RobotsTxt.parse(b"User-agent: *\nContent-Usage: train-ai=n\nAllow: /\n"
                            b"User-agent: FooBot\nContent-Usage: search=y\nAllow: /\n"
                            b"User-agent: BarBot\nDisallow: /\n"
                            b"User-agent: foobot\nContent-Signal: ai-input=no\n")
    assert values(rules, "/", "FooBot") == [
        ("content-usage", "search=y", 5), ("content-signal", "ai-input=no", 10)]
    assert values(rules, "/", "BarBot") == []  # its group has none, * is not merged in
    assert values(rules, "/", "Other") == [("content-usage", "train-ai=n", 2)]


def test_group_boundaries_are_the_engines_own() -> None:
    # For Google a usage line is an unknown line, which does not end a run of user-agent
    # lines: both agents share one group, and so its usage line.
    rules = RobotsTxt.parse(b"User-agent: *\nContent-Signal: ai-train=no\n\n"
                            b"User-agent: GPTBot\nDisallow: /private\n")
    assert values(rules, "/", "GPTBot") == values(rules, "/", "Other") == [
        ("content-signal", "ai-train=no", 2)]
    assert not rules.allowed("/private", "Other")


def test_longest_path_wins_per_key_and_equal_paths_all_apply() -> None:
    rules = RobotsTxt.parse(b"User-agent: *\n"
                            b"Content-Usage: /a/ train-ai=n\n"
                            b"Content-Usage: /a/*.jpg train-ai=y\n"
                            b"Content-Usage: /a/ search=n\n"
                            b"Content-Signal: search=yes\n"
                            b"Content-Usage: /b/x.html$ search=y\n")
    assert values(rules, "/a/b.jpg", "x") == [
        ("content-usage", "train-ai=y", 3), ("content-signal", "search=yes", 5)]
    assert values(rules, "/a/b.html", "x") == [
        ("content-usage", "train-ai=n", 2), ("content-usage", "search=n", 4),
        ("content-signal", "search=yes", 5)]
    assert values(rules, "/b/x.html", "x")[-1] == ("content-usage", "search=y", 6)
    assert values(rules, "/b/x.html?q", "x") == [("content-signal", "search=yes", 5)]


def test_paths_are_percent_normalised_like_allow_and_disallow() -> None:
    rules = RobotsTxt.parse("User-agent: *\nContent-Usage: /caf%c3%a9/ train-ai=n\n")
    assert values(rules, "/café/menu", "x") == [("content-usage", "train-ai=n", 2)]
    assert rules.usage_lines("/cafe/menu", "x") == ()


def test_key_spelling_case_comment_and_blanks() -> None:
    rules = RobotsTxt.parse(b"User-agent: *\n  CONTENT-signal :  search=yes , ai-train=no # c\n"
                            b"content-usage\ttrain-ai=n\n")
    assert values(rules, "/", "x") == [
        ("content-signal", "search=yes , ai-train=no", 2), ("content-usage", "train-ai=n", 3)]


def test_malformed_lines_are_kept_for_the_reader_to_report() -> None:
    rules = RobotsTxt.parse(b"User-agent: *\nContent-Usage:\nContent-Usage: /only-a-path/\n"
                            b"Content-Signal: \xff\xfe=yes\n")
    assert [(u.value, u.path) for u in rules.usage_lines("/only-a-path/x", "x")] == [
        ("", "/only-a-path/"), ("\ufffd\ufffd=yes", None)]
    assert [(u.value, u.line) for u in rules.usage_lines("/", "x")] == [
        ("", 2), ("\ufffd\ufffd=yes", 4)]


def test_huge_values_and_many_lines_are_bounded() -> None:
    value = "train-ai=n, " + "x=y, " * 10_000
    rules = RobotsTxt.parse(f"User-agent: *\nContent-Usage: {value}\n")
    (line,) = rules.usage_lines("/", "x")
    assert line.cut and len(line.value) == MAX_USAGE_VALUE
    many = b"".join(b"Content-Signal: search=yes\n" for _ in range(MAX_USAGE_LINES + 5))
    rules = RobotsTxt.parse(b"User-agent: *\n" + many)
    assert len(rules.usage_lines("/", "x")) == MAX_USAGE_LINES
    assert rules.usage_lines_unread == 5


def test_files_without_usage_lines_and_the_fixed_outcomes() -> None:
    assert RobotsTxt.parse(b"User-agent: *\nDisallow: /a\n").usage_lines("/", "x") == ()
    assert RobotsTxt.allow_all().usage_lines("/", "x") == ()
    assert RobotsTxt.disallow_all().usage_lines("/", "x") == ()
    # Usage lines change nothing about crawling.
    rules = RobotsTxt.parse(b"User-agent: *\nContent-Usage: /a train-ai=n\nDisallow: /b\n")
    assert rules.allowed("/a", "x") and not rules.allowed("/b", "x")


def test_decide_named_reads_only_groups_naming_the_token() -> None:
    rules = RobotsTxt.parse(b"User-agent: *\nDisallow: /\n\n"
                            b"User-agent: GPTBot\nAllow: /public\nDisallow: /\n\n"
                            b"User-agent: Google-Extended\nDisallow: /news/\n")
    decision = rules.decide_named("https://example.com/news/1", "GPTBot")
    assert decision is not None and not decision.allowed and decision.line == 6
    public = rules.decide_named("/public/a", "GPTBot")
    assert public is not None and public.allowed and public.line == 5
    extended = rules.decide_named("/news/1", "Google-Extended")
    assert extended is not None and not extended.allowed and extended.line == 9
    assert rules.decide_named("/news/1", "CCBot") is None  # only * would apply
    assert rules.decide_named("/news/1", "*") is None
    assert RobotsTxt.disallow_all().decide_named("/", "GPTBot") is None
    # Asking changes no other answer.
    assert not rules.allowed("/public/a", "CCBot") and rules.allowed("/public/a", "GPTBot")


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=1500), url=st.text(max_size=40), agent=st.text(max_size=12))
def test_any_bytes_give_bounded_usage_lines(body: bytes, url: str, agent: str) -> None:
    rules = RobotsTxt.parse(b"Content-Usage: /a train-ai=n\nUser-agent: *\n" + body)
    for usage in rules.usage_lines(url, agent):
        assert usage.key in ("content-signal", "content-usage")
        assert usage.line >= 1 and len(usage.value) <= MAX_USAGE_VALUE
    rules.decide_named(url, agent)
