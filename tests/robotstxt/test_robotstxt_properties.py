"""Robustness of the robots.txt engine: any input, pathological input, and invariants."""

from __future__ import annotations

import re
import time
from urllib.parse import quote

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scrapy_robots_policy.robotstxt import (
    MAX_BYTES,
    RobotsTxt,
    crowd,
    matcher,
    normalize_path,
    pattern_matches,
    product_token,
)
from scrapy_robots_policy.robotstxt import lines as lines_module
from scrapy_robots_policy.robotstxt import rules as rules_module
from scrapy_robots_policy.robotstxt.patterns import compile_alike, compile_pattern

AGENTS = st.sampled_from(["FooBot", "foobot/1.2 (+http://x)", "*", "", "Other", "\u30c4"])


@settings(max_examples=300, deadline=None)
@given(body=st.binary(max_size=2000), url=st.text(max_size=80), agent=st.text(max_size=20))
@example(body=b"\xef\xbb", url="", agent="")
@example(body=b"User-agent: *\nDisallow: /\xff\x00\r", url="\udcff", agent="\ud800")
def test_any_bytes_parse_and_any_text_queries(body: bytes, url: str, agent: str) -> None:
    rules = RobotsTxt.parse(body)
    decision = rules.decide(url, agent)
    assert decision.allowed is rules.allowed(url, agent)
    assert decision.line is None or decision.line >= 1
    assert all(isinstance(s, str) for s in rules.sitemaps)
    delay = rules.crawl_delay(agent)
    assert delay is None or delay >= 0
    rules.explain(url, agent)


LINE_PARTS = st.tuples(
    st.sampled_from(["", " ", "\t", "\v"]),
    st.sampled_from(
        [
            "User-agent",
            "user agent",
            "useragent",
            "Allow",
            "disallow",
            "Dissalow",
            "Sitemap",
            "Crawl-delay",
            "foo",
            "",
        ]
    ),
    st.sampled_from([":", ": ", " ", " : ", ""]),
    st.text(alphabet="/ab*$%?#:é \t", max_size=12),
    st.sampled_from(["\n", "\r\n", "\r"]),
)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(LINE_PARTS, max_size=25), url=st.text(alphabet="/ab*$%?é", max_size=10))
def test_str_and_utf8_bytes_parse_alike(lines: list[tuple[str, ...]], url: str) -> None:
    text = "".join("".join(parts) for parts in lines)
    from_text, from_bytes = RobotsTxt.parse(text), RobotsTxt.parse(text.encode())
    for agent in ("FooBot", "Other"):
        assert from_text.decide(url, agent) == from_bytes.decide(url, agent)
    assert from_text.sitemaps == from_bytes.sitemaps


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_normalize_path_is_idempotent(path: str) -> None:
    once = normalize_path(path)
    assert once.isascii()
    assert normalize_path(once) == once


@settings(max_examples=200, deadline=None)
@given(
    word=st.text(alphabet=st.characters(min_codepoint=0xA0, max_codepoint=0x2FFF), min_size=1),
    suffix=st.text(alphabet="/abc?=", max_size=5),
)
def test_raw_and_percent_encoded_non_ascii_are_equal(word: str, suffix: str) -> None:
    encoded = quote(word, safe="")
    for rule in (word, encoded, encoded.lower()):
        rules = RobotsTxt.parse(f"User-agent: *\nDisallow: /\nAllow: /{rule}\n".encode())
        for path in (f"/{word}{suffix}", f"/{encoded}{suffix}"):
            assert rules.allowed(path, "x"), (rule, path)


def brute_force(rules: list[tuple[bool, str]], path: str) -> bool:
    """Longest matching pattern wins, allow wins ties: the definition, rule by rule."""
    best: tuple[int, bool] | None = None
    for allow, pattern in rules:
        if pattern_matches(path, pattern):
            candidate = (len(pattern), allow)
            if best is None or candidate > best:
                best = candidate
    return best is None or best[1]


@settings(max_examples=400, deadline=None)
@given(
    rules=st.lists(
        st.tuples(st.booleans(), st.text(alphabet="/ab*$", min_size=1, max_size=6)), max_size=12
    ),
    paths=st.lists(st.text(alphabet="/ab", max_size=8), min_size=1, max_size=8),
)
def test_indexed_matching_equals_brute_force(
    rules: list[tuple[bool, str]], paths: list[str]
) -> None:
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    parsed = RobotsTxt.parse(body)
    for path in paths:
        path = "/" + path
        assert parsed.allowed("http://h" + path, "x") is brute_force(rules, path), path


@settings(max_examples=300, deadline=None)
@given(
    rules=st.lists(
        st.tuples(st.booleans(), st.sampled_from(["/a", "/a$", "/a*", "/a*b", "/*b", "/ab", "*"])),
        max_size=14,
    ),
    path=st.sampled_from(["/a", "/ab", "/abb", "/b", "/ba"]),
)
def test_deciding_line_is_the_earliest_of_the_best_rules(
    rules: list[tuple[bool, str]], path: str
) -> None:
    """Rules sharing a literal prefix (indexed together) still decide as defined:
    longest pattern, then allow, then the earliest line."""
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    matching = [
        (-len(pattern), not allow, line)
        for line, (allow, pattern) in enumerate(rules, 2)
        if pattern_matches(path, pattern)
    ]
    decision = RobotsTxt.parse(body).decide("http://h" + path, "x")
    if not matching:
        assert decision.line is None and decision.allowed
    else:
        _, denied, line = min(matching)
        assert (decision.allowed, decision.line) == (not denied, line)


# Enough rules on a few literal prefixes that they are indexed as a crowd (see crowd.Crowd):
# several "*" and "$", pieces short and long, many sharing the same pieces, star-only.
CROWDED_RULE = st.tuples(
    st.booleans(),
    st.builds(
        "{}{}{}".format,
        st.sampled_from(["/", "/a", "", "/q1"]),
        st.sampled_from(["*", "**", "*a*", "*q1", ""]),
        st.text(alphabet="ab1q*$", max_size=9),
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    rules=st.lists(CROWDED_RULE, min_size=16, max_size=80),
    paths=st.lists(st.text(alphabet="/ab1q", max_size=40), min_size=1, max_size=6),
    probe=st.booleans(),
    spread=st.booleans(),
    sampled=st.booleans(),
    scanned=st.booleans(),
)
def test_crowded_wildcard_index_equals_brute_force(
    rules: list[tuple[bool, str]],
    paths: list[str],
    probe: bool,
    spread: bool,
    sampled: bool,
    scanned: bool,
) -> None:
    """Decision, deciding line and explain's list, against trying every rule in turn;
    with the index's keys found by ``in`` each, or by listing the path's grams; with the
    rules of uncrowded prefixes tried in turn, or in an index of them all; with every
    gram of a piece, or two (the first and the last), as a long piece gives; with each
    question scanned rather than asked of an index."""
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    saved = crowd._PROBE_KEYS, matcher._LINEAR_WORK, matcher._SPREAD_WORK, crowd._MAX_GRAMS
    saved_bulk = rules_module._IN_BULK, crowd._SCANS
    rules_module._IN_BULK = 0  # values filed in passes over them all, however few
    crowd._SCANS = MAX_BYTES if scanned else 0
    # Always the index, never rules tried in turn; its grams found by "in" or by listing.
    crowd._PROBE_KEYS = saved[0] if probe else 0
    matcher._LINEAR_WORK, matcher._SPREAD_WORK = 0, 0 if spread else MAX_BYTES**2
    crowd._MAX_GRAMS = 1 if sampled else saved[3]
    try:
        parsed = RobotsTxt.parse(body)
        for path in paths:
            path = "/" + path
            matching = assert_decided_as_trying_each_rule(parsed, rules, path)
            explained = parsed.explain("http://h" + path, "x").matches
            assert [r.line for r in explained] == sorted(line for _, _, line in matching), path
    finally:
        crowd._PROBE_KEYS, matcher._LINEAR_WORK, matcher._SPREAD_WORK, crowd._MAX_GRAMS = saved
        rules_module._IN_BULK, crowd._SCANS = saved_bulk


# "$" rules whose last piece is shorter or longer than a suffix key (crowd._MAX_SUFFIX),
# among rules sharing their pieces, and paths built to end with one of them.
DOLLAR_RULE = st.tuples(
    st.booleans(),
    st.builds(
        "{}*{}{}".format,
        st.sampled_from(["/", "/", "/a"]),
        st.text(alphabet="ab1", max_size=22),
        st.sampled_from(["$", "", "*b$", "$"]),
    ),
)


@settings(max_examples=200, deadline=None)
@given(
    rules=st.lists(DOLLAR_RULE, min_size=16, max_size=60),
    data=st.data(),
    scanned=st.booleans(),
)
def test_crowded_dollar_rules_equal_brute_force(
    rules: list[tuple[bool, str]], data: st.DataObject, scanned: bool
) -> None:
    """A crowd of "$" rules, short pieces (their suffix is their only key) and long ones
    (the suffix and grams), decides as trying every rule in turn; its questions scanned,
    or asked of its index."""
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    saved = matcher._LINEAR_WORK, matcher._SPREAD_WORK, rules_module._IN_BULK
    saved_scans = crowd._SCANS
    crowd._SCANS = MAX_BYTES if scanned else 0
    matcher._LINEAR_WORK = matcher._SPREAD_WORK = 0  # always an index
    rules_module._IN_BULK = 0  # values filed in passes over them all, however few
    try:
        parsed = RobotsTxt.parse(body)
        for _ in range(4):
            _, pattern = data.draw(st.sampled_from(rules))
            junk = data.draw(st.text(alphabet="ab1", max_size=6))
            path = "/" + junk + pattern.rstrip("$").replace("*", junk)[1:]
            path += data.draw(st.sampled_from(["", "", "b", "1"]))
            assert_decided_as_trying_each_rule(parsed, rules, path)
    finally:
        matcher._LINEAR_WORK, matcher._SPREAD_WORK, rules_module._IN_BULK = saved
        crowd._SCANS = saved_scans


@pytest.mark.parametrize("scans", [0, 8])
def test_a_crowd_scanned_or_indexed_finds_rules_with_no_last_piece(scans: int) -> None:
    """``/*``, ``/a*$`` and ``/b$`` need nothing after their prefix: a scan of the
    path's pieces tries them whatever the path holds, as the index does."""
    rules = [(False, f"/*q{i}") for i in range(40)]
    rules += [(True, "/*"), (False, "/a*$"), (True, "/b$"), (False, "/*q1$")]
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    saved = crowd._SCANS, matcher._LINEAR_WORK
    crowd._SCANS, matcher._LINEAR_WORK = scans, 0  # the crowd's way, never in turn
    try:
        parsed = RobotsTxt.parse(body)
        for path in ("/x", "/a", "/ab", "/b", "/bq1", "/q7", "/xq1", "/q39q1"):
            assert_decided_as_trying_each_rule(parsed, rules, path)
    finally:
        crowd._SCANS, matcher._LINEAR_WORK = saved


def assert_decided_as_trying_each_rule(
    parsed: RobotsTxt, rules: list[tuple[bool, str]], path: str
) -> list[tuple[int, bool, int]]:
    """``parsed`` decides ``path`` as trying each of ``rules`` (allow, pattern; the first
    written at line 2) would: the longest match, then allow, then the earliest line. The
    sort keys of the matching rules."""
    matching = [
        (-len(pattern), not allow, line)
        for line, (allow, pattern) in enumerate(rules, 2)
        if pattern and pattern_matches(path, pattern)  # an empty value is no rule
    ]
    decision = parsed.decide("http://h" + path, "x")
    if not matching:
        assert (decision.allowed, decision.line) == (True, None), path
    else:
        _, denied, line = min(matching)
        assert (decision.allowed, decision.line) == (not denied, line), path
    return matching


# Up to 50 patterns: four literal pieces each (those a pattern's "*" count uses), anchored
# with "$" or not.
PATTERN_PIECES = st.lists(
    st.lists(st.text(alphabet="ab1", max_size=5), min_size=4, max_size=4),
    min_size=8,
    max_size=50,
)
ANCHORS = st.lists(st.booleans(), min_size=50, max_size=50)


@settings(max_examples=200, deadline=None)
@given(
    stars=st.integers(1, 3),
    pieces=PATTERN_PIECES,
    anchors=ANCHORS,
    data=st.data(),
)
def test_rules_alike_filed_together_decide_as_brute_force(
    stars: int, pieces: list[list[str]], anchors: list[bool], data: st.DataObject
) -> None:
    """A group whose patterns have as many "*" each is compiled and filed in one pass
    (``compile_alike``): it decides as trying every rule in turn."""
    patterns = [
        "/" + "*".join(own[: stars + 1]) + ("$" if anchor else "")
        for own, anchor in zip(pieces, anchors, strict=False)
    ]
    assert_decides_as_brute_force(patterns, data)


@settings(max_examples=200, deadline=None)
@given(
    stars=st.lists(st.integers(1, 3), min_size=50, max_size=50),
    pieces=PATTERN_PIECES,
    anchors=ANCHORS,
    data=st.data(),
)
def test_rules_of_several_star_counts_filed_count_by_count_decide_as_brute_force(
    stars: list[int], pieces: list[list[str]], anchors: list[bool], data: st.DataObject
) -> None:
    """A group mixing patterns of one, two and three "*" is filed in one pass per count:
    it decides as trying every rule in turn."""
    patterns = [
        "/" + "*".join(own[: count + 1]) + ("$" if anchor else "")
        for own, count, anchor in zip(pieces, stars, anchors, strict=False)
    ]
    assert_decides_as_brute_force(patterns, data)


def assert_decides_as_brute_force(patterns: list[str], data: st.DataObject) -> None:
    """Every third pattern allows, the others disallow; paths drawn from the patterns are
    decided as trying every rule in turn would, values filed in passes however few."""
    rules = [(n % 3 == 0, pattern) for n, pattern in enumerate(patterns)]
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    saved = rules_module._IN_BULK
    rules_module._IN_BULK = 0  # values filed in passes over them all, however few
    try:
        parsed = RobotsTxt.parse(body)
        for _ in range(4):
            pattern = data.draw(st.sampled_from(patterns))
            junk = data.draw(st.text(alphabet="ab1", max_size=3))
            path = pattern.rstrip("$").replace("*", junk) + data.draw(st.sampled_from(["", "b"]))
            assert_decided_as_trying_each_rule(parsed, rules, path)
    finally:
        rules_module._IN_BULK = saved


# Patterns with as many "*" each (1 to 4), or any patterns.
ALIKE_PATTERNS = st.integers(1, 4).flatmap(
    lambda stars: st.lists(
        st.builds(
            "{}{}".format,
            st.lists(
                st.text(alphabet="/ab", max_size=3), min_size=stars + 1, max_size=stars + 1
            ).map("*".join),
            st.sampled_from(["", "$"]),
        ),
        min_size=1,
        max_size=8,
    )
)
ANY_PATTERNS = st.lists(
    st.builds("{}{}".format, st.text(alphabet="/ab*", max_size=8), st.sampled_from(["", "$"])),
    min_size=1,
    max_size=8,
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(ALIKE_PATTERNS, ANY_PATTERNS))
def test_patterns_cut_together_as_one_by_one(patterns: list[str]) -> None:
    """``compile_alike`` (patterns with as many "*" each, none doubled, cut at once)
    gives what ``compile_pattern`` gives each; with any other pattern among them, nothing."""
    columns = compile_alike(patterns)
    stars = {pattern.count("*") for pattern in patterns}
    if len(stars) > 1 or 0 in stars or any("**" in pattern for pattern in patterns):
        assert columns is None
    else:
        assert columns is not None
        cut = list(zip(*(list(column) for column in columns), strict=True))
        assert cut == [compile_pattern(pattern) for pattern in patterns]


def names_crawler(value: str, token: str) -> bool:
    """README "Which user agent", written out: does the user-agent ``value`` name ``token``?"""

    def cut(name: str) -> str:
        return re.match(r"[a-z_-]*", name).group()  # type: ignore[union-attr]

    names = [name.split("/")[0] for name in value.lower().split("#")[0].split()]
    if not names or names[0] == "*" or not token:
        return False
    return any(
        name and (name == token or cut(name) == token or name == cut(token)) for name in names
    )


AGENT_NAMES = st.sampled_from(
    [
        "MJ12bot",
        "mj12bot/1.0",
        "mj",
        "MJ2bot",
        "hedwig-news",
        "hedwig",
        "Hedwig-News2",
        "agent2",
        "Agent3",
        "archive.org_bot",
        "googlebot*",
        "Yahoo!",
        "12bot",
        "/x",
        "*",
        "#",
        "\u30c4",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    values=st.lists(
        st.lists(AGENT_NAMES, min_size=1, max_size=3).map(" ".join), min_size=1, max_size=6
    ),
    agents=st.lists(AGENT_NAMES, min_size=1, max_size=4),
)
def test_groups_chosen_by_the_user_agent_rule_name_by_name(
    values: list[str], agents: list[str]
) -> None:
    """Every group whose line names the crawler applies (merged), else the "*" groups."""
    body = "".join(f"User-agent: {value}\nDisallow: /g{i}/\n\n" for i, value in enumerate(values))
    rules = RobotsTxt.parse(body)
    for agent in agents:
        token = product_token(agent)
        named = {i for i, value in enumerate(values) if names_crawler(value, token)}
        if not named:
            named = {i for i, value in enumerate(values) if value.split()[0] == "*"}
        refused = {i for i in range(len(values)) if not rules.allowed(f"/g{i}/", agent)}
        assert refused == named, (body, agent)


URL_PIECES = st.lists(
    st.sampled_from(
        [
            "http://",
            "https://",
            "//",
            "a.test",
            "a.test.evil",
            ":8080",
            "/",
            "/p",
            "?q=/p",
            "#f",
            ";x",
            "*",
            "$",
            "%2a",
            "%",
            "é",
        ]
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(urls=st.lists(URL_PIECES.map("".join), min_size=1, max_size=8))
@example(urls=[f"http://a.test/{path}" for path in ("x", "é", "a#f", "p/*", "p/%2a", "a$", "a%")])
def test_questions_in_a_row_answer_like_fresh_ones(urls: list[str]) -> None:
    """The parsed object remembers the last origin; that must never change an answer."""
    body = (
        "User-agent: *\nDisallow: /p\nDisallow: /*x$\nDisallow: /*f$\nDisallow: /%C3%A9\n"
        "Disallow: /a%24\nAllow: /p/%2A\n"
    )
    reused = RobotsTxt.parse(body)
    for url in urls:
        fresh = RobotsTxt.parse(body)
        assert reused.allowed(url, "x") == fresh.allowed(url, "x"), url
        assert reused.decide(url, "x") == fresh.decide(url, "x"), url


@settings(max_examples=300, deadline=None)
@given(
    questions=st.lists(
        st.tuples(
            st.sampled_from(["allowed", "decide"]),
            st.sampled_from(["/p", "/p/x", "/q", "/a$", "/robots.txt", "/x", "/"]),
            st.sampled_from(["FooBot", "Other"]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_a_refusal_read_again_by_decide_is_the_fresh_decision(
    questions: list[tuple[str, str, str]],
) -> None:
    """``decide`` reads the rule ``allowed`` found when it refused the same question
    (the crawler's refusal names that line); any other question must not read it."""
    body = (
        "User-agent: FooBot\nDisallow: /p\nAllow: /p/x\nDisallow: /*$\n"
        "User-agent: *\nDisallow: /q\nDisallow: /a%24\nDisallow: /\nAllow: /x\n"
    )
    reused = RobotsTxt.parse(body)
    for method, path, agent in questions:
        url = "http://a.test" + path
        fresh = RobotsTxt.parse(body)
        assert getattr(reused, method)(url, agent) == getattr(fresh, method)(url, agent)
        assert reused.decide(url, agent) == fresh.decide(url, agent), (method, url, agent)


# --- pathological inputs: each must finish "well under 100 ms"; asserted loosely ---------

SAFE_SECONDS = 1.0


def timed(call) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def test_many_wildcards_against_a_long_url() -> None:
    rules = RobotsTxt.parse("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*b\n")
    url = "/" + "a" * 10_000
    assert timed(lambda: rules.allowed(url, "x")) < SAFE_SECONDS
    assert rules.allowed(url, "x")
    assert not rules.allowed(url + "b", "x")


def test_hundred_thousand_user_agent_lines() -> None:
    head = "User-agent: *\nDisallow: /private\n"
    body = head + "".join(f"User-agent: bot{i}\n" for i in range(100_000))
    assert timed(lambda: RobotsTxt.parse(body).allowed("/private", "bot")) < SAFE_SECONDS
    rules = RobotsTxt.parse(body)
    assert rules.allowed("/private", "bot")  # "bot12" is the token "bot": its group is empty
    assert not rules.allowed("/private", "Other")
    alternating = "".join(f"User-agent: bot\nDisallow: /{i}\n" for i in range(100_000))
    assert timed(lambda: RobotsTxt.parse(alternating).allowed("/x", "bot")) < SAFE_SECONDS
    # Two names a line, 12,119 groups: the second names are indexed on the first question.
    several = "".join(f"User-agent: bot{i} x{i}\nDisallow: /{i}\n" for i in range(100_000))
    assert timed(lambda: RobotsTxt.parse(several).allowed("/x", "bot")) < SAFE_SECONDS
    for agent in ("x", "x5", "bot5"):
        rules = RobotsTxt.parse(several)
        assert timed(lambda: rules.allowed("/x", agent)) < SAFE_SECONDS  # noqa: B023
        assert not rules.allowed("/5", agent)


def test_one_megabyte_line() -> None:
    body = "User-agent: *\nDisallow: /" + "a" * 1_000_000 + "\n"
    assert timed(lambda: RobotsTxt.parse(body).allowed("/aaa", "x")) < SAFE_SECONDS
    assert timed(lambda: RobotsTxt.parse("Disallow: /" + "a" * 1_000_000)) < SAFE_SECONDS


def test_twenty_thousand_rules_in_one_group() -> None:
    body = "User-agent: *\n" + "".join(
        f"Disallow: /s{i}/p-{i * 7919 % 100_000}/d\nAllow: /s{i}/p-{i * 7919 % 100_000}/d/ok\n"
        for i in range(9_000)
    )
    assert len(body.encode()) < MAX_BYTES
    rules = RobotsTxt.parse(body)
    assert timed(lambda: rules.allowed("/s1/x", "x")) < SAFE_SECONDS
    page = 8999 * 7919 % 100_000
    decision = rules.decide(f"/s8999/p-{page}/d/x", "x")
    assert (decision.allowed, decision.line) == (False, 2 + 2 * 8999)
    decision = rules.decide(f"/s8999/p-{page}/d/ok/1", "x")
    assert (decision.allowed, decision.line) == (True, 3 + 2 * 8999)
    assert rules.allowed("/s8999/p-1/d", "x")


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(LINE_PARTS, max_size=25))
def test_values_read_at_c_speed_are_those_of_the_line_by_line_reading(
    lines: list[tuple[str, ...]],
) -> None:
    """The rules builder reads a group's allow, disallow and Crawl-delay values with one
    scanner per key (an item per line); explain and the deciding lines read every line
    with GROUP_LINE: both readings must agree, line for line."""
    text = "".join("".join(parts) for parts in lines)
    data = lines_module.prepare(text).decode("latin-1")
    every = lines_module.GROUP_LINE.findall(data)
    expected = [
        (
            value if allow_key else "",
            value if not allow_key and not delay_key else "",
            value if delay_key else "",
        )
        for allow_key, delay_key, value in (
            (a, d, v.rstrip(lines_module.BLANKS)) for a, d, v in every
        )
    ]
    read = list(
        zip(
            lines_module.ALLOW_VALUE.findall(data),
            lines_module.DISALLOW_VALUE.findall(data),
            lines_module.CRAWL_DELAY_VALUE.findall(data),
            strict=True,
        )
    )
    assert read == expected


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(LINE_PARTS, max_size=25), blank_lines=st.integers(0, 40))
def test_values_read_line_by_line_are_those_read_at_c_speed(
    lines: list[tuple[str, ...]], blank_lines: int
) -> None:
    """A key with few lines in its group is read line by line, one with many with an item
    per line: both readings give every distinct value the offset of its first line."""
    text = "\n" * blank_lines + "".join("".join(parts) for parts in lines)
    data = lines_module.prepare(text).decode("latin-1")
    for every, its in (
        (lines_module.ALLOW_VALUE, lines_module.ALLOW_LINE),
        (lines_module.DISALLOW_VALUE, lines_module.DISALLOW_LINE),
    ):
        dense = rules_module._firsts(data, every, its, dense=True)
        sparse = rules_module._firsts(data, every, its, dense=False)
        dense.pop("", None)
        sparse.pop("", None)  # an empty value, or (dense) a line of another kind
        assert sparse == dense
