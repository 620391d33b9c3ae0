"""The read limits: long and many values, what one response keeps and costs."""

from __future__ import annotations

import tracemalloc
from datetime import timezone
from html import escape
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parsel import Selector
from scrapy.http import HtmlResponse, Response

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.directives import META
from scrapy_robots_policy.directives import fold as fold_module
from scrapy_robots_policy.directives.lists import MAX_VALUE_CHARS
from scrapy_robots_policy.directives.per_agent import _VALUE_FIELDS
from scrapy_robots_policy.directives.values import effect_of
from scrapy_robots_policy.scrapy.internals import SCRAPY_HTML
from tests.directives_pages import meta

UTC = timezone.utc
R = RobotsDirectives


JUNK = "a, " * 5330  # 16 KB of one-letter items: 5,000 directives if all were kept


def test_a_directive_at_the_start_of_a_long_value_still_counts():
    for directives in (R.from_x_robots_tag(["noindex, " + JUNK], "mybot"),
                       R.from_x_robots_tag([("mybot: nofollow, " + JUNK).encode()], "mybot"),
                       R.from_html(meta(("robots", "noarchive, " + JUNK)), "mybot")):
        assert directives.noindex or directives.nofollow or directives.noarchive
        assert len(directives.cut) == 1
        assert f"{MAX_VALUE_CHARS} characters" in directives.cut[0]


def test_the_read_limit_is_the_robots_tag_drafts_floor():
    # draft-illyes-repext-03 section 3.1.1: at least 8 KiB of a field value is read
    assert MAX_VALUE_CHARS >= 8192


@pytest.mark.parametrize("before", [6, 1, 0])
def test_the_directive_the_cut_falls_in_is_dropped_whole(before):
    # "nofollow" starts `before` characters before the limit: cut by it, it is ignored
    # rather than read as "nof" (or as nofollow, which the site may not have said)
    head = "noindex," + " " * (MAX_VALUE_CHARS - before - len("noindex,"))
    directives = R.from_x_robots_tag([head + "nofollow, noarchive"], "mybot")
    assert directives == R(noindex=True)
    assert not directives.problems
    # a value that ends at the limit with a comma is read whole
    assert R.from_x_robots_tag([head[:MAX_VALUE_CHARS - 8] + "nofollow,x"], "mybot").nofollow


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
    """A response whose selector the spider already built, as the middleware sees it
    (through SCRAPY_HTML, which finds that selector)."""
    response = HtmlResponse("http://example.com/", body=body,
                            headers={"Content-Type": "text/html; charset=utf-8"})
    response.selector.root  # noqa: B018
    return response


def test_a_page_of_100_000_robots_meta_tags_costs_what_32_of_them_do():
    body = (b"<html><head>" + b'<meta name="robots" content="noarchive">' * 100_000
            + b'<meta name="robots" content="noindex"></head><body>x</body></html>')
    response = parsed_response(body)
    peak, directives = python_memory_peak(
        lambda: R.from_response(response, "mybot", SCRAPY_HTML))
    assert directives == R(noarchive=True)  # the bound: only the first 32 are read
    assert directives.cut == ("robots meta tags after the first 32 not read",)
    assert peak < 1_000_000  # not a (name, content) pair for each of them: that was 18 MB


def test_a_10_mb_meta_content_is_read_in_part_not_copied_whole():
    content = b"noindex, " + b"x" * 10_000_000
    body = (b'<html><head><meta name="description" content="' + content + b'">'
            b'<meta name="robots" content="' + content + b'"></head><body>x</body></html>')
    response = parsed_response(body)
    peak, directives = python_memory_peak(
        lambda: R.from_response(response, "mybot", SCRAPY_HTML))
    assert directives == R(noindex=True)
    assert directives.cut == (f"a robots meta content longer than {MAX_VALUE_CHARS} "
                              "characters: the rest not read",)
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
    with patch.object(fold_module, "MAX_SOURCES", 10**9):  # where the fold reads it
        every = R.from_x_robots_tag([value], "mybot").sources
    values = {name: getattr(directives, name) for name in _VALUE_FIELDS}
    assert directives.sources == fold_module.kept_sources(
        [(d, effect_of(d.name, d.value)) for d in every], values)


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
