"""Real crawls: requests that a known robots.txt refuses never reach the scheduler.

Counted at the server (what was downloaded) and with Scrapy's ``scheduler/enqueued``
stat (what the scheduler took); each early refusal is compared with the same crawl with
``ROBOTS_POLICY_EARLY_REFUSAL = False``, where every request is refused at download time:
the stats, the DEBUG lines, the errbacks and what they return must be the same.
"""

from __future__ import annotations

from typing import Any

from scrapy import Request, Spider

from tests.scrapy.test_crawl_robotstxt import (
    OURS,
    SCRAPY_2_14,
    both,
    crawl,
    downloaded,
    log_lines,
)
from tests.support import LocalServer, Reply

ROBOTS = "User-agent: *\nDisallow: /private\n"
SIGNALS = "User-agent: *\nAllow: /\nContent-Usage: /archive/ search=n\n"
LATE = {"ROBOTS_POLICY_EARLY_REFUSAL": False}
#: The DEBUG line of a refusal, which names the deciding line of robots.txt.
REFUSED = r"DEBUG scrapy_robots_policy.downloader: Forbidden by robots.txt: <GET (\S+)> "


class Follows(Spider):
    """Fetches ``seed`` (its origin's robots.txt is then known), then every URL of
    ``follow``; refusals reach ``refused``, which counts them and returns an item (and
    with ``follow_up`` a request), as a user's errback may."""

    name = "follows"
    seed = ""
    follow: list[str] = []  # noqa: RUF012 (set per crawl through a keyword)
    meta: dict[str, Any] = {}  # noqa: RUF012
    follow_up = False

    async def start(self) -> Any:
        yield Request(self.seed, callback=self.parse_seed, dont_filter=True)

    def parse_seed(self, response: Any) -> Any:
        for url in self.follow:
            yield Request(url, meta=dict(self.meta), errback=self.refused)

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}

    def refused(self, failure: Any) -> list[Any]:
        # Not a generator: Scrapy 2.13.0 never iterates a download failure's errback.
        self.crawler.stats.inc_value(f"test/errback/{type(failure.value).__name__}")
        decision = failure.request.meta.get("robots_policy_decision")
        if decision is not None and decision.verdict.line is not None:
            self.crawler.stats.inc_value("test/errback/deciding_line_in_meta")
        url = failure.request.url
        output: list[Any] = [{"refused": url, "why": str(failure.value)}]
        if self.follow_up:
            after = url.replace("/private/", "/after/").replace("/archive/", "/after/")
            output.append(Request(after, dont_filter=True))
        return output


def follow(server: LocalServer, settings: dict[str, Any] | None = None, *paths: str,
           middleware: str = OURS, **kwargs: Any) -> Any:
    return crawl(settings, middleware, spider=Follows, seed=server.url("/"),
                 follow=[server.url(path) for path in paths], **kwargs)


def hundred() -> list[str]:
    """100 paths, 40 of them disallowed by :data:`ROBOTS`, mixed."""
    return [f"/private/{n}" if n % 5 in (1, 3) else f"/p/{n}" for n in range(100)]


@both  # Scrapy's middleware refuses them only once the scheduler hands them over
def test_a_known_origins_disallowed_requests_never_reach_the_scheduler(middleware: str) -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        r = follow(s, {}, *hundred(), middleware=middleware)
    assert r.stat("scheduler/enqueued") == 1 + 60, r.log  # the seed and the allowed
    assert s.hits("/robots.txt") == 1
    pages = downloaded(s)
    assert len(pages) == 61 and not any(p.startswith("/private") for p in pages)
    assert r.stat("robotstxt/forbidden") == r.stat("robotstxt/forbidden/rule") == 40
    assert r.stat("robotstxt/forbidden/early") == 40
    assert r.stat("test/errback/IgnoreRequest") == 40
    lines = log_lines(r, REFUSED + r"\(http://127.0.0.1:\d+/robots.txt line 2: "
                                   r"Disallow: /private, user agent 'Scrapy/")
    assert len(lines) == 40


def test_an_early_refusal_is_counted_logged_and_handed_to_the_errback_as_a_late_one() -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        early = follow(s, {}, *hundred(), follow_up=True)
        early_after = sorted(p for p in downloaded(s) if p.startswith("/after/"))
        s.seen.clear()
        late = follow(s, LATE, *hundred(), follow_up=True)
        late_after = sorted(p for p in downloaded(s) if p.startswith("/after/"))
    # Refused only once dequeued: all 100 were enqueued, and the errbacks' requests.
    assert late.stat("scheduler/enqueued") - early.stat("scheduler/enqueued") == 40
    assert late.stat("robotstxt/forbidden/early") == 0
    for key in ("robotstxt/forbidden", "robotstxt/forbidden/rule",
                "test/errback/IgnoreRequest", "test/errback/deciding_line_in_meta"):
        assert early.stat(key) == late.stat(key) == 40, key
    assert sorted(log_lines(early, REFUSED)) == sorted(log_lines(late, REFUSED))
    # What the errback returns is handled as for a refusal at download time: the same
    # items and the same requests (Scrapy 2.13.0 drops both, in either case).
    assert sorted(map(repr, early.items)) == sorted(map(repr, late.items))
    assert early_after == late_after
    refusals = [item for item in early.items if "refused" in item]
    if SCRAPY_2_14:  # errbacks' output of download failures is handled there
        assert len(refusals) == len(early_after) == 40
    assert all(item["why"].startswith("Forbidden by robots.txt: http://127.0.0.1:")
               for item in refusals)


def test_a_refused_duplicate_is_filtered_by_the_scheduler_as_before() -> None:
    paths = ["/private/1", "/private/1", "/p/1", "/p/1"]
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        early = follow(s, {}, *paths)
        late = follow(s, LATE, *paths)
    for r in (early, late):
        assert r.stat("robotstxt/forbidden") == 1
        assert r.stat("test/errback/IgnoreRequest") == 1
        assert r.stat("dupefilter/filtered") == 2
    assert early.stat("robotstxt/forbidden/early") == 1


def test_dont_obey_robotstxt_requests_pass() -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        r = follow(s, {}, "/private/1", "/p/1", meta={"dont_obey_robotstxt": True})
    assert sorted(downloaded(s)) == ["/", "/p/1", "/private/1"]
    assert r.stat("robotstxt/forbidden") == 0
    assert r.stat("scheduler/enqueued") == 3


def test_requests_to_an_origin_not_known_yet_reach_the_scheduler() -> None:
    # The slow robots.txt is not known while the start requests are scheduled.
    routes = {"/robots.txt": Reply(body=ROBOTS, delay=0.5)}
    with LocalServer(routes) as s:
        r = crawl(start_urls=[s.url(p) for p in ("/a", "/private/1", "/b", "/private/2")])
    assert r.stat("scheduler/enqueued") == 4
    assert r.stat("robotstxt/forbidden") == 2
    assert r.stat("robotstxt/forbidden/early") == 0  # refused at download time
    assert sorted(downloaded(s)) == ["/a", "/b"]


def test_known_usage_signals_refuse_before_the_scheduler_when_purposes_are_declared() -> None:
    paths = ["/archive/1", "/p/1", "/archive/2", "/p/2"]
    purposes = {"ROBOTS_POLICY_PURPOSES": ["search"]}
    with LocalServer({"/robots.txt": Reply(body=SIGNALS)}) as s:
        early = follow(s, purposes, *paths)
        late = follow(s, {**purposes, **LATE}, *paths)
        recorded = follow(s, {**purposes, "ROBOTS_POLICY_USAGE": "record"}, *paths)
    assert early.stat("scheduler/enqueued") == 3
    assert late.stat("scheduler/enqueued") == 5
    for r in (early, late):
        assert r.stat("robots_policy/usage/requests_refused/content-usage/search") == 2
        assert r.stat("test/errback/IgnoreRequest") == 2
    assert early.stat("robots_policy/usage/requests_refused_early") == 2
    assert late.stat("robots_policy/usage/requests_refused_early") == 0
    pattern = r"Refused by usage signals: <GET \S+/archive/\d>"
    assert sorted(log_lines(early, pattern)) == sorted(log_lines(late, pattern))
    # Recording refuses nothing: it is left to the download, counted there once.
    assert recorded.stat("scheduler/enqueued") == 5
    assert recorded.stat("robots_policy/usage/requests_refused_recorded") == 2


def test_known_tdmrep_json_refuses_before_the_scheduler() -> None:
    routes = {"/robots.txt": Reply(body="User-agent: *\nAllow: /\n"),
              "/.well-known/tdmrep.json": Reply(
                  body='[{"location": "/private/*", "tdm-reservation": 1}]',
                  headers={"Content-Type": "application/json"})}
    with LocalServer(routes) as s:
        r = follow(s, {"ROBOTS_POLICY_PURPOSES": ["tdm"]}, "/private/1", "/p/1")
    assert s.hits("/.well-known/tdmrep.json") == 1
    assert r.stat("robots_policy/usage/requests_refused/tdmrep.json/tdm") == 1
    assert r.stat("robots_policy/usage/requests_refused_early") == 1
    assert r.stat("scheduler/enqueued") == 2
    assert "/private/1" not in s.paths()


def test_turned_off_every_request_reaches_the_scheduler() -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        r = follow(s, LATE, "/private/1", "/p/1")
    assert r.stat("scheduler/enqueued") == 3
    assert r.stat("robotstxt/forbidden") == 1
    assert "robotstxt/forbidden/early" not in r.stats
    assert "/private/1" not in s.paths()
