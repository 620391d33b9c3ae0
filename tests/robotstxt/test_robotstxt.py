"""RobotsTxt against the published cases: Google's reference tests, RFC 9309, SPEC.md 3-5.

The cases restate the facts of google/robotstxt's robots_test.cc and of the specification
examples in table form; the expected answers are what Google's parser answers, except
where RFC 9309 percent-encoding is followed on purpose (marked "RFC 9309").
"""

from __future__ import annotations

import pytest

from scrapy_robots_policy.robotstxt import (
    MAX_BYTES,
    MAX_LINE,
    Decision,
    RobotsTxt,
    normalize_path,
    pattern_matches,
    product_token,
)

FOO = "http://foo.bar"


def allowed(body: str | bytes, agent: str, url: str) -> bool:
    return RobotsTxt.parse(body).allowed(url, agent)


# --- matching one pattern ------------------------------------------------------------

PATTERNS = [
    # (pattern, path, matches)
    ("/", "/", True),
    ("/", "/anything", True),
    ("/fish", "/fish", True),
    ("/fish", "/fish.html", True),
    ("/fish", "/fish/salmon.html", True),
    ("/fish", "/fishheads", True),
    ("/fish", "/fish.php?id=anything", True),
    ("/fish", "/Fish.asp", False),
    ("/fish", "/catfish", False),
    ("/fish", "/?id=fish", False),
    ("/fish*", "/fish", True),
    ("/fish*", "/fishheads/yummy.html", True),
    ("/fish*", "/Fish.bar", False),
    ("/fish/", "/fish/", True),
    ("/fish/", "/fish/?salmon", True),
    ("/fish/", "/fish", False),
    ("/fish/", "/fish.html", False),
    ("/*", "/", True),
    ("/*", "/x/y", True),
    ("*", "/x", True),
    ("/*.php", "/filename.php", True),
    ("/*.php", "/folder/filename.php?parameters", True),
    ("/*.php", "//folder/any.php.file.html", True),
    ("/*.php", "/index?f=filename.php/", True),
    ("/*.php", "/php/", False),
    ("/*.php", "/index?php", False),
    ("/*.php", "/windows.PHP", False),
    ("/*.php$", "/filename.php", True),
    ("/*.php$", "/folder/filename.php", True),
    ("/*.php$", "/filename.php?parameters", False),
    ("/*.php$", "/filename.php/", False),
    ("/*.php$", "/filename.php5", False),
    ("/*.php$", "/aaaphpaaa", False),
    ("/fish*.php", "/fish.php", True),
    ("/fish*.php", "/fishheads/catfish.php?parameters", True),
    ("/fish*.php", "/Fish.PHP", False),
    ("/$", "/", True),
    ("/$", "/page.html", False),
    ("/foo/bar$", "/foo/bar", True),
    ("/foo/bar$", "/foo/bar/", False),
    # "$" is special only at the very end; elsewhere it is a literal character.
    ("/a$b", "/a$b", True),
    ("/a$b", "/a", False),
    ("/a$*", "/a$x", True),
    ("/a*$", "/abc", True),
    ("*$", "/", True),
    ("$", "/", False),
    # Paths not starting with "/" can only match through a leading "*".
    ("fish", "/fish", False),
    ("*fish", "/catfish", True),
    # Several wildcards: greedy leftmost placement still finds a later match.
    ("/*a*b$", "/xaxbxb", True),
    ("/*a*b$", "/xaxbxc", False),
    ("/*ab*ab", "/abab", True),
    ("/*ab*ab", "/aab", False),
    ("/**x", "/yx", True),
    ("/a*b*c$", "/abcabc", True),
    ("/a*b*c$", "/acb", False),
]


@pytest.mark.parametrize(("pattern", "path", "expected"), PATTERNS)
def test_pattern_matches(pattern: str, path: str, expected: bool) -> None:
    assert pattern_matches(path, pattern) is expected


# --- normalisation -------------------------------------------------------------------

NORMALIZED = [
    ("/a/b/c", "/a/b/c"),
    ("/foo/bar/ツ", "/foo/bar/%E3%83%84"),
    ("/foo/bar/%e3%83%84", "/foo/bar/%E3%83%84"),
    ("/SanJoséSellers", "/SanJos%C3%A9Sellers"),
    ("/%aa", "/%AA"),
    # RFC 9309 2.2.2 / RFC 3986 2.3: %XX of an unreserved character is the character
    # (Google's parser keeps "%62%61%7A" and "baz" apart).
    ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
    ("/%7Euser/%2d%2E%5f", "/~user/-._"),
    # So is %XX of a character a URI cannot hold raw: "%20" is " ".
    ("/a%20b%7b0%7D%3C%22%60", '/a b{0}<"`'),
    ("/a b|c^", "/a b|c^"),
    # Reserved characters stay escaped: "%2F" is not "/".
    ("/a%2Fb", "/a%2Fb"),
    ("/a%2fb%3f", "/a%2Fb%3F"),
    # A "%" that starts no escape is a literal percent sign...
    ("/100%/", "/100%25/"),
    ("/%zz", "/%25zz"),
    ("/%ag", "/%25ag"),
    # ...but for one with at most one hex digit before the end, a "*" or a "$": kept as
    # written, as a rule keeps it, so that a rule spelled like the URL matches it.
    ("/100%", "/100%"),
    ("/%a", "/%a"),
    ("/%A*x%2", "/%A%2Ax%2"),
    ("/%2$", "/%2%24"),
    ("/?q=http://foo.bar?tar&par", "/?q=http://foo.bar?tar&par"),
    # The pattern symbols, found literally in a URL, compare as their escapes.
    ("/file-*.html", "/file-%2A.html"),
    ("/foo-$", "/foo-%24"),
    ("/a%2a%24", "/a%2A%24"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALIZED)
def test_normalize_path(raw: str, expected: str) -> None:
    assert normalize_path(raw) == expected
    assert normalize_path(expected) == expected


# --- product tokens ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("user_agent", "token"),
    [
        ("FooBot", "foobot"),
        ("Foobot-Bar", "foobot-bar"),
        ("Foo_Bar", "foo_bar"),
        ("MyBot/1.2 (+https://example.com/bot)", "mybot"),
        # The whole name, digits and dots included, up to "/", whitespace, ";", "(" or ")".
        ("MJ12bot/1.0", "mj12bot"),
        ("archive.org_bot", "archive.org_bot"),
        ("  Rule1TestBot;x", "rule1testbot"),
        ("Foo Bar", "foo"),
        ("googlebot*", "googlebot*"),
        ("ツ", "ツ"),
        ("", ""),
        ("*", ""),  # every crawler, no crawler's name
        # Browser-style: the first item after "compatible;" names the crawler.
        ("Mozilla/5.0 (compatible; Googlebot/2.1)", "googlebot"),
        ("Mozilla/5.0 (compatible; MyBot/1.0; +https://x)", "mybot"),
        ("Mozilla/5.0 (compatible;MyBot)", "mybot"),
        ("Mozilla/5.0 (Linux; Android 6.0.1) AppleWebKit/537.36 (KHTML, like Gecko; "
         "compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/1", "googlebot"),
        ("Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0", "mozilla"),
        ("Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1)", "mozilla"),  # a browser
        ("MyBot/1.0 (compatible; OtherBot/2.0)", "mybot"),  # not browser-style
    ],
)
def test_product_token(user_agent: str, token: str) -> None:
    assert product_token(user_agent) == token


# --- line syntax -------------------------------------------------------------------


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview, lambda b: b.decode()])
def test_any_bytes_like_body_or_text_parses_alike(kind) -> None:  # type: ignore[no-untyped-def]
    body = b"User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"
    rules = RobotsTxt.parse(kind(body))
    assert not rules.allowed("https://example.com/private/x", "MyBot")
    assert rules.allowed("https://example.com/public", "MyBot")
    assert rules.crawl_delay("MyBot") == 2


def test_line_syntax_colon_and_google_missing_colon() -> None:
    url = f"{FOO}/x/y"
    assert not allowed("user-agent: FooBot\ndisallow: /\n", "FooBot", url)
    assert allowed("foo: FooBot\nbar: /\n", "FooBot", url)
    # Google-specific: whitespace instead of the colon, when the line has two words.
    assert not allowed("user-agent FooBot\ndisallow /\n", "FooBot", url)
    # Three words and no colon: not a line at all.
    assert allowed("user-agent FooBot\ndisallow / x\n", "FooBot", url)


@pytest.mark.parametrize(
    "key", ["user-agent", "USER-AGENT", "uSeR-aGeNt", "useragent", "user agent"]
)
def test_user_agent_key_spellings(key: str) -> None:
    assert not allowed(f"{key}: FooBot\ndisallow: /\n", "FooBot", f"{FOO}/x")


@pytest.mark.parametrize(
    "key",
    [
        "disallow",
        "DISALLOW",
        "dIsAlLoW",
        "dissallow",
        "dissalow",
        "disalow",
        "diasllow",
        "disallaw",
    ],
)
def test_disallow_key_spellings(key: str) -> None:
    assert not allowed(f"user-agent: FooBot\n{key}: /x\n", "FooBot", f"{FOO}/x/y")


@pytest.mark.parametrize("key", ["allow", "ALLOW", "AlLoW"])
def test_allow_key_case(key: str) -> None:
    body = f"user-agent: FooBot\n{key}: /x/\ndisallow: /\n"
    assert allowed(body, "FooBot", f"{FOO}/x/y")
    assert not allowed(body, "FooBot", f"{FOO}/a/b")


def test_comments_and_whitespace() -> None:
    body = (
        "User-agent: FooBot  # our crawler\n"
        "# Disallow: /\n"
        "  Disallow  :  /foo/quz#qux   \n"
        "\tAllow:/\n"
    )
    assert allowed(body, "FooBot", f"{FOO}/foo/bar")
    assert not allowed(body, "FooBot", f"{FOO}/foo/quz")
    assert RobotsTxt.parse(body).decide(f"{FOO}/foo/quz", "FooBot").line == 3


def test_values_are_case_sensitive() -> None:
    assert not allowed("user-agent: FooBot\ndisallow: /x/\n", "FooBot", f"{FOO}/x/y")
    assert allowed("user-agent: FooBot\ndisallow: /X/\n", "FooBot", f"{FOO}/x/y")


# --- groups ------------------------------------------------------------------------

GROUPS = (
    "allow: /foo/bar/\n"
    "\n"
    "user-agent: FooBot\n"
    "disallow: /\n"
    "allow: /x/\n"
    "user-agent: BarBot\n"
    "disallow: /\n"
    "allow: /y/\n"
    "\n"
    "\n"
    "allow: /w/\n"
    "user-agent: BazBot\n"
    "\n"
    "user-agent: FooBot\n"
    "allow: /z/\n"
    "disallow: /\n"
)


@pytest.mark.parametrize(
    ("agent", "path", "expected"),
    [
        ("FooBot", "/x/b", True),
        ("FooBot", "/z/d", True),  # groups naming the same agent are merged
        ("FooBot", "/y/c", False),
        ("BarBot", "/y/c", True),
        ("BarBot", "/w/a", True),  # a rule after blank lines still belongs to the group
        ("BarBot", "/z/d", False),
        ("BazBot", "/z/d", True),  # BazBot shares FooBot's second group
        # A rule before any user-agent line is ignored.
        ("FooBot", "/foo/bar/", False),
        ("BarBot", "/foo/bar/", False),
        ("BazBot", "/foo/bar/", False),
    ],
)
def test_groups(agent: str, path: str, expected: bool) -> None:
    assert allowed(GROUPS, agent, FOO + path) is expected


@pytest.mark.parametrize(
    "middle",
    ["Sitemap: https://foo.bar/sitemap", "Invalid-Unknown-Line: unknown", "Crawl-delay: 5"],
)
def test_other_lines_do_not_close_the_user_agent_run(middle: str) -> None:
    body = f"User-agent: BarBot\n{middle}\nUser-agent: *\nDisallow: /\n"
    assert not allowed(body, "FooBot", f"{FOO}/")
    assert not allowed(body, "BarBot", f"{FOO}/")


def test_other_lines_inside_a_group_keep_it_open() -> None:
    body = (
        "User-agent: FooBot\n"
        "Disallow: /a\n"
        "Sitemap: http://foo.bar/s.xml\n"
        "Crawl-delay: 3\n"
        "Disallow: /b\n"
        "User-agent: *\n"
        "Disallow: /c\n"
    )
    assert not allowed(body, "FooBot", f"{FOO}/b")
    assert allowed(body, "FooBot", f"{FOO}/c")


def test_empty_rule_still_ends_the_user_agent_run() -> None:
    body = "User-agent: FooBot\nDisallow:\nUser-agent: *\nDisallow: /\n"
    assert allowed(body, "FooBot", f"{FOO}/x")
    assert not allowed(body, "BarBot", f"{FOO}/x")


def test_spec_example_groups() -> None:
    body = (
        "user-agent: a\ndisallow: /c\n\n"
        "user-agent: b\ndisallow: /d\n\n"
        "user-agent: e\nuser-agent: f\ndisallow: /g\n\n"
        "user-agent: h\n"
    )
    rules = RobotsTxt.parse(body)
    assert not rules.allowed("/c", "a") and rules.allowed("/d", "a")
    assert not rules.allowed("/d", "b") and rules.allowed("/c", "b")
    assert not rules.allowed("/g", "e") and not rules.allowed("/g", "f")
    assert rules.allowed("/c", "h") and rules.allowed("/g", "h")


def test_spec_example_merged_groups() -> None:
    body = (
        "user-agent: googlebot-news\ndisallow: /fish\n"
        "user-agent: *\ndisallow: /carrots\n"
        "user-agent: googlebot-news\ndisallow: /shrimp\n"
    )
    rules = RobotsTxt.parse(body)
    assert not rules.allowed("/fish", "googlebot-news")
    assert not rules.allowed("/shrimp", "googlebot-news")
    assert rules.allowed("/carrots", "googlebot-news")
    assert not rules.allowed("/carrots", "otherbot")
    assert rules.allowed("/fish", "otherbot")


def test_most_specific_group_only() -> None:
    body = (
        "user-agent: googlebot-news\ndisallow: /1\n"
        "user-agent: *\ndisallow: /2\n"
        "user-agent: googlebot\ndisallow: /3\n"
    )
    rules = RobotsTxt.parse(body)
    assert [rules.allowed(f"/{n}", "Googlebot-News") for n in (1, 2, 3)] == [False, True, True]
    assert [rules.allowed(f"/{n}", "Googlebot") for n in (1, 2, 3)] == [True, True, False]
    # No group names googlebot-image: the "*" group applies (no fallback chain here).
    assert [rules.allowed(f"/{n}", "Googlebot-Image") for n in (1, 2, 3)] == [True, False, True]
    assert [rules.allowed(f"/{n}", "Otherbot") for n in (1, 2, 3)] == [True, False, True]


def test_global_group_fallback() -> None:
    url = f"{FOO}/x/y"
    assert allowed("", "FooBot", url)
    body = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n"
    assert not allowed(body, "FooBot", url)
    assert allowed(body, "BarBot", url)
    only_specific = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n"
    assert allowed(only_specific, "QuxBot", url)


def test_specific_group_without_rules_allows_everything() -> None:
    body = "user-agent: *\ndisallow: /\n\nuser-agent: FooBot\n"
    assert allowed(body, "FooBot", f"{FOO}/x")
    assert not allowed(body, "BarBot", f"{FOO}/x")


def test_user_agent_values() -> None:
    for value in ("FOO BAR", "foo bar", "FoO bAr"):
        body = f"User-Agent: {value}\nAllow: /x/\nDisallow: /\n"
        for agent in ("Foo", "foo"):
            assert allowed(body, agent, f"{FOO}/x/y")
            assert not allowed(body, agent, f"{FOO}/a/b")
    # Google-specific: the value counts up to the first character outside [a-zA-Z_-].
    body = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
    assert allowed(body, "Foo", f"{FOO}/x/y")
    for value in ("googlebot/1.2", "googlebot*", "Googlebot 2.1"):
        body = f"user-agent: {value}\ndisallow: /\nuser-agent: *\nallow: /\n"
        assert not allowed(body, "googlebot", f"{FOO}/x")


def test_star_group_spellings() -> None:
    # Google-specific: "*" followed by whitespace and more text is still the "*" group.
    assert not allowed("user-agent: * # all\ndisallow: /\n", "FooBot", f"{FOO}/x")
    assert not allowed("user-agent: * all of them\ndisallow: /\n", "FooBot", f"{FOO}/x")
    # "*bot" is no group at all for a named crawler.
    assert allowed("user-agent: *bot\ndisallow: /\n", "FooBot", f"{FOO}/x")


NAMES_WITH_DIGITS = (
    "User-agent: MJ2bot\nDisallow: /mj2\n\n"
    "User-agent: MJ12bot/1.0\nDisallow: /mj12\n\n"
    "User-agent: mj\nDisallow: /mj/\n\n"
    "User-agent: Rule1TestBot\nDisallow: /rule1\n\n"
    "User-agent: Rule3TestBot\nDisallow: /rule3\n\n"
    "User-agent: archive.org_bot\nDisallow: /archive\n\n"
    "User-agent: *\nDisallow: /star\n"
)


@pytest.mark.parametrize(
    ("agent", "disallowed"),
    [
        # Named whole: a crawler whose name holds digits or dots obeys its own group, not
        # its neighbour's; and the group of "mj", its Google cut, merged in.
        ("MJ12bot/1.0", ["/mj/", "/mj12"]),
        ("MJ2bot", ["/mj/", "/mj2"]),
        ("Rule1TestBot", ["/rule1"]),
        ("Rule3TestBot/2.0 (+https://x)", ["/rule3"]),
        ("archive.org_bot", ["/archive"]),
        ("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)", ["/mj/", "/mj12"]),
        # Google's rule: a value counts up to its first character outside [a-zA-Z_-].
        ("mj", ["/mj/", "/mj12", "/mj2"]),
        ("RuleTestBot", ["/star"]),
        ("rule", ["/rule1", "/rule3"]),
        ("archive", ["/archive"]),
        # No group names mj99bot whole: the one naming its cut does.
        ("MJ99bot", ["/mj/"]),
        ("Rule9TestBot", ["/star"]),
    ],
)
def test_names_with_digits_and_dots_get_their_own_group(agent: str, disallowed: list[str]) -> None:
    rules = RobotsTxt.parse(NAMES_WITH_DIGITS)
    paths = ["/mj2", "/mj12", "/mj/", "/rule1", "/rule3", "/archive", "/star"]
    assert sorted(p for p in paths if not rules.allowed(p, agent)) == sorted(disallowed)


def test_a_user_agent_naming_no_crawler_gets_the_star_group() -> None:
    rules = RobotsTxt.parse("User-agent: 12bot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n")
    for agent in ("", "*", "/1.0"):
        assert rules.allowed("/a", agent)
        assert not rules.allowed("/b", agent)
    assert not rules.allowed("/a", "12bot/3")


def test_groups_naming_one_crawler_in_different_forms_merge() -> None:
    body = (
        "User-agent: mj12bot\nDisallow: /a\n\n"
        "User-agent: MJ12bot/1.4\nDisallow: /b\n\n"
        "User-agent: mj12bot # ours\nDisallow: /c\n\n"
        "User-agent: mj12botx\nDisallow: /d\n\n"
        "User-agent: googlebot\nDisallow: /e\n\n"
        "User-agent: googlebot2\nDisallow: /f\n\n"
        "User-agent: Googlebot/2.1\nDisallow: /g\n"
    )
    rules = RobotsTxt.parse(body)

    def disallowed(agent: str) -> list[str]:
        paths = ["/a", "/b", "/c", "/d", "/e", "/f", "/g"]
        return [p for p in paths if not rules.allowed(p, agent)]

    assert disallowed("MJ12bot/1.0") == ["/a", "/b", "/c"]
    # Google's cut makes "googlebot2" and "Googlebot/2.1" name googlebot; "googlebot2",
    # a crawler of its own, obeys the line naming it whole and those naming its cut.
    assert disallowed("Googlebot") == ["/e", "/f", "/g"]
    assert disallowed("googlebot2") == ["/e", "/f", "/g"]
    assert disallowed("googlebot3") == ["/e", "/g"]
    explanation = rules.explain("/b", "MJ12bot/1.0")
    assert (explanation.group, explanation.group_lines) == ("specific", (1, 4, 7))


# The table of README "Which user agent", row for row: (the user-agent line of a group,
# the crawler's token, whether that group applies, a rival group's line that must not).
AGENT_NAME_TABLE = [
    ("User-agent: MJ2bot", "MJ12bot", False, None),
    ("User-agent: Rule3TestBot", "Rule1TestBot", False, None),
    ("User-agent: MJ12bot", "MJ12bot", True, None),
    ("User-agent: archive.org_bot", "archive.org_bot", True, None),
    ("User-agent: Googlebot/2.1", "Googlebot", True, None),
    ("User-agent: hedwig-news", "hedwig-news2", True, "User-agent: hedwig"),
    ("User-agent: Agent2 Agent3", "Agent3", True, None),
    ("User-agent: crawler1 crawler2", "crawler2", True, None),
]


@pytest.mark.parametrize(
    ("line", "token", "applies", "rival"),
    AGENT_NAME_TABLE,
    ids=[f"{line[12:]} for {token}" for line, token, _, _ in AGENT_NAME_TABLE],
)
def test_which_user_agent_lines_name_a_crawler(
    line: str, token: str, applies: bool, rival: str | None
) -> None:
    body = f"User-agent: *\nDisallow: /star\n\n{line}\nDisallow: /named\n"
    if rival is not None:
        body += f"\n{rival}\nDisallow: /rival\n"
    rules = RobotsTxt.parse(body)
    named, star = rules.decide("/named", token), rules.decide("/star", token)
    if applies:
        assert (named.allowed, named.line) == (False, 5)
        assert star.allowed and star.line is None  # a named crawler leaves the "*" group
    else:
        assert named.allowed and named.line is None
        assert (star.allowed, star.line) == (False, 2)
    # The rival ("hedwig" for hedwig-news2) is not merged in, and a full User-Agent
    # header gets the same group as its product token.
    assert rules.allowed("/rival", token)
    assert rules.allowed("/named", token) is not applies
    assert rules.allowed("/named", f"{token}/1.0 (+https://example.com/bot)") is not applies


def test_several_names_on_one_user_agent_line() -> None:
    body = (
        "User-agent: * FooBot\nDisallow: /star\n\n"  # "*" first: the global group only
        "User-agent: BarBot  Yahoo!\tFooBot/2.1 # BazBot\nDisallow: /named\n\n"
        "User-agent: QuxBot\nCrawl-delay: 1\nUser-agent: one two\nCrawl-delay: 2\n"
        "User-agent slow QuxBot\nDisallow: /q\n"  # three words, no colon: no line at all
    )
    rules = RobotsTxt.parse(body)

    def disallowed(agent: str) -> list[str]:
        return [p for p in ("/star", "/named", "/q") if not rules.allowed(p, agent)]

    assert disallowed("FooBot") == ["/named"]
    assert disallowed("barbot") == ["/named"]
    assert disallowed("Yahoo") == ["/named"]  # "yahoo!": Google's cut is the token
    assert disallowed("BazBot") == ["/star"]  # in the comment
    assert disallowed("QuxBot") == ["/q"]
    assert disallowed("slow") == ["/star"]
    assert disallowed("two") == ["/q"]
    assert rules.explain("/named", "FooBot").group_lines == (4,)
    # Each name takes the Crawl-delay after its line, as if it stood alone there.
    assert [rules.crawl_delay(a) for a in ("QuxBot", "one", "two")] == [1.0, 2.0, 2.0]


def test_related_crawlers_do_not_share_groups() -> None:
    body = "user-agent: googlebot-news\ndisallow: /\nuser-agent: googlebot\ndisallow: /g\n"
    rules = RobotsTxt.parse(body)
    assert rules.allowed("/x", "googlebot")
    assert not rules.allowed("/g", "googlebot")
    assert not rules.allowed("/x", "googlebot-news")
    assert rules.allowed("/x", "googlebot-newsy")


@pytest.mark.parametrize(
    "user_agent",
    ["FooBot", "foobot", "FooBot/1.2", "FooBot/1.2 (+https://foo.bar/bot.html)", "FOOBOT 3"],
)
def test_full_user_agent_header_matches_on_product_token(user_agent: str) -> None:
    assert not allowed("user-agent: foobot\ndisallow: /\n", user_agent, f"{FOO}/x")




@pytest.mark.parametrize("line_name", ["ÜberBot", "überbot", "ÜBERBOT/2.0"])
@pytest.mark.parametrize("user_agent", ["ÜberBot", "überbot", "ÜBERBOT/1.0 (+https://x)"])
def test_non_ascii_names_match_in_any_case(line_name: str, user_agent: str) -> None:
    body = (
        "User-agent: other\nCrawl-delay: 1\n"
        f"User-agent: x {line_name}\nCrawl-delay: 3\nDisallow: /\n\n"
        "User-agent: *\nAllow: /\n"
    )
    rules = RobotsTxt.parse(body)
    assert not rules.allowed("/page", user_agent)
    assert rules.crawl_delay(user_agent) == 3  # its own, after its line
    assert rules.allowed("/page", "UberBot")
    assert RobotsTxt.parse(f"User-agent: {line_name}\nDisallow: /\n").decide(
        "/page", user_agent
    ) == Decision(False, 2, "Disallow: /")
# --- precedence --------------------------------------------------------------------

PRECEDENCE = [
    # (body lines after "user-agent: FooBot", url path, allowed)
    ("disallow: /x/page.html\nallow: /x/", "/x/page.html", False),
    ("allow: /x/page.html\ndisallow: /x/", "/x/page.html", True),
    ("allow: /x/page.html\ndisallow: /x/", "/x/", False),
    ("disallow: \nallow: ", "/x/page.html", True),
    ("disallow: /\nallow: /", "/x/page.html", True),
    ("disallow: /x\nallow: /x/", "/x", False),
    ("disallow: /x\nallow: /x/", "/x/", True),
    ("disallow: /x/page.html\nallow: /x/page.html", "/x/page.html", True),
    ("allow: /page\ndisallow: /*.html", "/page.html", False),
    ("allow: /page\ndisallow: /*.html", "/page", True),
    ("allow: /x/page.\ndisallow: /*.html", "/x/page.html", True),
    ("allow: /x/page.\ndisallow: /*.html", "/x/y.html", False),
    ("allow: /p\ndisallow: /", "/page", True),
    ("allow: /folder\ndisallow: /folder", "/folder/page", True),
    ("allow: /page\ndisallow: /*.htm", "/page.htm", False),
    ("allow: /$\ndisallow: /", "/", True),
    ("allow: /$\ndisallow: /", "/page.html", False),
    ("disallow: /foo/bar/quz\nallow: /foo/*/qux", "/foo/bar/quz", False),
    ("disallow: /foo/bar/quz\nallow: /foo/*/qux", "/foo/quz", True),
    ("disallow: /foo/bar/quz\nallow: /foo/*/qux", "/foo//quz", True),
    ("disallow: /foo/bar$\nallow: /foo/bar/qux", "/foo/bar", False),
    ("disallow: /foo/bar$\nallow: /foo/bar/qux", "/foo/bar/qux", True),
    ("disallow: /foo/bar$\nallow: /foo/bar/qux", "/foo/bar/", True),
    ("disallow: /\nallow: /fish", "/bar", False),
    ("disallow: /\nallow: /fish", "/fish.html", True),
    ("disallow: /\nallow: /fish", "/catfish", False),
    ("disallow: /\nallow: /*.php$", "/folder/filename.php", True),
    ("disallow: /\nallow: /*.php$", "/filename.php?parameters", False),
    # Equal length, wildcards included: allow wins the tie.
    ("disallow: /a*\nallow: /ab", "/abc", True),
    ("allow: /a*\ndisallow: /ab", "/abc", True),
    # Priority is the pattern's length as written: "/*" is longer than "/".
    ("allow: /\ndisallow: /*", "/x", False),
    ("allow: /*\ndisallow: /", "/x", True),
    # Encoding on both sides.
    (
        "disallow: /\nallow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par",
        "/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
        True,
    ),
]


@pytest.mark.parametrize(("lines", "path", "expected"), PRECEDENCE)
def test_precedence(lines: str, path: str, expected: bool) -> None:
    assert allowed(f"user-agent: FooBot\n{lines}\n", "FooBot", FOO + path) is expected


def test_most_specific_group_allows_implicitly() -> None:
    body = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n"
    assert allowed(body, "FooBot", f"{FOO}/x/page")
    assert not allowed(body, "FooBot", f"{FOO}/y/page")


def test_index_html_allows_the_directory() -> None:
    body = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n"
    rules = RobotsTxt.parse(body)
    assert rules.allowed("http://foo.com/allowed-slash/", "foobot")
    assert not rules.allowed("http://foo.com/allowed-slash/index.htm", "foobot")
    assert rules.allowed("http://foo.com/allowed-slash/index.html", "foobot")
    assert not rules.allowed("http://foo.com/allowed-slash/other", "foobot")
    assert not rules.allowed("http://foo.com/anyother-url", "foobot")
    assert rules.decide("http://foo.com/allowed-slash/", "foobot") == Decision(
        True, 2, "Allow: /allowed-slash/$"
    )


# --- percent-encoding ----------------------------------------------------------------


@pytest.mark.parametrize("rule", ["/foo/bar/ツ", "/foo/bar/%E3%83%84", "/foo/bar/%e3%83%84"])
@pytest.mark.parametrize("path", ["/foo/bar/ツ", "/foo/bar/%E3%83%84", "/foo/bar/%e3%83%84"])
def test_non_ascii_raw_or_escaped_compare_equal(rule: str, path: str) -> None:
    body = f"User-agent: FooBot\nDisallow: /\nAllow: {rule}\n"
    # Google needs an escaped URL; we escape it ourselves, so both forms work.
    assert allowed(body.encode(), "FooBot", FOO + path)


def test_unreserved_escapes_equal_the_character_rfc9309() -> None:
    body = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n"
    # RFC 9309: both allowed. (Google's parser allows only the escaped form.)
    assert allowed(body, "FooBot", f"{FOO}/foo/bar/baz")
    assert allowed(body, "FooBot", f"{FOO}/foo/bar/%62%61%7A")
    body = "User-agent: FooBot\nDisallow: /~joe/\n"
    assert not allowed(body, "FooBot", f"{FOO}/%7Ejoe/index.html")


def test_escaped_pattern_symbols_match_literally_rfc9309() -> None:
    # RFC 9309 2.2.3: "%2A" and "%24" in a pattern match a literal "*" and "$".
    body = (
        "User-agent: *\n"
        "Disallow: /path/file-with-a-%2A.html\n"
        "Disallow: /path/foo-%24\n"
        "Disallow: /a$b\n"
    )
    rules = RobotsTxt.parse(body)
    assert not rules.allowed("https://www.example.com/path/file-with-a-*.html", "x")
    assert not rules.allowed("https://www.example.com/path/file-with-a-%2a.html", "x")
    assert rules.allowed("https://www.example.com/path/file-with-a-x.html", "x")
    assert not rules.allowed("https://www.example.com/path/foo-$", "x")
    assert not rules.allowed("https://www.example.com/path/foo-%24/more", "x")
    assert rules.allowed("https://www.example.com/path/foo-", "x")
    # A "$" that does not end the pattern is a literal too.
    assert not rules.allowed("/a$b", "x")
    assert not rules.allowed("/a%24b/c", "x")
    assert rules.allowed("/ab", "x")


@pytest.mark.parametrize(
    "rule", ["/sitecore modules/", "/{0}/", '/a"b<c>', "/p|q^r`s", "/sitecore%20modules/"]
)
def test_characters_a_uri_cannot_hold_match_escaped_or_not(rule: str) -> None:
    # Real files write them raw ("Disallow: /sitecore modules/", "/{0}/"); a crawler's
    # URLs carry them escaped: Scrapy sends "/sitecore%20modules/x".
    from scrapy import Request

    rules = RobotsTxt.parse(f"User-agent: *\nDisallow: {rule}\n")
    raw = "http://example.com" + rule.replace("%20", " ") + "x"
    assert Request(raw).url != raw  # Scrapy escapes it
    for url in (raw, Request(raw).url, Request(raw).url.lower()):
        assert not rules.allowed(url, "FooBot"), url
        assert rules.decide(url, "FooBot").line == 2
    assert rules.allowed("http://example.com/sitecoremodules/", "FooBot")


@pytest.mark.parametrize(
    ("rule", "path", "disallowed"),
    [
        # A "%" ending a literal piece starts an escape that the path continues, as in
        # Google's parser (these rules stand in real files: "Disallow: /%", "/*URL%*").
        ("/%", "/%C3%A9t%C3%A9", True),
        ("/%", "/caf", False),
        ("/*%", "/foo%2Fbar", True),
        ("/*URL%*", "/go?URL%3Dhttp", True),
        ("/a%2", "/a%2Fb", True),
        ("/a%2", "/a%3Fb", False),
        # An escape compared as its character is no longer one: "%20" is " ", "%61" "a".
        ("/a%2", "/a%20b", False),
        ("/a%6", "/a%61", False),
        ("*url%2*military", "/x?url%2Fwatches/military", True),
        # Its hex digit compares as written, as for Google: the URL's escapes are in
        # upper case.
        ("/a%c", "/a%C3%A9", False),
        ("/a%C", "/a%c3%a9", True),
        # And a literal "%" (written "%25" in the URL) continues it too.
        ("/100%", "/100%25", True),
        # Before other characters it is a literal percent sign.
        ("/a%zz", "/a%25zz", True),
        ("/a%zz", "/a%zz", True),
        ("/a%zz", "/a%2Fzz", False),
        # Before the final "$" it ends the path as written: the URL spelled alike.
        ("/100%$", "/100%", True),
        ("/100%$", "/100%25", False),
        ("/100%$", "/100%20", False),
    ],
)
def test_a_percent_ending_a_piece_starts_an_escape(rule: str, path: str, disallowed: bool) -> None:
    rules = RobotsTxt.parse(f"User-agent: *\nDisallow: {rule}\n")
    assert rules.allowed(path, "FooBot") is not disallowed


def test_the_robots_txt_uri_is_implicitly_allowed_rfc9309() -> None:
    # RFC 9309 2.2.2, whatever the rules say (Google's parser applies them to it).
    rules = RobotsTxt.parse("User-agent: *\nDisallow: /\nDisallow: /robots.txt$\n")
    for url in ("/robots.txt", "https://example.com/robots.txt", "http://h:8080/robots.txt"):
        assert rules.allowed(url, "FooBot")
        assert rules.decide(url, "FooBot") == Decision(True)  # no rule decided
    assert RobotsTxt.disallow_all().allowed("https://example.com/robots.txt", "FooBot")
    # That URI exactly: the rules govern any other.
    for url in ("/robots.txt?x=1", "/robots.txt;x", "/ROBOTS.TXT", "/robots.txt/", "/a/robots.txt"):
        assert not rules.allowed(url, "FooBot")
        assert rules.decide(url, "FooBot").line == 2
    assert not RobotsTxt.disallow_all().allowed("https://example.com/robots.txt?x", "FooBot")
    allowing = RobotsTxt.parse("User-agent: *\nDisallow: /\nAllow: /robots.txt\n")
    assert allowing.decide("/robots.txt", "FooBot") == Decision(True, 3, "Allow: /robots.txt")


def test_rfc9309_examples() -> None:
    body = (
        "User-Agent: *\n"
        "Disallow: *.gif$\n"
        "Disallow: /example/\n"
        "Allow: /publications/\n"
        "\n"
        "User-Agent: foobot\n"
        "Disallow:/\n"
        "Allow:/example/page.html\n"
        "Allow:/example/allowed.gif\n"
        "\n"
        "User-Agent: barbot\n"
        "User-Agent: bazbot\n"
        "Disallow: /example/page.html\n"
        "\n"
        "User-Agent: quxbot\n"
    )
    rules = RobotsTxt.parse(body)
    expected = {
        "foobot": {"/example/page.html": True, "/example/allowed.gif": True, "/a": False},
        "barbot": {"/example/page.html": False, "/example/other.html": True, "/x.gif": True},
        "bazbot": {"/example/page.html": False, "/publications/": True},
        "quxbot": {"/example/page.html": True, "/x.gif": True, "/": True},
        "otherbot": {
            "/x/y.gif": False,
            "/x/y.gif?z": True,
            "/example/a": False,
            "/publications/a": True,
            "/": True,
        },
    }
    for agent, answers in expected.items():
        for path, answer in answers.items():
            assert rules.allowed(path, agent) is answer, (agent, path)
    longest = RobotsTxt.parse(
        "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n"
    )
    assert longest.allowed("/example/page/", "foobot")
    assert longest.allowed("/example/page/allowed.gif", "foobot")
    assert not longest.allowed("/example/page/disallowed.gif", "foobot")


def test_reserved_escapes_stay_distinct() -> None:
    body = "User-agent: *\nDisallow: /a%2Fb\n"
    assert not allowed(body, "x", "/a%2fb")
    assert allowed(body, "x", "/a/b")


def test_invalid_utf8_is_compared_as_octets() -> None:
    body = b"User-agent: *\nDisallow: /caf\xe9\n"  # Latin-1, not UTF-8
    rules = RobotsTxt.parse(body)
    assert not rules.allowed("/caf%E9/menu", "x")
    assert rules.allowed("/caf%C3%A9/menu", "x")


# --- file format -------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings_and_line_numbers(newline: str) -> None:
    lines = ["User-Agent: foo", "Allow: /some/path", "User-Agent: bar", "", "", "Disallow: /"]
    rules = RobotsTxt.parse(newline.join(lines) + newline)
    assert rules.decide("/x", "bar") == Decision(False, 6, "Disallow: /")
    assert rules.decide("/some/path", "foo") == Decision(True, 2, "Allow: /some/path")
    assert rules.decide("/x", "foo") == Decision(True, None, None)


def test_mixed_line_endings() -> None:
    body = "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /"
    assert RobotsTxt.parse(body).decide("/x", "bar").line == 6
    # "\r\r\n" is two line breaks.
    assert RobotsTxt.parse("User-Agent: bar\r\r\nDisallow: /").decide("/x", "bar").line == 3


@pytest.mark.parametrize(
    ("prefix", "valid"),
    [(b"\xef\xbb\xbf", True), (b"\xef\xbb", True), (b"\xef", True), (b"\xef\x11\xbf", False)],
)
def test_byte_order_mark(prefix: bytes, valid: bool) -> None:
    body = prefix + b"User-Agent: foo\nDisallow: /AnyValue\n"
    assert RobotsTxt.parse(body).allowed("/AnyValue", "foo") is not valid


def test_byte_order_mark_only_at_start() -> None:
    body = b"User-Agent: foo\n\xef\xbb\xbfDisallow: /AnyValue\n"
    assert RobotsTxt.parse(body).allowed("/AnyValue", "foo")


def test_long_lines_are_cut_like_google() -> None:
    # Google keeps MAX_LINE (2083 * 8 - 1) octets of a line and ignores the rest.
    assert MAX_LINE == 16663
    filler = "/x/" + "a" * (MAX_LINE - len("disallow: ") - 3)
    body = f"user-agent: FooBot\ndisallow: {filler}/qux\n"
    rules = RobotsTxt.parse(body)
    assert rules.allowed(f"{FOO}/fux", "FooBot")
    assert not rules.allowed(f"{FOO}{filler}/fux", "FooBot")
    filler_a = "/x/" + "a" * (MAX_LINE - len("allow: ") - 3)
    filler_b = "/x/" + "b" * (MAX_LINE - len("allow: ") - 3)
    body = f"user-agent: FooBot\ndisallow: /\nallow: {filler_a}/qux\nallow: {filler_b}/qux\n"
    rules = RobotsTxt.parse(body)
    assert not rules.allowed(f"{FOO}/", "FooBot")
    assert rules.allowed(f"{FOO}{filler_a}/qux", "FooBot")
    assert rules.allowed(f"{FOO}{filler_b}/fux", "FooBot")


def test_content_past_500_kib_is_ignored() -> None:
    assert MAX_BYTES == 512_000
    head = b"User-agent: *\nDisallow: /early\n"
    padding = b"# " + b"x" * 97 + b"\n"
    body = head + padding * (MAX_BYTES // len(padding))
    body = body[: MAX_BYTES - 1] + b"\n"  # exactly 500 KiB, ending in a line break
    rules = RobotsTxt.parse(body + b"Disallow: /late\n")
    assert not rules.allowed("/early", "x")
    assert rules.allowed("/late", "x")
    # A line cut by the limit is dropped, not read as a shorter rule.
    cut = body[: MAX_BYTES - 20] + b"\n"
    rules = RobotsTxt.parse(cut + b"Disallow: /private/area\n")
    assert rules.allowed("/private/a", "x")
    # Inside the limit, everything counts.
    assert not RobotsTxt.parse(cut + b"Disallow: /p\n").allowed("/p", "x")


def test_nul_ends_a_line_like_googles_c_strings() -> None:
    assert not allowed(b"User-agent: *\nDisallow: /a\x00b\n", "x", "/a")


def test_garbage_and_html_are_skipped() -> None:
    html = b"<html><body>\n<h1>Not found</h1>\n<p>User-agent: nope</p></body></html>\n"
    assert allowed(html, "x", "/")
    junk = bytes(range(256)) * 4 + b"\nUser-agent: *\nDisallow: /j\n"
    assert not allowed(junk, "x", "/j")


def test_str_and_bytes_give_the_same_answers() -> None:
    text = "User-agent: *\nDisallow: /ツ\n"
    assert RobotsTxt.parse(text).allowed("/ツ", "x") is False
    assert RobotsTxt.parse(text.encode()).allowed("/%E3%83%84", "x") is False


# --- urls --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "path_seen"),
    [
        ("", "/"),
        ("http://www.example.com", "/"),
        ("http://www.example.com/", "/"),
        ("http://www.example.com/a", "/a"),
        ("http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"),
        ("http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
        ("example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
        ("example.com?a", "/?a"),
        ("example.com/a;b#c", "/a;b"),
        ("//a/b/c", "/b/c"),
        ("/a", "/a"),
        ("/a?b#c", "/a?b"),
        ("https://user:pw@example.com:8080/p?q", "/p?q"),
    ],
)
def test_url_to_path(url: str, path_seen: str) -> None:
    # Every URL is checked against a rule that matches exactly its expected path.
    rules = RobotsTxt.parse(f"User-agent: *\nDisallow: /\nAllow: {path_seen}$\n")
    assert rules.decide(url, "x").rule == f"Allow: {path_seen}$"


def test_empty_url_means_root() -> None:
    assert not allowed("user-agent: FooBot\ndisallow: /\n", "FooBot", "")
    assert allowed("", "FooBot", "")
    assert allowed("user-agent: FooBot\ndisallow: /\n", "", "")


# --- decide, sitemaps, crawl-delay, fixed outcomes -------------------------------------


def test_decide_reports_the_deciding_line() -> None:
    body = (
        "# header\n"
        "User-agent: *\n"
        "Disallow: /private/\n"
        "Allow: /private/public\n"
        "\n"
        "User-agent: FooBot\n"
        "Disallow: /\n"
    )
    rules = RobotsTxt.parse(body)
    assert rules.decide("/private/x", "BarBot") == Decision(False, 3, "Disallow: /private/")
    assert rules.decide("/private/public/1", "BarBot") == Decision(
        True, 4, "Allow: /private/public"
    )
    assert rules.decide("/open", "BarBot") == Decision(True, None, None)
    assert rules.decide("/open", "FooBot/2.0") == Decision(False, 7, "Disallow: /")


def test_equal_rules_report_the_first_line() -> None:
    body = "User-agent: *\nDisallow: /a\nAllow: /b\nAllow: /a\nAllow: /a\n"
    assert RobotsTxt.parse(body).decide("/a", "x") == Decision(True, 4, "Allow: /a")


def test_wildcard_rules_are_reported_as_written_at_their_first_line() -> None:
    # A matcher keeps a wildcard rule without its pattern: a report reads it again.
    body = (
        "User-agent: *\n"
        "Disallow: /a**b\n"  # 2: "**" matches as "*", but is reported as written
        "Disallow: /a*c\n"
        "Allow: /d/index.html\n"  # 4: also allows "/d/" exactly, at this line
        "Disallow: /d/\n"
        "Disallow: /e*%7e$\n"  # 6: reported normalised, "%7e" is "~"
        "Disallow: /a*c\n"
    )
    rules = RobotsTxt.parse(body)
    for _ in range(2):  # the second report is the one kept
        assert rules.decide("/axxb", "x") == Decision(False, 2, "Disallow: /a**b")
        assert rules.decide("/axc", "x") == Decision(False, 3, "Disallow: /a*c")
        assert rules.decide("/d/", "x") == Decision(True, 4, "Allow: /d/$")
        assert rules.decide("/ex~", "x") == Decision(False, 6, "Disallow: /e*~$")
    matches = rules.explain("/axc/d/", "x").matches
    assert [(r.pattern, r.line) for r in matches] == [("/a*c", 3), ("/a*c", 7)]


def test_explain_lists_group_and_matching_rules() -> None:
    body = "User-agent: a\nUser-agent: *\nDisallow: /x\nAllow: /x/y\nDisallow: /z\n"
    explanation = RobotsTxt.parse(body).explain("/x/y/1", "Other/1.0")
    assert explanation.agent == "other"
    assert explanation.group == "*"
    assert explanation.group_lines == (1, 2)  # both user-agent lines head the group
    assert [(r.allow, r.pattern, r.line) for r in explanation.matches] == [
        (False, "/x", 3),
        (True, "/x/y", 4),
    ]
    assert explanation.decision == Decision(True, 4, "Allow: /x/y")
    specific = RobotsTxt.parse(body + "User-agent: b\nAllow: /\n").explain("/x", "B")
    assert (specific.group, specific.group_lines) == ("specific", (6,))


def test_sitemaps_in_file_order_wherever_they_stand() -> None:
    body = (
        "Sitemap: http://foo.bar/one.xml\n"
        "User-Agent: foo\n"
        "Allow: /some/path\n"
        "sitemap: http://foo.bar/two.xml # comment\n"
        "User-Agent: bar\n"
        "\n"
        "Site-map:   http://foo.bar/three.xml  \n"
        "Sitemap:\n"
    )
    assert RobotsTxt.parse(body).sitemaps == (
        "http://foo.bar/one.xml",
        "http://foo.bar/two.xml",
        "http://foo.bar/three.xml",
    )
    assert RobotsTxt.parse(b"Sitemap: http://foo.bar/caf\xe9.xml").sitemaps == (
        "http://foo.bar/caf%E9.xml",
    )
    assert RobotsTxt.parse("User-agent: *\nDisallow: /\n").sitemaps == ()


def test_crawl_delay_of_the_applying_group() -> None:
    body = (
        "User-agent: *\nCrawl-delay: 10\nDisallow: /x\n"
        "User-agent: slow\nDisallow: /y\ncrawl-delay: 0.5\n"
        "User-agent: bad\nCrawl-delay: soon\n"
        "User-agent: negative\nCrawl-delay: -1\n"
        "User-agent: none\nDisallow: /z\n"
    )
    rules = RobotsTxt.parse(body)
    assert rules.crawl_delay("Other") == 10.0
    assert rules.crawl_delay("Slow/1.0") == 0.5
    assert rules.crawl_delay("bad") is None
    assert rules.crawl_delay("negative") is None
    assert rules.crawl_delay("none") is None
    assert RobotsTxt.parse("").crawl_delay("x") is None
    # A Crawl-delay among the user-agent lines is the one written for the agents above it;
    # its rules are the whole group's.
    among = RobotsTxt.parse("User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n")
    assert among.crawl_delay("a") == 5.0
    assert among.crawl_delay("b") is None
    assert not among.allowed("/x", "a")
    assert not among.allowed("/x", "b")


@pytest.mark.parametrize(
    ("body", "delays"),
    [
        # Each agent takes the Crawl-delay that follows its own user-agent line.
        ("User-agent: one\nCrawl-delay: 1\nUser-agent: two\nCrawl-delay: 2\n",
         {"one": 1.0, "two": 2.0, "three": None}),
        ("User-agent: one\nCrawl-delay: 1\nUser-agent: two\nCrawl-delay: 2\nDisallow: /\n"
         "User-agent: *\nCrawl-delay: 3\n",
         {"one": 1.0, "two": 2.0, "three": 3.0}),
        # User-agent lines sharing one Crawl-delay line all get it.
        ("User-agent: one\nUser-agent: two\nCrawl-delay: 4\nDisallow: /\n",
         {"one": 4.0, "two": 4.0}),
        ("User-agent: one\nUser-agent: *\nCrawl-delay: 4\nDisallow: /\n",
         {"one": 4.0, "three": 4.0}),
        # A "*" line after other lines of the same group: the Crawl-delay after it.
        ("User-agent: one\nCrawl-delay: 1\nUser-agent: *\nCrawl-delay: 5\n",
         {"one": 1.0, "three": 5.0}),
        # Groups merged for one agent: the first value written for it.
        ("User-agent: two\nCrawl-delay: 9\nUser-agent: one\nDisallow: /a\n\n"
         "User-agent: one\nCrawl-delay: 6\nDisallow: /b\n\n"
         "User-agent: one\nCrawl-delay: 7\n",
         {"one": 6.0, "two": 9.0}),
        # Names kept whole: MJ12bot takes its own value, not MJ2bot's.
        ("User-agent: MJ2bot\nCrawl-delay: 1\nUser-agent: MJ12bot\nCrawl-delay: 2\n",
         {"MJ12bot/1.0": 2.0, "mj2bot": 1.0}),
    ],
)
def test_crawl_delay_written_for_each_agent(body: str, delays: dict[str, float | None]) -> None:
    rules = RobotsTxt.parse(body)
    assert {agent: rules.crawl_delay(agent) for agent in delays} == delays


@pytest.mark.parametrize(
    "key", ["crawl delay: ", "Crawl Delay:", "crawldelay: ", "CRAWLDELAY ", "crawldelay\t"]
)
def test_crawl_delay_spelled_without_the_hyphen(key: str) -> None:
    # As "Crawl-delay", per agent: the first after the agent's own user-agent line, among
    # the user-agent lines without ending their run.
    body = (
        f"User-agent: one\n{key}420\nUser-agent: two\n{key}360\nDisallow: /x\n\n"
        f"User-agent: *\n{key}5\n"
    )
    rules = RobotsTxt.parse(body)
    assert [rules.crawl_delay(a) for a in ("one", "two", "three")] == [420.0, 360.0, 5.0]
    assert [rules.allowed("/x", a) for a in ("one", "two", "three")] == [False, False, True]


def test_crawl_delay_spellings_side_by_side_and_no_other_key() -> None:
    body = (
        "User-agent: a\n"
        "crawl delay: 420\n"
        "User-agent: b\n"
        "crawldelay: 360\n"
        "User-agent: c\n"
        "crawl delay 9\n"  # three words without a colon: no line at all
        "crawl delay: /x\n"  # not a rule: a Crawl-delay that is no number
        "Disallow: /y\n"
        "crawl delay: d\n"  # not a user-agent line
        "Disallow: /z\n"
    )
    rules = RobotsTxt.parse(body)
    assert [rules.crawl_delay(a) for a in "abcd"] == [420.0, 360.0, None, None]
    for agent in "abc":
        assert rules.allowed("/x", agent)
        assert not rules.allowed("/y", agent) and not rules.allowed("/z", agent)
    assert rules.allowed("/z", "d")
    assert rules.group_count == 1


def test_allow_all_and_disallow_all() -> None:
    everything = RobotsTxt.allow_all()
    nothing = RobotsTxt.disallow_all()
    for url in ("/", "", "http://foo.bar/", "http://foo.bar/a?b", "/robots.txt?x"):
        for agent in ("FooBot", "", "Googlebot/2.1"):
            assert everything.allowed(url, agent)
            assert not nothing.allowed(url, agent)
    assert nothing.allowed("/robots.txt", "FooBot")  # RFC 9309 2.2.2, whatever the rules
    assert nothing.decide("/", "x") == Decision(False, None, "Disallow: /")
    assert everything.decide("/", "x") == Decision(True, None, None)
    assert everything.sitemaps == nothing.sitemaps == ()
    assert everything.crawl_delay("x") is None


def test_answers_do_not_depend_on_question_order() -> None:
    body = "User-agent: a\nDisallow: /a\nUser-agent: *\nDisallow: /s\n"
    first, second = RobotsTxt.parse(body), RobotsTxt.parse(body)
    questions = [("/a", "a"), ("/s", "a"), ("/a", "b"), ("/s", "b"), ("/s", "A/1.0")]
    answers = [first.allowed(u, ua) for u, ua in questions]
    assert answers == [False, True, True, False, True]
    assert [second.allowed(u, ua) for u, ua in reversed(questions)] == answers[::-1]


def test_group_count_counts_runs_of_user_agent_lines() -> None:
    body = "User-agent: a\nUser-agent: b\nDisallow: /x\n\nUser-agent: c\nSitemap: /s\nAllow: /\n"
    assert RobotsTxt.parse(body).group_count == 2
    assert RobotsTxt.parse("<html><body>Disallow: /</body></html>").group_count == 0


def test_explain_numbers_the_user_agent_lines_of_many_groups() -> None:
    body = "User-agent: *\nDisallow: /\n" + "".join(
        f"User-agent: bot\nUser-agent: other{i}\nDisallow: /{i}\n" for i in range(5_000)
    )
    explanation = RobotsTxt.parse(body).explain("/17/x", "bot")
    assert explanation.group_lines == tuple(
        line for i in range(5_000) for line in (3 + 3 * i, 4 + 3 * i)
    )
    assert [r.line for r in explanation.matches] == [5 + 3 * 1, 5 + 3 * 17]  # "/1", "/17"


def test_forty_thousand_wildcard_rules_on_one_prefix() -> None:
    """Rules sharing a literal prefix by the thousand are indexed; precedence is unchanged."""
    body = "User-agent: *\n" + "".join(f"Disallow: /*q{i}\n" for i in range(40_000))
    rules = RobotsTxt.parse(body)
    kept = body.encode()[:MAX_BYTES]  # the rest is ignored
    count = kept[: kept.rfind(b"\n") + 1].count(b"\n") - 1
    assert rules.allowed("/" + "a" * 2_000, "x")
    assert rules.decide("/a/q7x", "x") == Decision(False, 9, "Disallow: /*q7")
    # "/*q1234" also matches "q12345", but the longer pattern wins.
    assert rules.decide("/q1234-q12345", "x") == Decision(False, 12347, "Disallow: /*q12345")
    assert rules.decide(f"/q{count - 1}", "x").line == count + 1
    assert rules.decide(f"/q{count}", "x").rule == f"Disallow: /*q{str(count)[:-1]}"
    assert rules.allowed("/Q12345", "x")


def test_crowded_rules_keep_allow_on_ties_and_the_earliest_line() -> None:
    lines = [f"Disallow: /*x{i}*.pdf$" for i in range(30)] + [
        "Disallow: /*.pdf$",
        "Allow: /*x7*.pdf$",
        "Disallow: /*x7*.pdf$",
        "Allow: /*x7*.pdf$",
        "Disallow: /a*$",
    ]
    rules = RobotsTxt.parse("User-agent: *\n" + "\n".join(lines) + "\n")
    assert rules.decide("/x7/y.pdf", "x") == Decision(True, 33, "Allow: /*x7*.pdf$")
    assert rules.decide("/x29/y.pdf", "x") == Decision(False, 31, "Disallow: /*x29*.pdf$")
    assert rules.decide("/x29/y.pdf?", "x") == Decision(True, None, None)
    assert rules.decide("/y.pdf", "x") == Decision(False, 32, "Disallow: /*.pdf$")
    assert rules.decide("/a", "x") == Decision(False, 36, "Disallow: /a*$")
    explanation = rules.explain("/x7/x0.pdf", "x")
    assert [r.line for r in explanation.matches] == [2, 9, 32, 33, 34, 35]


def test_crowded_rules_match_star_only_and_long_literal_patterns() -> None:
    long = "L" * 3_000
    lines = [f"Disallow: /*{'*' * i}" for i in range(20)] + [
        f"Allow: /*{long}{i}" for i in range(20)
    ]
    rules = RobotsTxt.parse("User-agent: *\n" + "\n".join(lines) + "\n")
    assert rules.decide("/anything", "x") == Decision(False, 21, "Disallow: /*" + "*" * 19)
    assert rules.decide(f"/a{long}13", "x") == Decision(True, 35, f"Allow: /*{long}13")
    assert not rules.allowed(f"/a{long[1:]}13", "x")


def test_a_crawler_named_with_digits_among_thousands_of_user_agent_lines() -> None:
    """Only the names that are the crawler's token or its cut can name it: found by a
    search, each checked on its line ("x foobot7" names it as a later name; "foobot7x"
    and "a/foobot7" do not)."""
    names = [f"foobot{i}x" for i in range(5_000)] + ["a/foobot7", "x foobot7"]
    body = "User-agent: *\nDisallow: /all\n" + "".join(f"User-agent: {n}\n" for n in names)
    rules = RobotsTxt.parse(body + "Disallow: /named\n")
    assert not rules.allowed("/named", "FooBot7/2.0")
    assert rules.allowed("/named", "FooBot8/2.0") and not rules.allowed("/all", "FooBot8/2.0")
    rules = RobotsTxt.parse(body.replace("x foobot7", "x foobot") + "Disallow: /named\n")
    assert not rules.allowed("/named", "FooBot8/2.0")  # "foobot", its cut, names it
