"""Malformed percent escapes: a rule and a URL spelled alike match, and Google's parser
(the reference) agrees with us on every rule and URL of a small grammar of them, except
where our documented RFC 9309 reading explains it (see tests/robotstxt/test_robotstxt_google.py).

The grammar: "%" at the end, "%" and one hex digit (either case), "%" and a non-hex
character, in the middle and at the end, before "*" and "$", next to whole escapes.
"""

from __future__ import annotations

import itertools

import pytest

from scrapy_robots_policy.robotstxt import RobotsTxt, normalize_path, normalize_pattern
from tests.robotstxt.test_robotstxt_google import google_url, rfc_form

googlebot = pytest.importorskip("jwm.robotstxt.googlebot")

# Pieces of a path: malformed escapes, whole ones, and what may follow them.
PIECES = [
    "%", "%a", "%A", "%2", "%g", "%ag", "%Ag", "%2g", "%aa", "%AA", "%2F", "%25", "%2A",
    "%24", "%41", "x", "a", "*", "$",
]
RULES = sorted(
    {
        "/" + "".join(pieces) + end
        for size in range(3)
        for pieces in itertools.product(PIECES, repeat=size)
        for end in ("", "$")
    }
)
PATHS = sorted(
    {"/" + "".join(pieces) for n in range(3) for pieces in itertools.product(PIECES, repeat=n)}
)


def spelled_alike(rule: str) -> list[str]:
    """URLs written as the rule is: itself (its "*" and "$" literal), without the final
    "$", with each "*" matching nothing."""
    bare = rule[:-1] if rule.endswith("$") else rule
    return sorted({bare, bare.replace("*", "")} | ({rule} if bare == rule else set()))


@pytest.mark.parametrize("rule", [r for r in RULES if "%" in r])
def test_a_rule_matches_the_url_spelled_alike(rule: str) -> None:
    rules = RobotsTxt.parse(f"User-agent: *\nDisallow: {rule}\n")
    matcher = googlebot.RobotsMatcher()
    body = f"User-agent: *\nDisallow: {rule}\n".encode()
    for path in spelled_alike(rule):
        url = "http://example.com" + path
        assert not rules.allowed(url, "FooBot"), (rule, path)
        assert rules.decide(url, "FooBot").line == 2
        # Google, comparing the octets as written, agrees.
        assert not matcher.OneAgentAllowedByRobots(body, "FooBot", google_url(url)), path


def test_malformed_escapes_agree_with_google() -> None:
    matcher = googlebot.RobotsMatcher()
    agreed = explained = 0
    disagreements = []
    for rule in RULES:
        body = f"User-agent: *\nDisallow: {rule}\n".encode()
        normal_body = rfc_form(body)
        ours = RobotsTxt.parse(body)
        for path in PATHS:
            url = "http://example.com" + path
            got = ours.allowed(url, "FooBot")
            if got == matcher.OneAgentAllowedByRobots(body, "FooBot", google_url(url)):
                agreed += 1
                continue
            # Explained only when Google agrees given our reading of both sides.
            normal_url = google_url(rfc_form(url.encode(), url=True).decode())
            if got == matcher.OneAgentAllowedByRobots(normal_body, "FooBot", normal_url):
                explained += 1
            else:
                disagreements.append(f"Disallow: {rule} / {path}: ours allowed={got}")
    print(
        f"malformed escapes: {len(RULES)} rules x {len(PATHS)} paths, {agreed} agree with "
        f"Google, {explained} explained by RFC 9309 percent-encoding, "
        f"{len(disagreements)} disagreements"
    )
    assert agreed > 9 * explained  # the grammar mostly tests agreement, not our reading
    assert not disagreements, "\n".join(disagreements[:20])


@pytest.mark.parametrize("path", PATHS)
def test_one_function_percent_encodes_rules_and_urls(path: str) -> None:
    """Outside "*" and "$", a rule's text and a URL's path normalise alike."""
    if "*" in path or "$" in path:
        return
    assert normalize_pattern(path.encode()) == normalize_path(path)
    assert normalize_path(normalize_path(path)) == normalize_path(path)
