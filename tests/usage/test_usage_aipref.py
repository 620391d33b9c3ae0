"""The aipref vocabulary as draft-ietf-aipref-vocab-08 has it: its three labels, its
combining rule, and the labels of earlier revisions, which it ignores and we tell."""

from __future__ import annotations

import pytest

from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.usage import decide, header_signals, refused, robots_signals
from scrapy_robots_policy.usage.aipref import (
    LABELS,
    MAX_IGNORED,
    RETIRED,
    VOCABULARY,
    preferences,
)
from scrapy_robots_policy.usage.purposes import CONTENT_USAGE, PURPOSES


def read(statement: str) -> set[tuple[str, bool]]:
    return {(s.purpose, s.allowed) for s in preferences(statement, CONTENT_USAGE, "x").signals}


def test_vocab_08_labels_name_our_purposes() -> None:
    assert VOCABULARY == "draft-ietf-aipref-vocab-08"
    # AI Training, AI Use (new in -08: input to a generative model, not given by the
    # user: Content Signals' ai-input), Search.
    assert read("train-ai=n, ai-use=n, search=y") == {
        ("ai-train", False), ("ai-input", False), ("search", True)}
    assert set(LABELS.values()) <= set(PURPOSES)


def test_search_decides_a_search_crawl_whatever_the_other_categories_say() -> None:
    # -08 section 4.3: search overrides the other categories for a use that is search;
    # a crawl declaring search is decided by search labels alone, one declaring
    # ai-train by the training labels.
    text = b"User-agent: *\nContent-Usage: train-ai=n, ai-use=n, search=y\n"
    signals = robots_signals(RobotsTxt.parse(text), "/", "bot").signals
    assert refused(decide(signals, ["search"])) is None
    refusal = refused(decide(signals, ["search", "ai-train"]))
    assert refusal is not None and refusal.purpose == "ai-train"


def test_statements_combine_most_restrictively() -> None:
    # Section 5.1 (unchanged in -08): any n disallows, else any y allows, else unknown.
    text = (b"Content-Usage: ai-use=y\nUser-agent: *\nContent-Usage: ai-use=n\n"
            b"Content-Usage: /open/ search=y\n")
    signals = robots_signals(RobotsTxt.parse(text), "/page", "bot").signals
    decisions = {d.purpose: d.allowed for d in decide(signals, ["ai-input", "search"])}
    assert decisions == {"ai-input": False, "search": True}  # search: no signal at all


@pytest.mark.parametrize(("label", "revision"), [
    ("ai", "vocab-01"), ("genai", "vocab-01"), ("tdm", "vocab-01"), ("inference", "vocab-01"),
    ("all", "vocab-02"), ("train-genai", "vocab-02 and -03"), ("bots", "vocab-03 and -04"),
    ("ai-output", "vocab-04")])
def test_labels_of_earlier_revisions_are_ignored_and_say_what_they_meant(
        label: str, revision: str) -> None:
    reading = preferences(f"{label}=n, search=y", CONTENT_USAGE, "Content-Usage: ...")
    assert {(s.purpose, s.allowed) for s in reading.signals} == {("search", True)}
    assert reading.problems == ()
    [ignored] = reading.ignored
    assert (ignored.label, ignored.known, ignored.stat_name) == (label, True, label)
    assert f"draft-ietf-aipref-{revision}" in ignored.why
    assert "not a label of draft-ietf-aipref-vocab-08" in ignored.why
    assert ignored.evidence == "Content-Usage: ..."


def test_a_label_no_revision_defined_is_ignored_under_other() -> None:
    reading = preferences("no-ai=y, Tdm=n", CONTENT_USAGE, "x")  # upper case: no dictionary
    assert reading.signals == () and reading.ignored == ()
    assert "not a structured-field dictionary" in reading.problems[0]
    [ignored] = preferences("no-ai, search=y", CONTENT_USAGE, "x").ignored
    assert (ignored.label, ignored.known, ignored.stat_name) == ("no-ai", False, "other")
    assert ignored.why.startswith("not a label of draft-ietf-aipref-vocab-08")


def test_retired_labels_never_overlap_the_labels_read() -> None:
    assert not set(RETIRED) & set(LABELS)


def test_what_generated_robots_txt_files_write_is_read_and_told_apart() -> None:
    # The shape of robotstxt.com/ai's files: an aipref line of vocab-01, beside a
    # Content-Signal line (and a DisallowAITraining line nobody defines).
    text = (b"User-agent: *\nDisallowAITraining: /\nContent-Usage: ai=n\n"
            b"Content-Signal: search=yes, ai-input=no, ai-train=no, use=reference\nAllow: /\n")
    reading = robots_signals(RobotsTxt.parse(text), "/page", "bot")
    assert {(s.purpose, s.allowed) for s in reading.signals} == {
        ("search", True), ("ai-input", False), ("ai-train", False)}
    assert [(i.label, i.stat_name) for i in reading.ignored] == [("ai", "ai"), ("use", "use")]
    assert reading.ignored[0].evidence == 'robots.txt line 3: "Content-Usage: ai=n"'
    assert "reproduced" in reading.ignored[1].why
    assert reading.problems == ()


def test_header_labels_are_ignored_alike() -> None:
    reading = header_signals(content_usage=["train-genai=n", "ai-use=n"]).content_usage
    assert [(s.purpose, s.allowed) for s in reading.signals] == [("ai-input", False)]
    assert [i.label for i in reading.ignored] == ["train-genai"]
    assert reading.ignored[0].evidence == "Content-Usage: train-genai=n, ai-use=n"


def test_a_statement_of_many_made_up_labels_tells_a_few_and_counts_the_rest() -> None:
    statement = ", ".join(f"x{n}=n" for n in range(40))
    for reading in (preferences(statement, CONTENT_USAGE, "here"),
                    robots_signals(RobotsTxt.parse(f"Content-Signal: {statement}\n"), "/",
                                   "bot")):
        assert len(reading.ignored) == MAX_IGNORED
        assert reading.problems[-1].endswith(f"{40 - MAX_IGNORED} more labels not read")
