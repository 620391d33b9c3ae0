"""RobotsDirectives: parsing of X-Robots-Tag headers and robots meta tags, and combination.

The tables hold every example of SPEC.md section 6 and of the meta-tag seeds
(seeds/000_*, the newest edition, and seeds/001_*).
"""

from __future__ import annotations

import time
import tracemalloc
from datetime import datetime, timedelta, timezone
from html import escape
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parsel import Selector
from scrapy.http import HtmlResponse, Response, TextResponse, XmlResponse

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.directives import HEADER, META, snippet_text
from scrapy_robots_policy.directives import fold as fold_module
from scrapy_robots_policy.directives.per_agent import _VALUE_FIELDS
from scrapy_robots_policy.directives.values import _effect
from scrapy_robots_policy.robotstxt import product_token

UTC = timezone.utc
R = RobotsDirectives


def meta(*tags: tuple[str, str]) -> str:
    heads = "".join(f'<meta name="{name}" content="{content}">' for name, content in tags)
    return f"<html><head>{heads}</head><body><p>text</p></body></html>"


# --- examples of the specification ---------------------------------------------------------

SPEC_HEADER_EXAMPLES = [
    # (header values, user agent, expected)
    (["noindex"], "googlebot", R(noindex=True)),
    (["noindex, nofollow"], "anybot", R(noindex=True, nofollow=True)),
    (["noarchive", "unavailable_after: 25 Jun 2010 15:00:00 PST"], "googlebot",
     R(noarchive=True, unavailable_after=datetime(2010, 6, 25, 23, 0, tzinfo=UTC))),
    (["googlebot: nofollow", "otherbot: noindex, nofollow"], "googlebot", R(nofollow=True)),
    (["googlebot: nofollow", "otherbot: noindex, nofollow"], "otherbot",
     R(noindex=True, nofollow=True)),
    (["googlebot: nofollow", "otherbot: noindex, nofollow"], "thirdbot", R()),
    (["unavailable_after: Saturday, 01-Jul-23 15:00:00 GMT"], "anybot",
     R(unavailable_after=datetime(2023, 7, 1, 15, 0, tzinfo=UTC))),
    (["GoogleBot: NoFollow"], "googlebot", R(nofollow=True)),
]

SPEC_META_EXAMPLES = [
    # (meta tags, user agent, expected)
    ([("robots", "noindex")], "anybot", R(noindex=True)),
    ([("googlebot", "noindex")], "googlebot", R(noindex=True)),
    ([("googlebot", "noindex")], "otherbot", R()),
    ([("googlebot-news", "noindex")], "googlebot-news", R(noindex=True)),
    ([("googlebot-news", "noindex")], "googlebot", R()),
    ([("googlebot", "noindex"), ("googlebot-news", "nosnippet")], "googlebot", R(noindex=True)),
    ([("googlebot", "noindex"), ("googlebot-news", "nosnippet")], "googlebot-news",
     R(nosnippet=True)),
    ([("robots", "max-snippet:20")], "anybot", R(max_snippet=20)),
    ([("robots", "max-image-preview:standard")], "anybot", R(max_image_preview="standard")),
    ([("robots", "max-video-preview:-1")], "anybot", R(max_video_preview=-1)),
    ([("robots", "unavailable_after: 2020-09-21")], "anybot",
     R(unavailable_after=datetime(2020, 9, 21, tzinfo=UTC))),
    ([("robots", "noindex, nofollow")], "anybot", R(noindex=True, nofollow=True)),
    ([("robots", "max-snippet:20, max-image-preview:large")], "anybot",
     R(max_snippet=20, max_image_preview="large")),
    ([("robots", "nofollow"), ("googlebot", "noindex")], "googlebot",
     R(noindex=True, nofollow=True)),
    ([("robots", "nofollow"), ("googlebot", "noindex")], "otherbot", R(nofollow=True)),
    ([("ROBOTS", "NOINDEX")], "anybot", R(noindex=True)),
    ([("GoogleBot", "NoIndex")], "googlebot", R(noindex=True)),
]

DIRECTIVE_EXAMPLES = [
    # every directive of SPEC.md section 6, alone
    ("all", R()),
    ("index, follow", R()),
    ("noindex", R(noindex=True)),
    ("nofollow", R(nofollow=True)),
    ("none", R(noindex=True, nofollow=True)),
    ("noarchive", R(noarchive=True)),
    ("nosnippet", R(nosnippet=True)),
    ("max-snippet:0", R(max_snippet=0, nosnippet=True)),
    ("max-snippet:-1", R(max_snippet=-1)),
    ("max-snippet: 150", R(max_snippet=150)),
    ("max-image-preview:none", R(max_image_preview="none")),
    ("max-image-preview:standard", R(max_image_preview="standard")),
    ("max-image-preview:LARGE", R(max_image_preview="large")),
    ("max-video-preview:0", R(max_video_preview=0)),
    ("max-video-preview:-1", R(max_video_preview=-1)),
    ("notranslate", R(notranslate=True)),
    ("noimageindex", R(noimageindex=True)),
    ("indexifembedded", R(indexifembedded=True)),
    ("unavailable_after: 25 Jun 2010 15:00:00 PST",
     R(unavailable_after=datetime(2010, 6, 25, 23, 0, tzinfo=UTC))),
    # values that do not parse are ignored, the rest of the list still counts
    ("max-snippet:abc, noarchive", R(noarchive=True)),
    ("max-snippet:-5", R()),
    ("max-snippet:1e3", R()),
    ("max-snippet:" + "9" * 5000, R()),
    ("max-image-preview:huge", R()),
    ("max-video-preview:", R()),
    ("unavailable_after: someday, noindex", R(noindex=True)),
    ("unavailable_after:", R()),
    ("noai, noindex", R(noindex=True)),
    (",, ,noindex,,", R(noindex=True)),
]


@pytest.mark.parametrize(("values", "agent", "expected"), SPEC_HEADER_EXAMPLES)
def test_spec_header_examples(values, agent, expected):
    assert R.from_x_robots_tag(values, agent) == expected


@pytest.mark.parametrize(("tags", "agent", "expected"), SPEC_META_EXAMPLES)
def test_spec_meta_examples(tags, agent, expected):
    assert R.from_html(meta(*tags), agent) == expected


@pytest.mark.parametrize(("content", "expected"), DIRECTIVE_EXAMPLES)
def test_each_directive_in_meta_and_header(content, expected):
    assert R.from_html(meta(("robots", content)), "anybot") == expected
    assert R.from_x_robots_tag([content], "anybot") == expected


# --- X-Robots-Tag --------------------------------------------------------------------------


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


# --- dates ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("25 Jun 2010 15:00:00 PST", datetime(2010, 6, 25, 23, 0, tzinfo=UTC)),  # RFC 822 zone
    ("25 Jun 2010 15:00:00 EST", datetime(2010, 6, 25, 20, 0, tzinfo=UTC)),
    ("Fri, 25 Jun 2010 15:00:00 +0200", datetime(2010, 6, 25, 13, 0, tzinfo=UTC)),
    ("Saturday, 01-Jul-23 15:00:00 GMT", datetime(2023, 7, 1, 15, 0, tzinfo=UTC)),  # RFC 850
    ("Saturday 01-Jul-23 15:00:00 GMT", datetime(2023, 7, 1, 15, 0, tzinfo=UTC)),
    ("Sat Jul  1 15:00:00 2023", datetime(2023, 7, 1, 15, 0, tzinfo=UTC)),  # asctime
    ("25 Jun 2010 15:00:00", datetime(2010, 6, 25, 15, 0, tzinfo=UTC)),  # no zone: UTC
    ("25 Jun 2010", datetime(2010, 6, 25, tzinfo=UTC)),
    ("2020-09-21", datetime(2020, 9, 21, tzinfo=UTC)),  # ISO 8601
    ("2020-09-21T10:30:00Z", datetime(2020, 9, 21, 10, 30, tzinfo=UTC)),
    ("2020-09-21T10:30:00z", datetime(2020, 9, 21, 10, 30, tzinfo=UTC)),
    ("2020-09-21T10:30Z", datetime(2020, 9, 21, 10, 30, tzinfo=UTC)),
    ("2020-09-21 10:30:00", datetime(2020, 9, 21, 10, 30, tzinfo=UTC)),
    ("2020-09-21T10:30:00.5+02:00", datetime(2020, 9, 21, 8, 30, 0, 500000, tzinfo=UTC)),
    ("2020-09-21T10:30:00-0500", datetime(2020, 9, 21, 15, 30, tzinfo=UTC)),
    ("2020-09-21T10:30:00.123456789Z", datetime(2020, 9, 21, 10, 30, 0, 123456, tzinfo=UTC)),
    # ISO 8601 basic format (no separators), with and without seconds, fraction and zone
    ("20200921T150000Z", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),
    ("20200921t150000z", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),
    ("20200921T150000", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),  # no zone: UTC
    ("20200921T1500Z", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),
    ("20200921T1500", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),
    ("20200921", datetime(2020, 9, 21, tzinfo=UTC)),
    ("20200921T150000+0200", datetime(2020, 9, 21, 13, 0, tzinfo=UTC)),
    ("20200921T150000-05", datetime(2020, 9, 21, 20, 0, tzinfo=UTC)),
    ("20200921T150000.25Z", datetime(2020, 9, 21, 15, 0, 0, 250000, tzinfo=UTC)),
])
def test_unavailable_after_date_formats(text, expected):
    for directives in (R.from_x_robots_tag([f"unavailable_after: {text}"], "mybot"),
                       R.from_html(meta(("robots", f"unavailable_after: {text}")), "mybot")):
        assert directives.unavailable_after == expected
        assert directives.unavailable_after.tzinfo is not None


@pytest.mark.parametrize("text", [
    "tomorrow", "2020-13-01", "2020-02-30", "31 Feb 2010 10:00:00 GMT", "25 Foo 2010 10:00",
    "9999999999", "", "2020-09-21T25:00:00Z", "x" * 4_000,  # within the 4 KiB read
    # ISO 8601 basic format: an impossible date, time or zone, or basic and extended mixed
    "20201321T150000Z", "20200921T250000Z", "20200921T150000+2500", "20200921150000",
    "20200921T15", "20200921T15:00:00Z", "2020-09-21T150000Z", "2020921T150000Z",
])
def test_unparseable_dates_are_ignored_and_reported(text):
    directives = R.from_x_robots_tag([f"unavailable_after: {text}, noarchive"], "mybot")
    assert directives == R(noarchive=True)
    assert any("unavailable_after" in problem for problem in directives.problems)


# --- combination ---------------------------------------------------------------------------


@pytest.mark.parametrize(("first", "second", "expected"), [
    ("max-snippet:20", "max-snippet:10", R(max_snippet=10)),
    ("max-snippet:-1", "max-snippet:50", R(max_snippet=50)),
    ("max-snippet:50", "max-snippet:-1", R(max_snippet=50)),
    ("max-snippet:-1", "max-snippet:-1", R(max_snippet=-1)),
    ("max-snippet:0", "max-snippet:-1", R(max_snippet=0, nosnippet=True)),
    ("max-video-preview:-1", "max-video-preview:0", R(max_video_preview=0)),
    ("max-image-preview:large", "max-image-preview:none", R(max_image_preview="none")),
    ("max-image-preview:standard", "max-image-preview:large", R(max_image_preview="standard")),
    ("unavailable_after: 2021-01-01", "unavailable_after: 2020-01-01",
     R(unavailable_after=datetime(2020, 1, 1, tzinfo=UTC))),
    ("all", "noindex", R(noindex=True)),
    ("index, follow", "none", R(noindex=True, nofollow=True)),
])
def test_most_restrictive_wins_everywhere(first, second, expected):
    agent = "mybot"
    assert R.from_html(meta(("robots", first), ("mybot", second)), agent) == expected
    assert R.from_html(meta(("mybot", f"{first}, {second}")), agent) == expected
    assert R.from_x_robots_tag([first, f"mybot: {second}"], agent) == expected
    from_header = R.from_x_robots_tag([second], agent)
    from_meta = R.from_html(meta(("robots", first)), agent)
    assert from_meta.combine(from_header) == expected
    assert from_header.combine(from_meta) == expected


def test_combine_values_given_directly():
    assert R().combine(R(noindex=True)) == R(noindex=True)
    assert R(max_snippet=5).combine(R(), R(max_snippet=3, nofollow=True)) == R(
        max_snippet=3, nofollow=True)
    assert R(noindex=True).combine() == R(noindex=True)


def test_headers_and_meta_tags_combine_in_a_response():
    body = meta(("robots", "max-snippet:40, noarchive"), ("mybot", "nofollow"))
    response = HtmlResponse("http://example.com/", body=body.encode(), headers={
        "X-Robots-Tag": ["max-snippet: 30", "otherbot: noindex"]})
    directives = R.from_response(response, "MyBot/1.0")
    assert directives == R(nofollow=True, noarchive=True, max_snippet=30)
    assert {d.source for d in directives.sources} == {HEADER, META}


# --- meta tags in real HTML ----------------------------------------------------------------


@pytest.mark.parametrize(("html", "expected"), [
    # anywhere in the document, any attribute quoting and order
    ("<html><body><p>x</p><meta name=robots content=noindex></body></html>", R(noindex=True)),
    ("<meta content='nofollow' name='ROBOTS'>", R(nofollow=True)),
    ('<meta name=" robots " content="noindex">', R(noindex=True)),
    ('<META NAME="MyBot" CONTENT="NOINDEX">', R(noindex=True)),
    # after </html>: browsers put it in the body; libxml2 2.14 in a second root element
    ('<html><head><title>t</title></head><body><p>x</p></body></html>'
     '<meta name="robots" content="noindex">', R(noindex=True)),
    ("<!-- c --><html><body></body></html>\n<!-- c --><meta name=robots content=nofollow>"
     "<p>more</p><meta name=mybot content=noindex>", R(noindex=True, nofollow=True)),
    # what is not a meta tag does not count
    ("<!-- <meta name=robots content=noindex> -->", R()),
    ("<script>document.write('<meta name=robots content=noindex>')</script>", R()),
    ("<textarea><meta name=robots content=noindex></textarea>", R()),
    ('<meta name="description" content="x &gt; &lt;meta name=robots content=noindex&gt;">',
     R()),
    ('<meta name="description" content="<meta name=robots content=noindex>">', R()),
    ('<meta property="robots" content="noindex">', R()),
    ('<meta name="otherbot" content="noindex">', R()),
    ('<meta name="mybot-news" content="noindex">', R()),
    ('<meta name="robots">', R()),
    # broken and unusual documents
    ('<html><head><meta name="robots" content="noindex"', R()),
    ('<head><meta name="robots" content="noindex"><body><div><p>unclosed', R(noindex=True)),
    ('<meta name="robots" content="noindex"><meta name="robots" content="nofollow">',
     R(noindex=True, nofollow=True)),
    ("", R()),
    ("   ", R()),
])
def test_meta_tags_are_read_by_a_real_parser(html, expected):
    assert R.from_html(html, "MyBot/1.0") == expected


XHTML = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
         b'<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
         b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
         b'<html xmlns="http://www.w3.org/1999/xhtml"><head>'
         b'<meta name="robots" content="noindex" /><meta name="MyBot" content="nofollow" />'
         b"</head><body><p>x</p></body></html>")


def test_xhtml_pages_in_both_parsers():
    expected = R(noindex=True, nofollow=True)
    assert R.from_html(XHTML, "mybot") == expected
    html = HtmlResponse("http://example.com/", body=XHTML,
                        headers={"Content-Type": "application/xhtml+xml"})
    assert R.from_response(html, "mybot") == expected
    # parsed as XML the elements are namespaced: still found
    xml = XmlResponse("http://example.com/", body=XHTML,
                      headers={"Content-Type": "application/xhtml+xml"})
    assert R.from_response(xml, "mybot") == expected


def test_only_html_responses_get_meta_parsing():
    body = meta(("robots", "noindex")).encode()
    headers = {"X-Robots-Tag": "nofollow"}
    assert R.from_response(HtmlResponse("http://e.com/", body=body, headers=headers),
                           "mybot") == R(noindex=True, nofollow=True)
    for cls, content_type in [(TextResponse, "text/plain"), (XmlResponse, "application/xml"),
                              (Response, "application/pdf")]:
        response = cls("http://e.com/x", body=body,
                       headers={**headers, "Content-Type": content_type})
        assert R.from_response(response, "mybot") == R(nofollow=True), cls


def test_html_bytes_with_declared_encoding():
    html = '<meta charset="latin-1"><meta name="robots" content="noindex">é'.encode("latin-1")
    assert R.from_html(html, "mybot") == R(noindex=True)


def test_a_meta_tag_after_the_end_of_the_document_counts_in_a_response():
    body = b"<html><head></head><body><p>x</p></body></html><meta name=robots content=noindex>"
    assert R.from_response(HtmlResponse("http://e.com/", body=body), "mybot") == R(noindex=True)


def test_the_response_is_parsed_once_and_shared_with_the_spider():
    response = HtmlResponse("http://e.com/", body=meta(("robots", "noindex")).encode())
    selector = response.selector
    assert R.from_response(response, "mybot").noindex
    assert response.selector is selector


def test_the_user_agent_is_reduced_to_its_product_token():
    html = meta(("mybot", "noindex"))
    for agent in ("mybot", "MyBot", "MyBot/1.2", "MyBot/1.2 (+http://example.com/bot)",
                  "  mybot"):
        assert R.from_html(html, agent).noindex, agent
    # a browser-style User-Agent names the crawler after "compatible;"
    assert R.from_html(html, "Mozilla/5.0 (compatible; MyBot/1.0; +https://x)").noindex
    assert not R.from_html(html, "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0").noindex
    assert product_token("Scrapy/2.13 (+https://scrapy.org)") == "scrapy"
    assert product_token("") == ""
    assert product_token("123") == "123"


@pytest.mark.parametrize(("agent", "name", "applies"), [
    # the crawler's whole name, digits and dots included, case-insensitively
    ("MJ12bot/1.0", "mj12bot", True),
    ("MJ12bot/1.0", "MJ12BOT", True),
    ("MJ12bot/1.0", "mj", False),
    ("MJ12bot/1.0", "mj99bot", False),
    ("MJ12bot/1.0", "mj12botx", False),
    ("archive.org_bot", "archive.org_bot", True),
    ("archive.org_bot", "archive", False),
    ("mj", "mj12bot", False),
    ("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)", "mj12bot", True),
])
def test_names_are_compared_whole_in_meta_tags_and_headers(agent, name, applies):
    assert R.from_html(meta((name, "noindex")), agent).noindex is applies
    assert R.from_x_robots_tag([f"{name}: noindex"], agent).noindex is applies
    assert R.from_x_robots_tag([f"noarchive, {name}: noindex"], agent).noindex is applies


def test_valued_directives_are_never_taken_for_agents():
    agent = "archive.org_bot"
    assert R.from_x_robots_tag(["max-snippet: 20, archive.org_bot: noindex"], agent) == R(
        max_snippet=20, noindex=True)
    expected = R(unavailable_after=datetime(2023, 7, 1, 15, 0, tzinfo=UTC), noarchive=True)
    for value in ("unavailable_after: 2023-07-01T15:00:00Z, noarchive",
                  "unavailable_after: 2023-07-01T17:00:00+02:00, noarchive",
                  "archive.org_bot: unavailable_after: Sat, 01 Jul 2023 15:00:00 GMT, noarchive"):
        assert R.from_x_robots_tag([value], agent) == expected, value


def test_an_agent_without_product_token_only_sees_robots():
    html = '<meta name="" content="noindex"><meta name="robots" content="nofollow">'
    assert R.from_html(html, "") == R(nofollow=True)
    assert R.from_x_robots_tag([": noindex", "nofollow"], "") == R(nofollow=True)


# --- questions users ask ----------------------------------------------------------------


def test_indexable():
    past = datetime(2020, 1, 1, tzinfo=UTC)
    future = datetime.now(UTC) + timedelta(days=365)
    assert R().indexable()
    assert not R(noindex=True).indexable()
    assert not R(unavailable_after=past).indexable()
    assert R(unavailable_after=future).indexable()
    assert R(unavailable_after=past).indexable(now=datetime(2019, 12, 31, tzinfo=UTC))
    assert not R(unavailable_after=past).indexable(now=datetime(2020, 1, 2))  # naive is UTC
    assert R(nofollow=True, noarchive=True, nosnippet=True).indexable()


def test_provenance_tells_which_directive_from_where():
    response = HtmlResponse(
        "http://e.com/", body=meta(("robots", "nofollow, noarchive"),
                                   ("mybot", "none")).encode(),
        headers={"X-Robots-Tag": ["unavailable_after: 2020-01-01", "mybot: max-snippet: 5"]})
    directives = R.from_response(response, "mybot")
    assert str(directives.why_not_indexable()) == (
        'none (from <meta name="mybot" content="none">)')
    assert str(directives.decided_by("nofollow")) == (
        'nofollow (from <meta name="robots" content="nofollow, noarchive">)')
    assert str(directives.decided_by("max_snippet")) == (
        "max-snippet: 5 (from X-Robots-Tag: mybot: max-snippet: 5)")
    assert directives.decided_by("noimageindex") is None
    expired = R.from_x_robots_tag(["unavailable_after: 2020-01-01"], "mybot")
    assert expired.why_not_indexable().name == "unavailable_after"
    assert R().why_not_indexable() is None


def test_tokens_dict_and_unknown_directives_for_user_code():
    directives = R.from_x_robots_tag(
        ["noindex, max-snippet:20, max-image-preview:standard, noai",
         "unavailable_after: 2020-01-01"], "mybot")
    assert directives.tokens == {"noindex", "max-snippet:20", "max-image-preview:standard",
                                 "unavailable_after:2020-01-01T00:00:00+00:00"}
    assert directives.as_dict() == {"noindex": True, "max_snippet": 20,
                                    "max_image_preview": "standard",
                                    "unavailable_after": "2020-01-01T00:00:00+00:00"}
    assert [d.name for d in directives.others] == ["noai"]
    assert R().as_dict() == {}


def test_value_object_is_immutable():
    with pytest.raises(AttributeError):
        R().noindex = True  # type: ignore[misc]


# --- bad input never raises --------------------------------------------------------------

header_values = st.lists(st.one_of(st.text(max_size=300), st.binary(max_size=300),
                                   st.sampled_from(["noindex", "mybot: nofollow",
                                                    "unavailable_after: Sat, 01", ":", ","])),
                         max_size=6)


@settings(max_examples=300, deadline=None)
@given(values=header_values, agent=st.text(max_size=30))
def test_any_header_values_never_raise(values, agent):
    directives = R.from_x_robots_tag(values, agent)
    assert isinstance(directives.indexable(), bool)
    assert all(isinstance(str(d), str) for d in directives.sources)


@settings(max_examples=200, deadline=None)
@given(html=st.one_of(st.text(max_size=500), st.binary(max_size=500)), agent=st.text(max_size=20))
def test_any_html_never_raises(html, agent):
    directives = R.from_html(html, agent)
    assert isinstance(directives.indexable(), bool)


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=500),
       headers=st.lists(st.binary(min_size=1, max_size=100).filter(lambda b: b"\n" not in b),
                        max_size=4),
       cls=st.sampled_from([HtmlResponse, TextResponse, XmlResponse, Response]))
def test_any_response_never_raises(body, headers, cls):
    response = cls("http://example.com/", body=body, headers={"X-Robots-Tag": headers})
    assert isinstance(R.from_response(response, "mybot").indexable(), bool)


def test_binary_served_as_html_is_reported_not_raised():
    body = bytes(range(256)) * 200
    response = HtmlResponse("http://example.com/", body=body,
                            headers={"Content-Type": "text/html", "X-Robots-Tag": "noindex"})
    assert R.from_response(response, "mybot").noindex


def test_huge_inputs_finish():
    started = time.monotonic()
    R.from_x_robots_tag(["noindex," * 200_000, "mybot: " + "x" * 1_000_000], "mybot")
    R.from_x_robots_tag(["unavailable_after: Sat, " * 50_000], "mybot")
    R.from_html("<meta name=robots content='" + "nofollow, " * 100_000 + "'>", "mybot")
    R.from_html("<div>" * 50_000, "mybot")
    assert time.monotonic() - started < 15  # generous: only "does not hang"


def test_problems_are_bounded():
    directives = R.from_x_robots_tag(["max-snippet:x, " * 10_000], "mybot")
    assert 0 < len(directives.problems) <= 20


# --- data-nosnippet ------------------------------------------------------------------------


@pytest.mark.parametrize(("html", "expected"), [
    # the examples of seeds/000_* (the newest edition)
    ("<p>This text can be shown in a snippet\n <span data-nosnippet>and this part would not "
     "be shown</span>.</p>", "This text can be shown in a snippet ."),
    ('<div data-nosnippet>not in snippet</div><div data-nosnippet="true">also not in snippet'
     "</div><p>shown</p>", "shown"),
    ("<p>before</p><div data-nosnippet>some text</html><p>after the unclosed div</p>",
     "before"),
    ("<mytag data-nosnippet>some text</mytag>", "some text"),  # not span, div or section
    # also: section, nesting, case, and what is never page text
    ("<section DATA-NOSNIPPET>x</section>a<div><span data-nosnippet>y<b>z</b></span>b</div>",
     "ab"),
    ("<head><title>t</title></head><body>a<!-- c -->b<script>s()</script>c</body>", "abc"),
    ("", ""),
])
def test_snippet_text_leaves_out_data_nosnippet(html, expected):
    assert snippet_text(html) == expected
    assert snippet_text(html.encode()) == expected


def test_snippet_text_of_a_response_selector():
    response = HtmlResponse("http://e.com/", body=b"<p>a<span data-nosnippet>b</span>c</p>")
    assert snippet_text(response.selector) == "ac"


@settings(max_examples=100, deadline=None)
@given(html=st.one_of(st.text(max_size=300), st.binary(max_size=300)))
def test_snippet_text_never_raises(html):
    assert isinstance(snippet_text(html), str)


# --- bounded reading of long and many values ---------------------------------------------

JUNK = "a, " * 5330  # 16 KB of one-letter items: 5,000 directives if all were kept


def test_a_directive_at_the_start_of_a_long_value_still_counts():
    for directives in (R.from_x_robots_tag(["noindex, " + JUNK], "mybot"),
                       R.from_x_robots_tag([("mybot: nofollow, " + JUNK).encode()], "mybot"),
                       R.from_html(meta(("robots", "noarchive, " + JUNK)), "mybot")):
        assert directives.noindex or directives.nofollow or directives.noarchive
        assert len(directives.cut) == 1
        assert "4096 characters" in directives.cut[0]


@pytest.mark.parametrize("at", [4090, 4095, 4096])
def test_the_directive_the_cut_falls_in_is_dropped_whole(at):
    # "nofollow" starts at character `at`: cut by the 4,096-character limit, it is
    # ignored rather than read as "nof" (or as nofollow, which the site may not have said)
    head = "noindex," + " " * (at - len("noindex,"))
    directives = R.from_x_robots_tag([head + "nofollow, noarchive"], "mybot")
    assert directives == R(noindex=True)
    assert not directives.problems
    # a value that ends at the limit with a comma is read whole
    assert R.from_x_robots_tag([head[:4088] + "nofollow,x"], "mybot").nofollow


def test_what_one_response_keeps_is_bounded():
    value = "noarchive, " + "max-snippet: z, " * 150 + "x, " * 200 + "nofollow, " + JUNK
    directives = R.from_x_robots_tag([value] * 40, "mybot").combine(
        R.from_html(meta(*[("robots", "noindex, " + JUNK)] * 40), "mybot"))
    assert directives == R(noindex=True, noarchive=True, nofollow=True)
    assert len(directives.sources) <= 64 + 3
    assert len(directives.problems) <= 20
    # the deciding directives are kept even when they come after the first 64
    assert directives.decided_by("nofollow").name == "nofollow"
    assert directives.decided_by("noindex").source == META
    assert max(len(str(d)) for d in directives.sources) < 500
    assert max(len(p) for p in directives.problems) < 500
    assert len(directives.cut) == (32 + 1) * 2  # each value read and cut, each bound reached
    assert sum("not read" in c for c in directives.cut) == len(directives.cut)


def test_values_and_meta_tags_past_the_bound_are_not_read():
    headers = R.from_x_robots_tag(["noarchive"] * 32 + ["noindex"], "mybot")
    assert headers == R(noarchive=True)
    assert headers.cut == ("X-Robots-Tag values after the first 32 not read",)
    tags = R.from_html(meta(*[("robots", "noarchive")] * 32, ("mybot", "noindex")), "mybot")
    assert tags == R(noarchive=True)
    assert tags.cut == ("robots meta tags after the first 32 not read",)
    # other meta tags do not count toward the bound
    page = meta(*[("description", "x")] * 100, ("robots", "noindex"))
    assert R.from_html(page, "mybot") == R(noindex=True)


def python_memory_peak(function):
    """Bytes of Python memory allocated at the peak while ``function`` runs, and its result."""
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        result = function()
        return tracemalloc.get_traced_memory()[1] - start, result
    finally:
        tracemalloc.stop()


def parsed_response(body: bytes) -> HtmlResponse:
    """A response whose selector the spider already built, as the middleware sees it."""
    response = HtmlResponse("http://example.com/", body=body,
                            headers={"Content-Type": "text/html; charset=utf-8"})
    response.selector.root  # noqa: B018
    return response


def test_a_page_of_100_000_robots_meta_tags_costs_what_32_of_them_do():
    body = (b"<html><head>" + b'<meta name="robots" content="noarchive">' * 100_000
            + b'<meta name="robots" content="noindex"></head><body>x</body></html>')
    response = parsed_response(body)
    peak, directives = python_memory_peak(lambda: R.from_response(response, "mybot"))
    assert directives == R(noarchive=True)  # the bound: only the first 32 are read
    assert directives.cut == ("robots meta tags after the first 32 not read",)
    assert peak < 1_000_000  # not a (name, content) pair for each of them: that was 18 MB


def test_a_10_mb_meta_content_is_read_in_part_not_copied_whole():
    content = b"noindex, " + b"x" * 10_000_000
    body = (b'<html><head><meta name="description" content="' + content + b'">'
            b'<meta name="robots" content="' + content + b'"></head><body>x</body></html>')
    response = parsed_response(body)
    peak, directives = python_memory_peak(lambda: R.from_response(response, "mybot"))
    assert directives == R(noindex=True)
    assert directives.cut == ("a robots meta content longer than 4096 characters: the rest "
                              "not read",)
    assert peak < 1_000_000  # the description is not read, the robots content in part


@settings(max_examples=150, deadline=None)
@given(head=st.text(max_size=40), fill=st.sampled_from(["a", ",", " ", "é", "€", "😀", "&amp;"]),
       length=st.integers(4080, 4110), tail=st.text(max_size=40))
def test_meta_contents_read_whole_or_cut_by_libxml2_agree(head, fill, length, tail):
    # from_html knows the document is small and reads contents whole; from_selector does
    # not know, and has libxml2 cut them, as for a page over 1 MiB
    content = escape(head + fill * length + tail, quote=True)
    html = f'<html><head><meta name="robots" content="{content}"></head></html>'
    whole = R.from_html(html, "mybot")
    cut = R.from_selector(Selector(text=html, type="html"), "mybot")
    assert (whole, whole.sources, whole.problems, whole.cut) == (
        cut, cut.sources, cut.problems, cut.cut)


def test_what_one_response_costs_while_it_is_read_is_bounded_too():
    # 32 values of 1,360 one-letter items each: kept until the fold, they were 43,000
    # live (directive, effect) pairs, 12 MB, for the 64 that are kept
    values = ["noarchive, " + "a, " * 1360] * 32
    peak, directives = python_memory_peak(lambda: R.from_x_robots_tag(values, "mybot"))
    assert directives == R(noarchive=True)
    assert len(directives.sources) == 64
    assert peak < 1_000_000


FOLDED_ITEMS = [
    "noindex", "nofollow", "none", "all", "noarchive", "a", "max-snippet: x",
    "max-snippet: 0", "max-snippet: 5", "max-snippet: 20", "max-snippet: -1",
    "max-image-preview: none", "max-image-preview: standard", "max-image-preview: large",
    "max-video-preview: 3", "unavailable_after: 2020-01-01", "unavailable_after: 2019-01-01",
]


MILD_ITEMS = ["a", "all", "noarchive", "max-snippet: x", "max-snippet: 20", "max-snippet: -1",
              "max-image-preview: large", "unavailable_after: 2020-01-01"]


@settings(max_examples=200, deadline=None)
@given(head=st.lists(st.sampled_from(MILD_ITEMS), min_size=40, max_size=100),
       tail=st.lists(st.sampled_from(FOLDED_ITEMS), max_size=60))
def test_sources_are_those_a_fold_of_every_directive_keeps(head, tail):
    # the directives dropped as they are read are those the fold would not keep; the
    # stricter ones mostly come late, past the 64 kept in any case
    value = ", ".join(head + tail)
    directives = R.from_x_robots_tag([value], "mybot")
    with patch.object(fold_module, "_MAX_SOURCES", 10**9):  # where the fold reads it
        every = R.from_x_robots_tag([value], "mybot").sources
    values = {name: getattr(directives, name) for name in _VALUE_FIELDS}
    assert directives.sources == fold_module._kept_sources(
        [(d, _effect(d.name, d.value)) for d in every], values)


def test_response_with_huge_and_many_headers():
    response = HtmlResponse("http://example.com/", body=meta(("robots", "nofollow")).encode(),
                            headers={"X-Robots-Tag": [b"noindex, " + b"\xe2\x82\xac" * 20_000]
                                     + [b"noarchive"] * 100})
    directives = R.from_response(response, "mybot")
    assert directives == R(noindex=True, nofollow=True, noarchive=True)
    assert len(directives.cut) == 2


HOSTILE_HEADERS = [
    # (X-Robots-Tag value, what still applies)
    (b"\xff\xfe\x80noindex", R()),  # invalid UTF-8 glued to a directive
    (b"noarchive, \xc3(, nofollow", R(noarchive=True, nofollow=True)),
    (b"noarchive, \x00noindex", R(noarchive=True)),  # NUL byte
    (b"noarchive, no\x01index", R(noarchive=True)),
    (b"noarchive, max-snippet: 99999999999999999999999999999", R(noarchive=True)),
    (b"noarchive, max-video-preview: -1e999", R(noarchive=True)),
    (b"noarchive, unavailable_after: 9999-12-31T23:59:59-14:00", R(noarchive=True)),
    (b"noarchive, unavailable_after: 0001-01-01T00:00:00+14:00", R(noarchive=True)),
    (b"noarchive, unavailable_after: 1 Jan 99999 00:00:00 GMT", R(noarchive=True)),
    (b"noarchive, unavailable_after: Mon, 31 Dec 9999 23:59:59 -2359", R(noarchive=True)),
    (b"noindex" + b"," * 20_000, R(noindex=True)),  # thousands of commas
    (b"noindex, " + b"x" * 20_000, R(noindex=True)),  # one huge item
    (b"mybot:" * 5_000, R()),
]


@pytest.mark.parametrize(("value", "expected"), HOSTILE_HEADERS)
def test_hostile_header_values_are_reported_never_raised(value, expected):
    response = Response("http://example.com/", headers={"X-Robots-Tag": value})
    directives = R.from_response(response, "mybot")
    assert directives == expected
    assert directives.problems or directives.cut  # something for the stat and the log
    assert all(len(text) < 500 for text in (*directives.problems, *directives.cut))
