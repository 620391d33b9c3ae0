"""Usage signals from robots.txt: Content-Signal and Content-Usage lines read as each
specification says, and bad lines reported, never raised."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.usage import Signal, decide, refused, robots_signals
from scrapy_robots_policy.usage.purposes import CONTENT_SIGNAL, CONTENT_USAGE
from tests.robotstxt.test_robotstxt_usage import ATTACH_EXAMPLE, CONTENT_SIGNALS_EXAMPLE


def said(text: bytes, url: str = "/", agent: str = "FooBot") -> set[tuple[str, bool]]:
    return {(s.purpose, s.allowed) for s in robots_signals(RobotsTxt.parse(text), url,
                                                            agent).signals}


def test_content_signals_policy_example() -> None:
    reading = robots_signals(RobotsTxt.parse(CONTENT_SIGNALS_EXAMPLE), "/page", "FooBot")
    evidence = 'robots.txt line 4: "Content-Signal: ai-train=no, search=yes, ai-input=yes"'
    assert reading.signals == (Signal("ai-train", False, CONTENT_SIGNAL, evidence),
                               Signal("search", True, CONTENT_SIGNAL, evidence),
                               Signal("ai-input", True, CONTENT_SIGNAL, evidence))
    assert reading.problems == ()
    decision = refused(decide(reading.signals, ["search", "ai-train"]))
    assert decision is not None and decision.purpose == "ai-train"
    assert decision.reason == f"ai-train refused ({evidence})"


def test_attach_draft_example() -> None:
    # train-ai is vocab-08's label for AI Training: our ai-train.
    assert said(ATTACH_EXAMPLE, "https://example.com/test", "OtherBot") == {("ai-train", False)}
    assert said(ATTACH_EXAMPLE, "/ai-ok/test", "OtherBot") == {("ai-train", True)}
    assert said(ATTACH_EXAMPLE, "/test", "ExampleBot") == {("ai-train", True)}
    reading = robots_signals(RobotsTxt.parse(ATTACH_EXAMPLE), "/test", "x")
    assert reading.signals[0].source == CONTENT_USAGE
    assert reading.signals[0].evidence == 'robots.txt line 4: "Content-Usage: train-ai=n"'


def test_content_usage_follows_the_vocabulary_processing_rules() -> None:
    # vocab-08 section 6.5: duplicates keep the last value; a boolean or a string is no
    # preference; parameters are ignored; upper case fails the whole dictionary.
    assert said(b"Content-Usage: train-ai=y, train-ai=n\n") == {("ai-train", False)}
    assert said(b'Content-Usage: train-ai=y, train-ai, search=n, search="n"\n') == set()
    assert said(b"Content-Usage: train-ai;allow=n, train-ai=y\n") == {("ai-train", True)}
    assert said(b"Content-Usage: Train-AI=n\n") == set()
    # Labels of draft-romm-aipref-contentsignals-00 are read too; unknown ones ignored.
    assert said(b"Content-Usage: ai-input=n, ai-train=y, bots=n\n") == {
        ("ai-input", False), ("ai-train", True)}


def test_malformed_values_give_no_signal_but_a_problem() -> None:
    text = (b"User-agent: *\nContent-Signal: search=yes, ai_train=no, ai-input=maybe\n"
            b"Content-Usage: train-ai=n search=y\nContent-Signal:\n")
    reading = robots_signals(RobotsTxt.parse(text), "/", "x")
    assert {(s.purpose, s.allowed) for s in reading.signals} == {("search", True)}
    assert len(reading.problems) == 3
    assert reading.problems[0].startswith('robots.txt line 2: "Content-Signal: search=yes')
    assert "'ai-input=maybe' is not one of search, ai-input, ai-train" in reading.problems[0]
    assert "not a structured-field dictionary" in reading.problems[1]
    assert reading.problems[2] == 'robots.txt line 4: "Content-Signal: ": no value'
    # A name the policy does not give is no malformed value but a label not read.
    [ignored] = reading.ignored
    assert (ignored.label, ignored.known, ignored.stat_name) == ("ai_train", False, "other")
    assert ignored.evidence.startswith('robots.txt line 2: "Content-Signal: search=yes')
    assert "not one of the Content Signals Policy's search, ai-input, ai-train" in ignored.why


def test_content_signal_is_read_leniently_about_case_and_blanks() -> None:
    assert said(b"content-signal: Search = YES ,AI-Train=No,\n") == {
        ("search", True), ("ai-train", False)}


def test_too_long_values_and_too_many_lines_are_reported() -> None:
    reading = robots_signals(
        RobotsTxt.parse("Content-Usage: train-ai=n, " + "a=y, " * 1000), "/", "x")
    assert reading.signals == ()
    assert reading.problems[0].endswith("longer than 1024 characters, not read")
    many = b"Content-Signal: ai-train=no\n" * 1002
    reading = robots_signals(RobotsTxt.parse(many), "/", "x")
    assert len(reading.signals) == 1000
    assert reading.problems == ("robots.txt: 2 usage lines after the first 1000 not read",)


def test_no_usage_lines_no_signals() -> None:
    reading = robots_signals(RobotsTxt.parse(b"User-agent: *\nDisallow: /x\n"), "/", "x")
    assert reading.signals == () and reading.problems == ()


@settings(max_examples=200, deadline=None)
@given(value=st.text(max_size=60), key=st.sampled_from(["Content-Signal", "Content-Usage"]))
def test_any_value_never_raises(value: str, key: str) -> None:
    text = f"User-agent: *\n{key}: {value}\n".encode("utf-8", "surrogatepass")
    reading = robots_signals(RobotsTxt.parse(text), "/", "x")
    assert all(signal.purpose in ("search", "ai-input", "ai-train")
               for signal in reading.signals)
