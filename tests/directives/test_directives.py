"""RobotsDirectives: the examples of the specification, combination, the questions users
ask, and bad input that never raises. Headers, meta tags, dates, the read limits and
snippet text have test modules of their own (test_directives_*.py).

The tables hold every example of SPEC.md section 6 and of the meta-tag seeds
(seeds/000_*, the newest edition, and seeds/001_*).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scrapy.http import HtmlResponse, Response, TextResponse, XmlResponse

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.directives import HEADER, META
from tests.directives_pages import meta

UTC = timezone.utc
R = RobotsDirectives


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
    ("noml, noindex", R(noindex=True)),
    ("noai, NOIMAGEAI", R(noai=True, noimageai=True)),
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
        ["noindex, max-snippet:20, max-image-preview:standard, noml",
         "unavailable_after: 2020-01-01"], "mybot")
    assert directives.tokens == {"noindex", "max-snippet:20", "max-image-preview:standard",
                                 "unavailable_after:2020-01-01T00:00:00+00:00"}
    assert directives.as_dict() == {"noindex": True, "max_snippet": 20,
                                    "max_image_preview": "standard",
                                    "unavailable_after": "2020-01-01T00:00:00+00:00"}
    assert [d.name for d in directives.others] == ["noml"]
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


def test_noai_and_noimageai_are_flags_like_the_others():
    directives = R.from_x_robots_tag(["otherbot: noai", "mybot: noimageai"], "MyBot/1.0")
    assert directives == R(noimageai=True)
    assert directives.as_dict() == {"noimageai": True}
    assert str(directives.decided_by("noimageai")) == \
        "noimageai (from X-Robots-Tag: mybot: noimageai)"
    from_meta = R.from_meta([("mybot", "noai"), ("robots", "index")], "mybot")
    assert from_meta.noai and from_meta.tokens == {"noai"}
