"""UsagePolicy without a crawl: which declared purpose an origin or a page refuses, and
the signal that says so."""

from __future__ import annotations

from dataclasses import dataclass

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.usage.policy import CHECK_PURPOSES_META, UsagePolicy
from scrapy_robots_policy.usage.purposes import CONTENT_SIGNAL, TDMREP_JSON, USAGE_HEADER

ROBOTS = (b"User-agent: *\n"
          b"Content-Signal: ai-train=no, search=yes\n"  # line 2
          b"Allow: /\n")
URL = "https://e.com/articles/1"


@dataclass(frozen=True)
class Settings:
    purposes: tuple[str, ...] = ("search", "ai-train", "tdm")
    enforce_usage: bool = True


def robots(body: bytes = ROBOTS) -> CachedAnswer:
    return CachedAnswer(RobotsTxt.parse(body), "200", 2e9, 1e9, body=body)


def tdmrep(body: bytes | None, summary: str = "200") -> CachedAnswer:
    fetched = None if summary.startswith("5") else 1e9  # 5xx: unreachable
    return CachedAnswer(RobotsTxt.allow_all(), summary, 2e9, fetched, body=body)


def test_robots_txt_content_signal_refuses_a_purpose_naming_its_line() -> None:
    policy = UsagePolicy(Settings())
    reading = policy.for_robots(robots(), URL, "MyBot", policy.purposes)
    refusal = reading.refusal
    assert refusal is not None and refusal.purpose == "ai-train"
    assert refusal.signal is not None and refusal.signal.source == CONTENT_SIGNAL
    assert refusal.reason == (
        'ai-train refused (robots.txt line 2: "Content-Signal: ai-train=no, search=yes")')
    search, tdm = reading.decision("search"), reading.decision("tdm")
    assert search is not None and search.allowed
    assert tdm is not None and tdm.allowed and tdm.signal is None  # nobody spoke of it


def test_a_crawl_declaring_only_search_refuses_nothing() -> None:
    policy = UsagePolicy(Settings(purposes=("search",)))
    assert policy.for_robots(robots(), URL, "MyBot", policy.purposes).refusal is None
    assert not policy.needs_tdmrep(policy.purposes)  # and tdmrep.json is never fetched
    assert policy.needs_tdmrep(("search", "tdm")) and policy.needs_tdmrep(("ai-train",))


def test_a_contract_decides_its_own_purposes() -> None:
    policy = UsagePolicy(Settings(purposes=()))
    assert policy.purposes_for({}) == ()
    assert policy.purposes_for({CHECK_PURPOSES_META: ["tdm"]}) == ("tdm",)


def test_tdmrep_json_reserving_the_path_refuses_tdm_with_its_rule() -> None:
    policy = UsagePolicy(Settings(purposes=("search", "tdm")))
    origin = policy.for_robots(robots(b"User-agent: *\nAllow: /\n"), URL, "MyBot",
                               policy.purposes)
    file = tdmrep(b'[{"location": "/articles/", "tdm-reservation": 1}]')
    reading = policy.with_tdmrep(origin, file, URL)
    refusal = reading.refusal
    assert refusal is not None and refusal.purpose == "tdm"
    assert refusal.signal is not None and refusal.signal.source == TDMREP_JSON
    assert "location '/articles/', tdm-reservation 1" in refusal.reason
    assert policy.with_tdmrep(origin, file, "https://e.com/other").refusal is None


def test_an_unreachable_tdmrep_json_refuses_tdm_as_robots_txt_would() -> None:
    policy = UsagePolicy(Settings(purposes=("search", "tdm")))
    origin = policy.for_robots(robots(b""), URL, "MyBot", policy.purposes)
    reading = policy.with_tdmrep(origin, tdmrep(None, "503"), URL)
    refusal = reading.refusal
    assert refusal is not None and refusal.purpose == "tdm"
    assert refusal.reason == "tdm refused (tdmrep.json unreachable (503))"
    # a 404 means no file: nothing reserved
    assert policy.with_tdmrep(origin, tdmrep(None, "404"), URL).refusal is None


def test_the_page_adds_its_headers_to_the_origins_signals() -> None:
    policy = UsagePolicy(Settings(purposes=("search", "ai-train")))
    origin = policy.for_robots(robots(b"User-agent: *\nAllow: /\n"), URL, "MyBot",
                               policy.purposes)
    assert origin.refusal is None
    page = policy.for_page(origin, URL, {"content-usage": ["search=n"]}, RobotsDirectives(),
                           policy.purposes)
    refusal = page.refusal
    assert refusal is not None and refusal.purpose == "search"
    assert refusal.signal is not None and refusal.signal.source == USAGE_HEADER
    assert refusal.reason == "search refused (Content-Usage: search=n)"


def test_the_origins_refusal_still_stands_on_the_page() -> None:
    policy = UsagePolicy(Settings(purposes=("search", "ai-train")))
    origin = policy.for_robots(robots(), URL, "MyBot", policy.purposes)
    page = policy.for_page(origin, URL, {}, RobotsDirectives(), policy.purposes)
    assert page.refusal is not None and page.refusal.purpose == "ai-train"
    assert page.refusal.signal is not None and page.refusal.signal.source == CONTENT_SIGNAL
