"""TDMRep: tdmrep.json, the headers and the meta tags, and the report's priority."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.usage import Reading, TdmRep, header_signals, tdm_meta, tdm_signals
from scrapy_robots_policy.usage.purposes import TDM_HEADER, TDM_META, TDMREP_JSON
from scrapy_robots_policy.usage.tdmrep import MAX_RULES

# The report's second example of tdmrep.json (section "TDM File on the Origin Server").
REPORT_EXAMPLE = json.dumps([
    {"location": "/directory-a/", "tdm-reservation": 1},
    {"location": "/directory-b/html/", "tdm-reservation": 1,
     "tdm-policy": "https://provider.com/policies/policy.json"},
    {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0},
]).encode()


def said(reading: Reading) -> set[tuple[str, bool, str]]:
    return {(s.purpose, s.allowed, s.source) for s in reading.signals}


def test_report_example_file() -> None:
    tdmrep = TdmRep.parse(REPORT_EXAMPLE)
    assert tdmrep.problems == ()
    assert said(tdmrep.signals("https://provider.com/directory-a/report.pdf")) == {
        ("tdm", False, TDMREP_JSON), ("ai-train", False, TDMREP_JSON)}
    html = tdmrep.signals("/directory-b/html/page.html")
    assert html.signals[0].evidence == ("tdmrep.json rule 2: location '/directory-b/html/', "
                                        "tdm-reservation 1 (TDM policy: "
                                        "https://provider.com/policies/policy.json)")
    assert said(tdmrep.signals("/directory-b/images/x/cat.jpg")) == {
        ("tdm", True, TDMREP_JSON), ("ai-train", True, TDMREP_JSON)}
    assert tdmrep.signals("/directory-b/images/cat.png").signals == ()  # unset
    # The whole-site opt-out, the report's first example.
    assert not TdmRep.parse(b'[{"location": "/", "tdm-reservation": 1}]').signals(
        "/anything").signals[0].allowed


def test_the_first_matching_rule_wins_not_the_longest() -> None:
    tdmrep = TdmRep.parse(b'[{"location": "/a", "tdm-reservation": 0},'
                          b' {"location": "/a/b", "tdm-reservation": 1}]')
    assert said(tdmrep.signals("/a/b/c")) == {("tdm", True, TDMREP_JSON),
                                              ("ai-train", True, TDMREP_JSON)}


def test_locations_are_matched_like_robots_txt_patterns() -> None:
    tdmrep = TdmRep.parse('[{"location": "/path/foo-%24", "tdm-reservation": 1},'
                          ' {"location": "/exact$", "tdm-reservation": 1},'
                          ' {"location": "/caf\u00e9/", "tdm-reservation": 1}]'.encode())
    assert tdmrep.signals("https://provider.com/path/foo-$").signals
    assert tdmrep.signals("/exact").signals and not tdmrep.signals("/exactly").signals
    assert tdmrep.signals("/caf%C3%A9/menu").signals
    assert not tdmrep.signals("/Path/foo-$").signals  # case sensitive


def test_bad_files_and_rules_never_raise_and_are_reported() -> None:
    assert TdmRep.parse(b"{not json").problems[0].startswith("tdmrep.json is not JSON")
    assert TdmRep.parse(b'{"location": "/"}').problems == (
        "tdmrep.json is not a JSON array of rules: not read",)
    assert TdmRep.parse(b"[" * 100_000 + b"]" * 100_000).rules == ()
    assert TdmRep.parse(b" " * 600_000 + b"[]").problems == (
        "tdmrep.json larger than 512000 bytes: not read",)
    tdmrep = TdmRep.parse(b'\xef\xbb\xbf[{"location": "/a", "tdm-reservation": 2},'
                          b' {"location": 5}, {"location": "/", "tdm-reservation": true,'
                          b' "tdm-policy": 7}]')
    assert tdmrep.problems == (
        "tdmrep.json rule 1: tdm-reservation 2 is not 0 or 1: unset for its location",
        "tdmrep.json rule 2: not an object with a location: ignored",
        "tdmrep.json rule 3: tdm-reservation True is not 0 or 1: unset for its location",
        "tdmrep.json rule 3: tdm-policy is not a URL: ignored")
    assert tdmrep.signals("/a").signals == () and tdmrep.signals("/b").signals == ()
    many = json.dumps([{"location": f"/{i}", "tdm-reservation": 1}
                       for i in range(MAX_RULES + 1)]).encode()
    assert TdmRep.parse(many).problems == ("tdmrep.json rules after the first 1000 not read",)


def test_headers_supersede_the_file_and_meta_tags_supersede_headers() -> None:
    tdmrep = TdmRep.parse(b'[{"location": "/", "tdm-reservation": 1}]')
    header = header_signals(tdm_reservation=["0"]).tdm
    assert said(tdm_signals(tdmrep, "/p", header)) == {("tdm", True, TDM_HEADER),
                                                      ("ai-train", True, TDM_HEADER)}
    meta = tdm_meta(RobotsDirectives.from_html(
        '<meta name="tdm-reservation" content="1">'
        '<meta name="tdm-policy" content="https://p.example/policy">', "bot").usage_meta)
    reading = tdm_signals(tdmrep, "/p", header, meta)
    assert said(reading) == {("tdm", False, TDM_META), ("ai-train", False, TDM_META)}
    assert reading.signals[0].evidence == ('<meta name="tdm-reservation" content="1"> '
                                           "(TDM policy: https://p.example/policy)")


def test_a_source_without_a_reservation_resets_nothing() -> None:
    tdmrep = TdmRep.parse(b'[{"location": "/", "tdm-reservation": 1}]')
    header = header_signals(tdm_policy=["https://p.example/policy"]).tdm
    meta = tdm_meta([("tdm-reservation", "yes")])
    reading = tdm_signals(tdmrep, "/p", header, meta)
    assert said(reading) == {("tdm", False, TDMREP_JSON), ("ai-train", False, TDMREP_JSON)}
    assert reading.signals[0].evidence.endswith("(TDM policy: https://p.example/policy)")
    assert reading.problems == (
        '<meta name="tdm-reservation" content="yes">: not 0 or 1: ignored',)


def test_header_values_one_wins_over_zero_and_bad_ones_are_reported() -> None:
    tdm = header_signals(tdm_reservation=[b"0", " 1 ", "x"]).tdm
    assert (tdm.reservation, tdm.evidence) == (1, "tdm-reservation:  1 ")
    assert tdm.problems == ("tdm-reservation: x: not 0 or 1: ignored",)
    assert tdm_signals(None, "/", None, None).signals == ()


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=300), url=st.text(max_size=30))
def test_any_bytes_never_raise(body: bytes, url: str) -> None:
    TdmRep.parse(body).signals(url)


@settings(max_examples=200, deadline=None)
@given(rules=st.lists(st.dictionaries(
    st.sampled_from(["location", "tdm-reservation", "tdm-policy", "x"]),
    st.one_of(st.none(), st.integers(), st.text(max_size=10), st.booleans(),
              st.lists(st.integers(), max_size=2))), max_size=5),
    url=st.text(max_size=20))
def test_any_json_never_raises(rules: list[dict[str, object]], url: str) -> None:
    reading = TdmRep.parse(json.dumps(rules).encode()).signals(url)
    assert all(s.purpose in ("tdm", "ai-train") for s in reading.signals)
