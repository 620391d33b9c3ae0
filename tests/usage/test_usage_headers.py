"""Usage signals in response headers: Content-Usage (an RFC 9651 Dictionary) and the
TDMRep headers, as plain values."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_policy.directives.lists import MAX_VALUE_CHARS
from scrapy_robots_policy.usage import Signal, header_signals
from scrapy_robots_policy.usage.purposes import USAGE_HEADER


def test_attach_draft_example() -> None:
    reading = header_signals(content_usage=["train-ai=n"])
    assert reading.content_usage.signals == (
        Signal("ai-train", False, USAGE_HEADER, "Content-Usage: train-ai=n"),)
    assert reading.tdm.reservation is None and reading.tdm.policy is None


def test_field_lines_are_one_dictionary_and_bytes_are_read() -> None:
    reading = header_signals(content_usage=[b"train-ai=y", b"search=n, train-ai=n"])
    assert [(s.purpose, s.allowed) for s in reading.content_usage.signals] == [
        ("ai-train", False), ("search", False)]
    assert reading.content_usage.signals[0].evidence == \
        "Content-Usage: train-ai=y, search=n, train-ai=n"


def test_bad_values_give_no_signal_but_a_problem() -> None:
    reading = header_signals(content_usage=["train-ai=n;", "search=maybe"])
    assert reading.content_usage.signals == ()
    assert reading.content_usage.problems[0].startswith(
        "Content-Usage: train-ai=n;, search=maybe: not a structured-field dictionary")
    reading = header_signals(content_usage=["search=maybe, \u00e9=y"])
    assert reading.content_usage.signals == ()
    assert reading.content_usage.problems  # non-ASCII: no dictionary at all


def test_values_are_bounded() -> None:
    reading = header_signals(content_usage=["train-ai=n"] * 40)
    assert len(reading.content_usage.signals) == 1
    assert reading.content_usage.problems == (
        "Content-Usage values after the first 32 not read",)
    reading = header_signals(content_usage=["train-ai=n, " + "a=y, " * MAX_VALUE_CHARS],
                             tdm_policy=["https://x/" + "p" * MAX_VALUE_CHARS])
    assert reading.content_usage.signals == ()
    assert reading.content_usage.problems == (
        f"Content-Usage value longer than {MAX_VALUE_CHARS} characters: not read",)
    assert reading.tdm.policy is None
    assert reading.tdm.problems == (
        f"tdm-policy value longer than {MAX_VALUE_CHARS} characters: not read",)


def test_tdm_headers() -> None:
    tdm = header_signals(tdm_reservation=["1"],
                         tdm_policy=["https://provider.com/policies/policy.json"]).tdm
    assert (tdm.reservation, tdm.policy, tdm.source) == (
        1, "https://provider.com/policies/policy.json", "tdm-header")


@settings(max_examples=300, deadline=None)
@given(usage=st.lists(st.one_of(st.text(max_size=40), st.binary(max_size=40)), max_size=3),
       reservation=st.lists(st.text(max_size=5), max_size=2),
       policy=st.lists(st.binary(max_size=20), max_size=2))
def test_any_header_never_raises(usage: list[str | bytes], reservation: list[str],
                                 policy: list[str | bytes]) -> None:
    reading = header_signals(usage, reservation, policy)
    assert reading.tdm.reservation in (None, 0, 1)
