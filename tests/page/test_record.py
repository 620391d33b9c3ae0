"""The compliance record without a crawl: what it says of the robots.txt that allowed a
page (read from the request's one decision, never decided again) and of its usage."""

from __future__ import annotations

import hashlib
from unittest.mock import patch

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.fetch.origin import origin_of
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.page.record import page_record, usage_part
from scrapy_robots_policy.page.request import DECISION_META, RequestDecision
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.usage import Reading, Signal, UsageDecision
from scrapy_robots_policy.usage.policy import UsageReading
from scrapy_robots_policy.usage.purposes import CONTENT_SIGNAL, USAGE_HEADER

BODY = b"User-agent: *\nDisallow: /private/\nAllow: /private/open\n"
FETCHED = 1_700_000_000.0  # 2023-11-14T22:13:20+00:00


def decision(url: str, entry: CachedAnswer | None = None, **kwargs: bool) -> RequestDecision:
    origin = origin_of(url)
    assert origin is not None
    entry = entry or CachedAnswer(RobotsTxt.parse(BODY), "200", 2e9, FETCHED, body=BODY)
    return RequestDecision(origin, entry, url, "MyBot/1.0", **kwargs)


def record(meta: dict[str, object]) -> dict[str, object]:
    return page_record(meta, RobotsDirectives(), None)


def test_the_record_names_the_deciding_line_when_and_what_was_fetched() -> None:
    part = record({DECISION_META: decision("https://e.com/private/open/1")})["robotstxt"]
    assert part == {"url": "https://e.com/robots.txt", "fetched": "2023-11-14T22:13:20+00:00",
                    "sha256": hashlib.sha256(BODY).hexdigest(),
                    "line": 3, "rule": "Allow: /private/open"}


def test_no_rule_matched_or_no_file_says_why() -> None:
    assert record({DECISION_META: decision("https://e.com/public")})["robotstxt"]["why"] == (
        "no rule matched")
    missing = CachedAnswer(RobotsTxt.allow_all(), "404: allow all", 2e9, FETCHED)
    part = record({DECISION_META: decision("https://e.com/private/x", missing)})["robotstxt"]
    assert part["why"] == "404: allow all" and "sha256" not in part and "line" not in part


def test_no_decision_or_a_check_sample_records_no_robots_txt() -> None:
    # dont_obey_robotstxt, ROBOTSTXT_OBEY off: nothing consulted
    assert record({})["robotstxt"] is None
    # a scrapy check sample is let through whatever robots.txt says: not "allowed by" it
    sample = decision("https://e.com/private/x", check_only=True)
    assert record({DECISION_META: sample})["robotstxt"] is None


def test_the_record_reads_the_decision_made_for_the_request_and_never_decides_again() -> None:
    made = decision("https://e.com/private/open/1")
    with patch.object(RobotsTxt, "decide", autospec=True, side_effect=RobotsTxt.decide) as asked:
        assert made.verdict.line == 3  # the downloader middleware's one decision
        meta = {DECISION_META: made}
        assert record(meta)["robotstxt"]["line"] == 3
        assert record(meta)["robotstxt"]["line"] == 3
    assert asked.call_count == 1


def test_the_usage_part_has_one_decision_per_purpose_and_only_their_signals() -> None:
    train = Signal("ai-train", False, CONTENT_SIGNAL, 'robots.txt line 4: "ai-train=no"')
    search = Signal("search", True, USAGE_HEADER, "Content-Usage: search=y")
    elsewhere = Signal("tdm", False, USAGE_HEADER, "Content-Usage: tdm=n")
    part = usage_part([UsageDecision("ai-train", False, train),
                       UsageDecision("search", True, search)],
                      [train, search, train, elsewhere])
    assert part == {"purposes": {"ai-train": False, "search": True},
                    "signals": [{"source": CONTENT_SIGNAL, "purpose": "ai-train",
                                 "allowed": False, "evidence": train.evidence},
                                {"source": USAGE_HEADER, "purpose": "search",
                                 "allowed": True, "evidence": search.evidence}]}


def test_the_record_binds_the_page_it_was_made_for() -> None:
    body = b"<html>the content kept</html>"
    made = page_record({DECISION_META: decision("https://e.com/public")}, RobotsDirectives(),
                       None, url="https://e.com/public", body=body)
    assert list(made) == ["page", "robotstxt", "directives"]
    assert made["page"]["url"] == "https://e.com/public"
    assert made["page"]["sha256"] == hashlib.sha256(body).hexdigest()
    assert made["page"]["fetched"].endswith("+00:00")


def test_the_usage_part_names_the_vocabulary_and_the_tdmrep_json_applied() -> None:
    tdmrep = b'[{"location": "/", "tdm-reservation": 0}]'
    applied = CachedAnswer(RobotsTxt.allow_all(), "200, 42 bytes", 2e9, FETCHED, body=tdmrep)
    missing = CachedAnswer(RobotsTxt.allow_all(), "404: allow all", 2e9, FETCHED)
    meta = {DECISION_META: decision("https://e.com/public")}
    for entry, expected in [
            (applied, {"sha256": hashlib.sha256(tdmrep).hexdigest()}),
            (missing, {"why": "404: allow all"})]:
        usage = UsageReading.of(("tdm",), Reading(), tdmrep_file=entry)
        part = page_record(meta, RobotsDirectives(), usage)["usage"]
        assert part["vocabulary"] == "draft-ietf-aipref-vocab-08"
        assert part["tdmrep"] == {"url": "https://e.com/.well-known/tdmrep.json",
                                  "fetched": "2023-11-14T22:13:20+00:00", **expected}
    assert "tdmrep" not in page_record(meta, RobotsDirectives(),
                                       UsageReading.of(("search",), Reading()))["usage"]
