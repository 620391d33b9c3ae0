"""Robots-Tag (draft-illyes-repext-03): the draft's own examples, the union of the rules for
``*`` and the crawler, with X-Robots-Tag and meta tags, the 8 KiB limit, malformed fields."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scrapy.http import HtmlResponse, Response

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.directives import ROBOTS_TAG, robots_tag_for_others
from scrapy_robots_policy.directives.lists import MAX_VALUE_CHARS
from tests.directives_pages import meta

UTC = timezone.utc
R = RobotsDirectives
EXAMPLE = "ExampleBot/1.0 (+https://example.com/bot)"
OTHER = "OtherBot/2.0"


# --- the draft's examples ----------------------------------------------------------------


def test_draft_03_header_example():
    # Section 3.1.1: "*" = [nosnippet]; "ExampleBot" = [noindex, nosnippet]
    field = "*;nosnippet, ExampleBot;noindex"
    assert R.from_robots_tag(field, EXAMPLE) == R(noindex=True, nosnippet=True)
    assert R.from_robots_tag(field, OTHER) == R(nosnippet=True)


def test_draft_03_meta_example():
    # Section 3.1.2: the rules of the robots tag and of the crawler's own tag, united
    page = meta(("robots", "noindex"), ("examplebot", "nosnippet"))
    assert R.from_html(page, EXAMPLE) == R(noindex=True, nosnippet=True)
    assert R.from_html(page, OTHER) == R(noindex=True)


def test_a_crawler_named_without_a_rule_cannot_opt_out_of_the_global_one():
    # "A restriction applied to the global * token applies to all accessors regardless
    # of whether a specific product token is present"
    assert R.from_robots_tag("*;noindex, ExampleBot;nosnippet", EXAMPLE) == R(
        noindex=True, nosnippet=True)
    assert R.from_robots_tag("ExampleBot, *;noindex", EXAMPLE) == R(noindex=True)
    assert R.from_html(meta(("robots", "noindex"), ("examplebot", "index")), EXAMPLE) == R(
        noindex=True)


def test_a_product_token_given_several_times_has_all_its_rules():
    field = "ExampleBot;noindex, *;noarchive, examplebot;nosnippet"
    assert R.from_robots_tag(field, EXAMPLE) == R(noindex=True, nosnippet=True,
                                                  noarchive=True)
    # and across field lines, which are one field
    assert R.from_robots_tag(["ExampleBot;noindex", "ExampleBot;nofollow"], EXAMPLE) == R(
        noindex=True, nofollow=True)


def test_draft_02_example_with_its_trailing_semicolon_is_read_leniently():
    # -00 to -02: "noindex" and "nosnippet" for all, no rule of ExampleBot's own. RFC 9651
    # rejects the trailing ";": dropping it gives what the draft says it means.
    field = "*;noindex;nosnippet, ExampleBot;"
    for agent in (EXAMPLE, OTHER):
        directives = R.from_robots_tag(field, agent)
        assert directives == R(noindex=True, nosnippet=True)
        assert not directives.problems
        assert directives.lenient == (
            "Robots-Tag: *;noindex;nosnippet, ExampleBot;: not RFC 9651 (Trailing delimiter "
            "at position 32), read after dropping a ';' that ends a member",)
    assert not R.from_robots_tag("*;noindex;nosnippet, ExampleBot", EXAMPLE).lenient


def test_draft_02_global_token_left_out_is_not_read():
    # -02 also allowed ";noindex;nosnippet, ExampleBot=;"; -03 dropped that form, and no
    # narrow repair gives a List: the whole field is ignored, and said so.
    directives = R.from_robots_tag(";noindex;nosnippet, ExampleBot=;", EXAMPLE)
    assert directives == R()
    assert directives.problems == (
        "Robots-Tag: ;noindex;nosnippet, ExampleBot=;: not a structured-field list (There "
        "is no Structured Field item starting with ';' at position 0): the whole field "
        "ignored",)


def test_rules_are_case_insensitive():
    directives = R.from_robots_tag("*;NoIndex, EXAMPLEBOT;NoFollow", EXAMPLE)
    assert directives == R(noindex=True, nofollow=True)
    assert directives.lenient == (
        "Robots-Tag: *;NoIndex, EXAMPLEBOT;NoFollow: not RFC 9651 (Key cannot begin with an "
        "uppercase character at position 2), read after lower-casing its names",)
    # Strings are left as they are: only names outside them are lower-cased
    assert R.from_robots_tag('*;NoIndex;max-image-preview="STANDARD"', EXAMPLE) == R(
        noindex=True, max_image_preview="standard")


# --- whose rules -------------------------------------------------------------------------


@pytest.mark.parametrize(("field", "example", "other"), [
    ("ExampleBot;nofollow", R(nofollow=True), R()),
    ('"ExampleBot";nofollow', R(nofollow=True), R()),  # a String names a token too
    ("examplebot/2.0;nofollow", R(nofollow=True), R()),  # the token whole, version dropped
    ("examplebot-news;nofollow", R(), R()),  # another crawler's token
    ("robots;noindex", R(), R()),  # "robots" is the meta tags' global name, not the field's
    ("*;noindex, OtherBot;nofollow", R(noindex=True), R(noindex=True, nofollow=True)),
])
def test_whose_rules_apply(field, example, other):
    assert R.from_robots_tag(field, EXAMPLE) == example
    assert R.from_robots_tag(field, OTHER) == other


def test_without_a_crawler_name_only_the_global_rules_apply():
    assert R.from_robots_tag('*;nosnippet, ExampleBot;noindex, "";nofollow', "*") == R(
        nosnippet=True)


def test_members_for_other_crawlers_are_listed():
    field = ["*;noarchive, OtherBot;noindex, ExampleBot;nosnippet", "ThirdBot, Fourth;none"]
    assert robots_tag_for_others(field, EXAMPLE) == [
        "Robots-Tag: OtherBot;noindex", "Robots-Tag: Fourth;none"]
    assert robots_tag_for_others(field, OTHER) == [
        "Robots-Tag: ExampleBot;nosnippet", "Robots-Tag: Fourth;none"]


# --- what the rules mean -------------------------------------------------------------------


@pytest.mark.parametrize(("field", "expected"), [
    ("*;max-snippet=50", R(max_snippet=50)),
    ("*;max-snippet=0", R(max_snippet=0, nosnippet=True)),
    ("*;max-snippet=-1", R(max_snippet=-1)),
    ('*;max-snippet="20"', R(max_snippet=20)),  # the value as X-Robots-Tag would read it
    ("*;max-image-preview=standard", R(max_image_preview="standard")),
    ("*;max-video-preview=10", R(max_video_preview=10)),
    ('*;unavailable_after="Sat, 01 Jul 2023 15:00:00 GMT"',
     R(unavailable_after=datetime(2023, 7, 1, 15, 0, tzinfo=UTC))),
    ("*;unavailable_after=@1688223600",  # an RFC 9651 Date
     R(unavailable_after=datetime(2023, 7, 1, 15, 0, tzinfo=UTC))),
    ("*;none", R(noindex=True, nofollow=True)),
    ("*;noai;noimageai", R(noai=True, noimageai=True)),
    ("*;noindex=?0", R()),  # a rule set to false restricts nothing
    ("*;noindex=?1", R(noindex=True)),
    ("*;all;index;follow", R()),
])
def test_parameters_map_to_directives(field, expected):
    directives = R.from_robots_tag(field, EXAMPLE)
    assert directives == expected
    assert not directives.problems


@pytest.mark.parametrize(("field", "problem"), [
    ("*;max-snippet=1.5", "ignored invalid max-snippet: 1.5 (from Robots-Tag: "
                          "*;max-snippet=1.5)"),
    ("*;max-snippet=:AAE=:", "ignored invalid max-snippet (from Robots-Tag: "
                             "*;max-snippet=:AAE=:): a byte sequence is no rule value"),
    ("*;max-image-preview=huge", "ignored invalid max-image-preview: huge (from Robots-Tag: "
                                 "*;max-image-preview=huge)"),
    ("noindex", "Robots-Tag member noindex is a product token with no rule, not the rule "
                "noindex: for every crawler, write *;noindex"),
    ("(a b);noindex", "ignored Robots-Tag member (a b);noindex: it names no product token"),
    ("5;noindex", "ignored Robots-Tag member 5;noindex: it names no product token"),
])
def test_invalid_values_are_reported(field, problem):
    directives = R.from_robots_tag(["*;noarchive", field], EXAMPLE)
    assert directives == R(noarchive=True)
    assert directives.problems == (problem,)


def test_unknown_rules_are_kept_for_user_code():
    directives = R.from_robots_tag("*;noml, ExampleBot;max-summary=20", EXAMPLE)
    assert directives == R()
    assert [(d.name, d.value) for d in directives.others] == [("noml", None),
                                                              ("max-summary", "20")]


def test_provenance_names_the_member():
    directives = R.from_robots_tag(["*;nosnippet", "OtherBot;none, ExampleBot;noindex"],
                                   EXAMPLE)
    decided = directives.decided_by("noindex")
    assert decided.source == ROBOTS_TAG
    assert str(decided) == "noindex (from Robots-Tag: ExampleBot;noindex)"
    assert str(directives.decided_by("nosnippet")) == "nosnippet (from Robots-Tag: *;nosnippet)"


# --- with X-Robots-Tag and meta tags --------------------------------------------------------


def test_robots_tag_x_robots_tag_and_meta_tags_unite():
    response = HtmlResponse(
        "http://example.com/",
        body=meta(("robots", "noarchive"), ("examplebot", "notranslate")).encode(),
        headers={"Content-Type": "text/html", "Robots-Tag": ["*;nosnippet", "ExampleBot;noindex"],
                 "X-Robots-Tag": ["max-snippet: 30", "examplebot: nofollow"]})
    example = R.from_response(response, EXAMPLE)
    assert example == R(noindex=True, nofollow=True, nosnippet=True, noarchive=True,
                        notranslate=True, max_snippet=30)
    assert [d.source for d in example.sources] == [ROBOTS_TAG, ROBOTS_TAG, "X-Robots-Tag",
                                                   "X-Robots-Tag", "meta", "meta"]
    assert R.from_response(response, OTHER) == R(nosnippet=True, noarchive=True,
                                                 max_snippet=30)


def test_the_most_restrictive_value_wins_across_headers():
    response = Response("http://example.com/a.pdf", headers={
        "Robots-Tag": "*;max-snippet=50, ExampleBot;max-snippet=20",
        "X-Robots-Tag": "max-snippet: 40"})
    assert R.from_response(response, EXAMPLE).max_snippet == 20
    assert R.from_response(response, OTHER).max_snippet == 40
    decided = R.from_response(response, EXAMPLE).decided_by("max_snippet")
    assert str(decided) == "max-snippet: 20 (from Robots-Tag: ExampleBot;max-snippet=20)"


def test_a_broken_robots_tag_leaves_x_robots_tag_and_meta_in_force():
    response = HtmlResponse("http://example.com/", body=meta(("robots", "nofollow")).encode(),
                            headers={"Content-Type": "text/html", "Robots-Tag": "*;noindex, (",
                                     "X-Robots-Tag": "noarchive"})
    directives = R.from_response(response, EXAMPLE)
    assert directives == R(nofollow=True, noarchive=True)
    assert len(directives.problems) == 1
    assert directives.problems[0].endswith("the whole field ignored")


# --- field lines and the read limit --------------------------------------------------------


def test_field_lines_are_one_field():
    assert R.from_robots_tag(["*;nosnippet", "", "  ", "ExampleBot;noindex"], EXAMPLE) == R(
        noindex=True, nosnippet=True)
    # RFC 9651 section 4.2: the lines are one value, and one that does not parse fails it
    directives = R.from_robots_tag(["*;noindex", "ExampleBot;nofollow;"], EXAMPLE)
    assert directives.lenient  # the trailing ";" repair still reads both
    assert directives == R(noindex=True, nofollow=True)
    broken = R.from_robots_tag(["*;noindex", "ExampleBot nofollow"], EXAMPLE)
    assert broken == R()
    assert broken.problems[0].startswith("Robots-Tag: *;noindex, ExampleBot nofollow: not a "
                                         "structured-field list")


def test_a_field_of_8192_characters_is_read_whole():
    # the crawler's own member last, after a String filling the field to 8,192 characters
    head = "*;noarchive, " + "OtherBot;noindex, " * 400 + 'OtherBot;x="'
    tail = '", ExampleBot;noindex'
    field = head + "x" * (8192 - len(head) - len(tail)) + tail
    assert len(field) == 8192
    directives = R.from_robots_tag(field, EXAMPLE)
    assert directives == R(noindex=True, noarchive=True)
    assert not directives.cut
    assert not directives.problems
    assert MAX_VALUE_CHARS >= 8192


def test_a_longer_field_keeps_its_complete_members_only():
    head = "*;noarchive, " + "OtherBot;noindex, " * 400
    head += " " * (MAX_VALUE_CHARS - len(head) - len("ExampleBot;nofollow"))
    assert len(head + "ExampleBot;nofollow") == MAX_VALUE_CHARS
    # the last member ends at the limit and a separator follows: it is complete
    complete = R.from_robots_tag(head + "ExampleBot;nofollow, *;noindex", EXAMPLE)
    assert complete == R(noarchive=True, nofollow=True)
    assert complete.cut == (f"a Robots-Tag field longer than {MAX_VALUE_CHARS} characters: "
                            "the rest not read",)
    # the limit falls in the member: it may have said more ("nofollowing"), so it is ignored
    assert R.from_robots_tag(head + "ExampleBot;nofollow;nosnippet", EXAMPLE) == R(
        noarchive=True)
    # a String holding commas, cut open by the limit: its member is ignored, not the field
    cut_string = head + 'ExampleBot;unavailable_after="Sat, 01 Jul 2023, ' + "x" * 100 + '"'
    assert R.from_robots_tag(cut_string, EXAMPLE) == R(noarchive=True)


def test_a_response_with_a_long_field_is_read_to_the_limit():
    field = "*;noindex, " + "OtherBot;nofollow, " * 1000
    response = Response("http://example.com/", headers={"Robots-Tag": field})
    directives = R.from_response(response, EXAMPLE)
    assert directives == R(noindex=True)
    assert len(directives.cut) == 1


# --- malformed fields: reported, never raised ----------------------------------------------


HOSTILE_FIELDS = [
    b"\xff\xfe*;noindex",
    b"*;noindex\x00",
    b"*;no\x01index, ExampleBot;nofollow",
    b'*;unavailable_after="\xc3\xa9"',
    b"*;" + b";" * 10_000,
    b"*;noindex" + b"," * 10_000,
    b'"' * 10_001,
    b'*;a="' + b"\\" * 9_999,
    b"(" * 5_000,
    b"*;max-snippet=99999999999999999999",
    b"*;unavailable_after=@99999999999999",
    b"noindex, " * 1_000,
    b"%\"\xff\"",
]


@pytest.mark.parametrize("value", HOSTILE_FIELDS)
def test_hostile_fields_are_reported_never_raised(value):
    response = Response("http://example.com/", headers={"Robots-Tag": value})
    directives = R.from_response(response, EXAMPLE)
    assert directives == R()
    assert directives.problems or directives.cut
    assert len(directives.problems) <= 20
    assert all(len(text) < 500 for text in (*directives.problems, *directives.cut))
    assert not any("\x00" in text or "\x01" in text for text in directives.problems)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=4))
def test_any_header_bytes_never_raise(values):
    response = Response("http://example.com/", headers={"Robots-Tag": values} if values else {})
    directives = R.from_response(response, EXAMPLE)
    assert isinstance(directives, R)
    assert R.from_robots_tag(values, EXAMPLE) == directives
    robots_tag_for_others(values, EXAMPLE)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet='*;=,"\\ ():?@-ExamplBot01noidexfw%', max_size=60),
                max_size=3))
def test_any_field_of_structured_field_characters_never_raises(values):
    directives = R.from_robots_tag(values, EXAMPLE)
    assert isinstance(directives, R)
