"""Real crawls against local servers: robots.txt obeyed as SPEC.md sections 1 and 2 say.

Where Scrapy's own RobotsTxtMiddleware gets a row of the issue wrong, the test runs with
both middlewares; the built-in's run is marked xfail, which makes the difference visible.
"""

from __future__ import annotations

import asyncio
import gzip
import itertools
import os
import re
from typing import Any

import pytest
import scrapy
from scrapy import Request, Spider, signals

from tests.support import LocalServer, Reply, Seen, free_ports, run_crawl

ADDON = {"scrapy_robots_policy.Addon": 0}
OURS = "scrapy_robots_policy.downloader.RobotsPolicyDownloaderMiddleware"
BUILTIN = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
FAST = {  # short waits, so that failure cases stay fast
    "ROBOTS_POLICY_FETCH_TIMEOUT": 1.0,
    "ROBOTS_POLICY_RETRY_PATIENCE": 1.5,
    "ROBOTS_POLICY_RETRY_BACKOFF": 0.2,
}
SCRAPY_2_14 = tuple(int(p) for p in scrapy.__version__.split(".")[:2]) >= (2, 14)


class Pages(Spider):
    """Fetches ``start_urls``; after a page whose path is in ``plan``, fetches plan[path]."""

    name = "pages"
    plan: dict[str, list[str]] = {}  # noqa: RUF012 (set per crawl through a keyword)
    headers: dict[str, str] = {}  # noqa: RUF012

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Pages:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if hasattr(signals, "robots_parsed"):  # Scrapy 2.18+
            crawler.signals.connect(spider._robots_parsed, signal=signals.robots_parsed)
        return spider

    def _robots_parsed(self, robotparser: Any, request: Request) -> None:
        self.crawler.stats.inc_value("test/robots_parsed")

    async def start(self) -> Any:
        for url in self.start_urls:
            yield Request(url, headers=self.headers, dont_filter=True)

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}
        path = response.url.split("/", 3)[3]
        for url in self.plan.get("/" + path, []):
            yield Request(url, dont_filter=True)


def crawl(settings: dict[str, Any] | None = None, middleware: str = OURS,
          spider: type[Spider] = Pages, **kwargs: Any) -> Any:
    base: dict[str, Any] = {"ROBOTSTXT_OBEY": True, "RETRY_ENABLED": False, **FAST}
    if middleware == OURS:
        base["ADDONS"] = ADDON
    return run_crawl(spider, {**base, **(settings or {})}, **kwargs)


both = pytest.mark.parametrize("middleware", [
    OURS, pytest.param(BUILTIN, marks=pytest.mark.xfail(reason="Scrapy's middleware",
                                                        strict=False))])


def downloaded(server: LocalServer) -> list[str]:
    return [p for p in server.paths() if p != "/robots.txt"]


def log_lines(result: Any, pattern: str) -> list[str]:
    return [line for line in result.log.splitlines() if re.search(pattern, line)]


# -- 2xx -------------------------------------------------------------------------------------


def test_2xx_rules_are_obeyed_with_scrapy_stats_signal_and_logs() -> None:
    robots = "User-agent: *\nDisallow: /private\n"
    with LocalServer({"/robots.txt": Reply(body=robots)}) as s:
        r = crawl(start_urls=[s.url("/a"), s.url("/private/b"), s.url("/private"), s.url("/c")])
    assert sorted(downloaded(s)) == ["/a", "/c"]
    assert s.hits("/robots.txt") == 1
    assert r.stat("robotstxt/request_count") == 1
    assert r.stat("robotstxt/response_count") == 1
    assert r.stat("robotstxt/response_status_count/200") == 1
    assert r.stat("robotstxt/forbidden") == 2
    assert r.stat("robotstxt/forbidden/rule") == 2
    assert r.stat("test/robots_parsed") == (1 if hasattr(signals, "robots_parsed") else 0)
    assert len(log_lines(r, rf"^INFO .*robots.txt of {s.origin}: 200")) == 1
    refused = log_lines(r, r"^DEBUG .*Forbidden by robots.txt: <GET .*/private")
    assert len(refused) == 2
    assert all("line 2: Disallow: /private" in line for line in refused)


class AsyncRobotsParsed(Pages):
    async def _robots_parsed(self, robotparser: Any, request: Request) -> None:
        await asyncio.sleep(0)  # Scrapy documents robots_parsed handlers as possibly async
        self.crawler.stats.inc_value("test/robots_parsed")


@pytest.mark.skipif(not hasattr(signals, "robots_parsed"),
                    reason="the robots_parsed signal is new in Scrapy 2.18")
def test_a_coroutine_robots_parsed_handler_is_awaited() -> None:
    with LocalServer({"/robots.txt": Reply(body="User-agent: *\nDisallow: /private\n")}) as s:
        r = crawl(spider=AsyncRobotsParsed, start_urls=[s.url("/a"), s.url("/private")])
    assert downloaded(s) == ["/a"]
    assert r.stat("test/robots_parsed") == 1


def test_an_html_page_as_robots_txt_is_allow_all_counted_and_logged() -> None:
    page = "<html><body><p>Disallow: /a (not a rule: not at a line start)</p></body></html>"
    with LocalServer({"/robots.txt": Reply(body=page, headers={"Content-Type": "text/html"})}
                     ) as s:
        r = crawl(start_urls=[s.url("/a"), s.url("/b")])
    assert sorted(downloaded(s)) == ["/a", "/b"]
    assert r.stat("robotstxt/unparsable_count") == 1
    assert log_lines(r, rf"^INFO .*robots.txt of {s.origin}: 200, .*no robots.txt line in it")


def test_data_and_file_urls_are_never_checked(tmp_path: Any) -> None:
    local = tmp_path / "page.html"
    local.write_text("<html>local</html>")
    r = crawl(start_urls=["data:text/html,<p>hello</p>", local.as_uri()])
    assert len(r.items) == 2
    assert r.stat("robotstxt/request_count") == 0


def test_dont_obey_robotstxt_skips_the_check() -> None:
    class Opted(Pages):
        async def start(self) -> Any:
            for url in self.start_urls:
                yield Request(url, meta={"dont_obey_robotstxt": True})

    with LocalServer({"/robots.txt": Reply(body="User-agent: *\nDisallow: /\n")}) as s:
        r = crawl(spider=Opted, start_urls=[s.url("/a")])
    assert downloaded(s) == ["/a"]
    assert s.hits("/robots.txt") == 0
    assert r.stat("robotstxt/forbidden") == 0


# -- 4xx -------------------------------------------------------------------------------------


@both
@pytest.mark.parametrize("status", [401, 403, 404, 410])
def test_4xx_allows_everything_and_the_error_page_is_never_rules(status: int,
                                                                 middleware: str) -> None:
    error_page = "User-agent: *\nDisallow: /\n"  # an error page that looks like rules
    with LocalServer({"/robots.txt": Reply(status, error_page)}) as s:
        r = crawl(middleware=middleware, start_urls=[s.url("/a"), s.url("/b")])
    assert sorted(downloaded(s)) == ["/a", "/b"]
    assert r.stat(f"robotstxt/response_status_count/{status}") == 1


# -- 5xx, 429, network errors --------------------------------------------------------------


@both
@pytest.mark.parametrize("status", [500, 503, 429])
def test_5xx_and_429_forbid_everything_then_refuse_after_patience(status: int,
                                                                  middleware: str) -> None:
    with LocalServer({"/robots.txt": Reply(status, "User-agent: *\nAllow: /\n")}) as s:
        r = crawl(middleware=middleware, start_urls=[s.url(f"/p{n}") for n in range(5)])
    assert downloaded(s) == []
    assert s.hits("/robots.txt") >= 2  # retried while the requests waited
    assert r.stat("robotstxt/forbidden") == 5
    assert r.stat("robotstxt/forbidden/unreachable") == 5
    assert r.stat("robotstxt/retry_count") >= 1
    warning = log_lines(r, rf"^WARNING .*robots.txt of {s.origin} unreachable: {status}")
    assert len(warning) == 1, r.log
    assert len(log_lines(r, r"^DEBUG .*Forbidden by robots.txt: .*unreachable")) == 5


def test_forever_5xx_with_default_settings_finishes_by_itself_well_under_a_minute() -> None:
    with LocalServer({"/robots.txt": Reply(500)}) as s:
        r = run_crawl(Pages, {"ROBOTSTXT_OBEY": True, "ADDONS": ADDON},
                      start_urls=[s.url("/a"), s.url("/b")])
    assert downloaded(s) == []
    assert r.stat("robotstxt/forbidden/unreachable") == 2
    assert r.seconds < 45


@pytest.mark.parametrize("reactor", [
    "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    "twisted.internet.epollreactor.EPollReactor",
], ids=["asyncio", "epoll"])
def test_requests_wait_for_a_recovering_robots_txt_and_none_is_lost(reactor: str) -> None:
    answers = iter([Reply(503), Reply(500), Reply(200, "User-agent: *\nDisallow: /no\n")])

    def robots(seen: Seen) -> Reply:
        return next(answers, Reply(200, "User-agent: *\nDisallow: /no\n"))

    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 20, "TWISTED_REACTOR": reactor},
                  start_urls=[s.url("/yes1"), s.url("/no1"), s.url("/yes2"), s.url("/no2")])
    assert s.hits("/robots.txt") == 3
    assert sorted(downloaded(s)) == ["/yes1", "/yes2"]
    assert r.stat("robotstxt/forbidden/rule") == 2
    assert r.stat("robotstxt/forbidden/unreachable") == 0
    assert r.stat("robotstxt/retry_count") == 2
    assert len(log_lines(r, r"^INFO .*robots.txt of .*: 50[03], retrying in")) == 2


def test_retry_after_is_honoured() -> None:
    answers = iter([Reply(503, headers={"Retry-After": "2"})])

    def robots(seen: Seen) -> Reply:
        return next(answers, Reply(404))

    with LocalServer({"/robots.txt": robots}) as s:
        crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 20}, start_urls=[s.url("/a")])
    fetches = [seen.at for seen in s.seen if seen.path == "/robots.txt"]
    assert len(fetches) == 2
    assert fetches[1] - fetches[0] >= 1.9  # the backoff alone would wait 0.1 s
    assert downloaded(s) == ["/a"]


@pytest.mark.parametrize(
    ("reply", "exception"),
    [
        # Exception types as Scrapy 2.13 (Twisted's) and 2.14+ (Scrapy's own) name them.
        (Reply(reset=True), r"ResponseNeverReceived|ConnectionLost|DownloadFailedError"),
        (Reply(delay=3, body="User-agent: *\nAllow: /\n"), r"TimeoutError"),
        (Reply(body="User-agent: *\nAllow: /\n" * 50, truncate=True),
         r"ResponseFailed|ResponseDataLossError"),
    ],
    ids=["reset", "timeout", "truncated"],
)
def test_network_errors_are_like_5xx(reply: Reply, exception: str) -> None:
    with LocalServer({"/robots.txt": reply}) as s:
        r = crawl(start_urls=[s.url("/a"), s.url("/b")])
    assert downloaded(s) == []
    assert r.stat("robotstxt/forbidden/unreachable") == 2
    keys = [k for k in r.stats if k.startswith("robotstxt/exception_count/")]
    assert keys and all(re.search(exception, k) for k in keys), keys


def test_connection_refused_is_like_5xx() -> None:
    port = next(free_ports(1))
    r = crawl(start_urls=[f"http://127.0.0.1:{port}/a"])
    assert r.stat("robotstxt/forbidden/unreachable") == 1
    assert any("ConnectionRefusedError" in k for k in r.stats)


# -- 3xx -------------------------------------------------------------------------------------


def hop_routes(hops: int, final: Reply, target: LocalServer | None = None) -> dict[str, Any]:
    """/robots.txt -> /hop1 -> ... -> /hop{hops} (on ``target`` if given) answering ``final``."""
    routes: dict[str, Any] = {}
    for n in range(hops):
        path = "/robots.txt" if n == 0 else f"/hop{n}"
        routes[path] = Reply(301, headers={"Location": f"/hop{n + 1}"})
    routes[f"/hop{hops}"] = final
    return routes


@pytest.mark.parametrize(("hops", "obeyed"), [(1, True), (5, True), (6, False)])
def test_redirects_followed_up_to_five_hops_then_404(hops: int, obeyed: bool) -> None:
    rules = Reply(body="User-agent: *\nDisallow: /private\n")
    with LocalServer(hop_routes(hops, rules)) as s:
        r = crawl(start_urls=[s.url("/a"), s.url("/private")])
    assert ("/private" not in downloaded(s)) is obeyed
    assert "/a" in downloaded(s)
    assert s.hits(f"/hop{min(hops, 5)}") == 1
    assert s.hits("/hop6") == 0  # the sixth hop is never fetched
    assert r.stat("robotstxt/response_status_count/301") == hops


def test_redirect_loop_is_a_404() -> None:
    routes = {"/robots.txt": Reply(302, headers={"Location": "/loop"}),
              "/loop": Reply(302, headers={"Location": "/robots.txt"})}
    with LocalServer(routes) as s:
        r = crawl(start_urls=[s.url("/a")])
    assert s.paths() == ["/robots.txt", "/loop", "/a"]
    assert log_lines(r, r"^INFO .*redirect loop: allow all")


def test_cross_host_redirect_applies_to_the_original_origin_despite_allowed_domains() -> None:
    rules = Reply(body="User-agent: *\nDisallow: /private\n")
    with LocalServer({"/elsewhere.txt": rules}) as cdn:
        cdn_url = f"http://localhost:{cdn.port}/elsewhere.txt"  # another host name
        with LocalServer({"/robots.txt": Reply(301, headers={"Location": cdn_url})}) as s:
            r = crawl({"LOG_LEVEL": "DEBUG"}, allowed_domains=["127.0.0.1"],
                      start_urls=[s.url("/a"), s.url("/private/x")])
    assert downloaded(s) == ["/a"]
    assert cdn.paths() == ["/elsewhere.txt"]
    assert r.stat("robotstxt/forbidden/rule") == 1
    assert not log_lines(r, r"Filtered offsite request")


# -- size cap --------------------------------------------------------------------------------


def big_robots() -> bytes:
    """A 600 KiB robots.txt: /early disallowed within 512,000 bytes, /late beyond them."""
    head = b"User-agent: *\nDisallow: /early\n"
    kept = head + b"#" * (512_000 - len(head) - 1) + b"\n"
    return kept + b"Disallow: /late\n" * ((600 * 1024 - len(kept)) // 16 + 1)


@both
def test_600_kib_robots_txt_read_up_to_512000_bytes(middleware: str) -> None:
    with LocalServer({"/robots.txt": Reply(body=big_robots())}) as s:
        crawl(middleware=middleware, start_urls=[s.url("/early"), s.url("/late")])
    assert downloaded(s) == ["/late"]


def test_gzip_robots_txt_capped_after_decompression() -> None:
    body = gzip.compress(big_robots())
    assert len(body) < 512_000
    reply = Reply(body=body, headers={"Content-Encoding": "gzip"})
    with LocalServer({"/robots.txt": reply}) as s:
        r = crawl(start_urls=[s.url("/early"), s.url("/late")])
    assert downloaded(s) == ["/late"]
    assert r.stat("robotstxt/forbidden/rule") == 1


def test_gzip_robots_txt_larger_than_the_cap_is_stopped_and_decompressed() -> None:
    noise = b"".join(b"# " + os.urandom(32).hex().encode() + b"\n" for _ in range(20_000))
    body = gzip.compress(b"User-agent: *\nDisallow: /early\n" + noise + b"Disallow: /late\n")
    assert len(body) > 600_000  # random comments barely compress
    reply = Reply(body=body, headers={"Content-Encoding": "gzip"})
    with LocalServer({"/robots.txt": reply}) as s:
        r = crawl(start_urls=[s.url("/early"), s.url("/late")])
    assert downloaded(s) == ["/late"]
    assert log_lines(r, r"robots.txt of .*: 200, 512000 bytes, cut")


def test_compression_bomb_is_read_up_to_the_cap_not_a_crash() -> None:
    body = gzip.compress(b"User-agent: *\nDisallow: /b\n" + b"\n" * 100_000_000)
    reply = Reply(body=body, headers={"Content-Encoding": "gzip"})
    with LocalServer({"/robots.txt": reply}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 0}, start_urls=[s.url("/a"), s.url("/b")])
    # Scrapy's decompression stops at 64 x the cap; the first 512,000 bytes are the rules.
    assert downloaded(s) == ["/a"]
    assert r.stat("robotstxt/forbidden/rule") == 1
    assert any("IgnoreRequest" in k for k in r.stats if "exception_count" in k)
    assert log_lines(r, r"robots.txt of .*: 200, 512000 bytes, cut")


def test_download_stops_at_the_cap_and_keeps_the_partial_body() -> None:
    body = big_robots() + b"#" * 10_000_000  # 10 MB more that is never needed
    with LocalServer({"/robots.txt": Reply(body=body)}) as s:
        r = crawl(start_urls=[s.url("/early"), s.url("/late")])
    assert downloaded(s) == ["/late"]
    assert log_lines(r, r"robots.txt of .*: 200, 512000 bytes, cut")
    assert r.stat("downloader/response_bytes") < 2_000_000


# -- cache -----------------------------------------------------------------------------------


def test_max_age_expiry_during_a_crawl_refreshes_without_stalling() -> None:
    versions = iter([Reply(body="User-agent: *\nDisallow: /b\n",
                           headers={"Cache-Control": "max-age=1"}),
                     Reply(body="User-agent: *\nDisallow: /a\n")])

    def robots(seen: Seen) -> Reply:
        return next(versions, Reply(body="User-agent: *\nDisallow: /\n"))

    with LocalServer({"/robots.txt": robots, "/slow": Reply(delay=1.5),
                      "/a2": Reply(delay=1.0)}) as s:
        r = crawl({"ROBOTS_POLICY_MIN_TTL": 0},
                  start_urls=[s.url("/slow")],
                  plan={"/slow": [s.url("/a2")], "/a2": [s.url("/a3")]})
    # /a2 came after expiry: decided by the stale copy (allowed) while the refresh ran;
    # /a3 came after the refresh, whose rules forbid /a.
    assert s.hits("/robots.txt") == 2
    assert downloaded(s) == ["/slow", "/a2"]
    assert r.stat("robotstxt/forbidden/rule") == 1


def test_failed_refresh_keeps_serving_the_last_good_copy() -> None:
    answers = iter([Reply(body="User-agent: *\nDisallow: /b\n",
                          headers={"Cache-Control": "max-age=1"})])

    def robots(seen: Seen) -> Reply:
        return next(answers, Reply(503))

    with LocalServer({"/robots.txt": robots, "/slow": Reply(delay=1.5),
                      "/a2": Reply(delay=1.0)}) as s:
        r = crawl({"ROBOTS_POLICY_MIN_TTL": 0}, start_urls=[s.url("/slow")],
                  plan={"/slow": [s.url("/a2"), s.url("/b2")],
                        "/a2": [s.url("/a3"), s.url("/b3")]})
    assert s.hits("/robots.txt") >= 2  # refreshed, and the refresh failed
    assert sorted(downloaded(s)) == ["/a2", "/a3", "/slow"]
    assert r.stat("robotstxt/forbidden/rule") == 2  # by the last good copy
    assert r.stat("robotstxt/forbidden/unreachable") == 0
    assert log_lines(r, r"^INFO .*refresh failed \(503\), keeping the copy fetched")


def test_origins_are_cached_separately_and_each_fetched_once() -> None:
    deny_a = Reply(body="User-agent: *\nDisallow: /a\n")
    deny_b = Reply(body="User-agent: *\nDisallow: /b\n")
    with LocalServer({"/robots.txt": deny_a}) as one, \
            LocalServer({"/robots.txt": deny_b}) as two:
        localhost = f"http://localhost:{one.port}"
        crawl(start_urls=[one.url("/a"), one.url("/b"), two.url("/a"), two.url("/b"),
                          one.url("/b?again"), f"{localhost}/b?named"])
    assert one.hits("/robots.txt") == 2  # 127.0.0.1 and localhost are two hosts
    assert two.hits("/robots.txt") == 1
    assert sorted(downloaded(one)) == ["/b", "/b?again", "/b?named"]
    assert downloaded(two) == ["/a"]


def test_scheme_and_host_case_do_not_make_another_origin() -> None:
    with LocalServer({"/robots.txt": Reply(body="User-agent: *\nDisallow: /x\n")}) as s:
        crawl(start_urls=[s.url("/a"), f"http://127.0.0.1:{s.port}/x",
                          f"HTTP://127.0.0.1:{s.port}/b"])
    assert s.hits("/robots.txt") == 1
    assert sorted(downloaded(s)) == ["/a", "/b"]


def test_lru_bound_refetches_evicted_origins() -> None:
    with LocalServer() as one, LocalServer() as two:
        r = crawl({"ROBOTS_POLICY_MAX_ORIGINS": 1, "CONCURRENT_REQUESTS": 1},
              start_urls=[one.url("/1"), two.url("/2"), one.url("/3")])
    assert one.hits("/robots.txt") == 2
    assert two.hits("/robots.txt") == 1
    assert r.stat("robotstxt/cache_evictions") == 2
    assert r.stat("robotstxt/cached_origins") == 1


# -- concurrency -----------------------------------------------------------------------------


@both
def test_50_concurrent_disallowed_requests_none_downloaded_one_fetch(middleware: str) -> None:
    robots = Reply(body="User-agent: *\nDisallow: /private\n", delay=0.5)
    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl({"CONCURRENT_REQUESTS": 100, "CONCURRENT_REQUESTS_PER_DOMAIN": 100},
                  middleware=middleware,
                  start_urls=[s.url(f"/private/{n}") for n in range(50)] + [s.url("/ok")])
    assert downloaded(s) == ["/ok"]
    assert s.hits("/robots.txt") == 1
    assert r.stat("robotstxt/forbidden") == 50


# -- user agent ------------------------------------------------------------------------------

AGENTS = ("User-agent: HeaderBot\nDisallow: /header\n\n"
          "User-agent: ReqBot\nDisallow: /req\n\n"
          "User-agent: SpiderBot\nDisallow: /spider\n\n"
          "User-agent: SettingBot\nDisallow: /setting\n\n"
          "User-agent: *\nDisallow: /star\n")
PATHS = ["/header", "/req", "/spider", "/setting", "/star"]


def agent_crawl(settings: dict[str, Any], spider: type[Spider] = Pages,
                **kwargs: Any) -> list[str]:
    with LocalServer({"/robots.txt": Reply(body=AGENTS)}) as s:
        crawl(settings, spider=spider, start_urls=[s.url(p) for p in PATHS], **kwargs)
    refused = set(PATHS) - set(downloaded(s))
    assert len(refused) == 1, refused
    return sorted(refused)


def test_user_agent_is_robotstxt_user_agent_first() -> None:
    settings = {"ROBOTSTXT_USER_AGENT": "SettingBot",
                "DEFAULT_REQUEST_HEADERS": {"User-Agent": "HeaderBot/2.0"}}
    assert agent_crawl(settings) == ["/setting"]


def test_user_agent_from_default_request_headers() -> None:
    settings = {"DEFAULT_REQUEST_HEADERS": {"User-Agent": "HeaderBot/2.0 (+http://x)"},
                "USER_AGENT": "SettingBot"}
    assert agent_crawl(settings) == ["/header"]


def test_user_agent_from_the_request_itself() -> None:
    assert agent_crawl({"USER_AGENT": "SettingBot"}, headers={"User-Agent": "ReqBot/1"}) \
        == ["/req"]


def test_user_agent_from_the_spider_attribute_then_user_agent_setting() -> None:
    class Named(Pages):
        user_agent = "SpiderBot/3"

    assert agent_crawl({"USER_AGENT": "SettingBot"}, spider=Named) == ["/spider"]
    assert agent_crawl({"USER_AGENT": "SettingBot/1.0"}) == ["/setting"]
    assert agent_crawl({"USER_AGENT": "Unknown/1.0"}) == ["/star"]


# -- add-on and per-spider settings ----------------------------------------------------------


def enabled_downloader_middlewares(log: str) -> str:
    match = re.search(r"Enabled downloader middlewares:\n(\[.*?\])", log, re.S)
    assert match, log
    return match.group(1)


def test_addon_in_project_settings_replaces_the_builtin() -> None:
    with LocalServer({"/robots.txt": Reply(404, "User-agent: *\nDisallow: /\n")}) as s:
        r = crawl(start_urls=[s.url("/a")])
    enabled = enabled_downloader_middlewares(r.log)
    assert OURS in enabled and BUILTIN not in enabled
    assert downloaded(s) == ["/a"]  # the built-in would have read the 404 page as rules


def test_addon_and_overrides_in_spider_custom_settings() -> None:
    class Custom(Pages):
        custom_settings = {"ADDONS": ADDON, "ROBOTSTXT_USER_AGENT": "SpiderBot",  # noqa: RUF012
                           "ROBOTS_POLICY_RETRY_PATIENCE": 0}

    routes = {"/robots.txt": Reply(body=AGENTS)}
    with LocalServer(routes) as s, LocalServer({"/robots.txt": Reply(503)}) as down:
        r = run_crawl(Custom, {"ROBOTSTXT_OBEY": True, "RETRY_ENABLED": False},
                      start_urls=[s.url(p) for p in PATHS] + [down.url("/x")])
    enabled = enabled_downloader_middlewares(r.log)
    assert OURS in enabled and BUILTIN not in enabled
    assert sorted(set(PATHS) - set(downloaded(s))) == ["/spider"]
    assert down.hits("/robots.txt") == 1  # patience 0: refused at the first failure
    assert r.stat("robotstxt/forbidden/unreachable") == 1
    assert r.stat("robotstxt/retry_count") == 0


def test_robotstxt_obey_false_leaves_everything_alone() -> None:
    with LocalServer({"/robots.txt": Reply(body="User-agent: *\nDisallow: /\n")}) as s:
        r = crawl({"ROBOTSTXT_OBEY": False}, start_urls=[s.url("/a")])
    assert downloaded(s) == ["/a"]
    assert s.hits("/robots.txt") == 0
    assert r.stat("robotstxt/request_count") == 0


# -- Crawl-delay -----------------------------------------------------------------------------


def test_crawl_delay_applied_to_the_requests_of_the_origin_when_enabled() -> None:
    robots = Reply(body="User-agent: *\nCrawl-delay: 1\nDisallow: /private\n")
    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl({"ROBOTS_POLICY_CRAWL_DELAY": True},
                  start_urls=[s.url(f"/p{n}") for n in range(3)])
    times = sorted(seen.at for seen in s.seen if seen.path != "/robots.txt")
    assert len(times) == 3
    assert all(b - a >= 0.9 for a, b in itertools.pairwise(times))
    assert log_lines(r, r"Crawl-delay of 1(\.0)? s applied to the requests to "
                        r"http://127\.0\.0\.1:\d+$")


def test_crawl_delay_ignored_by_default_as_google_does() -> None:
    robots = Reply(body="User-agent: *\nCrawl-delay: 30\n")
    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl(start_urls=[s.url(f"/p{n}") for n in range(3)])
    assert len(downloaded(s)) == 3
    assert not log_lines(r, r"Crawl-delay")
    assert r.seconds < 30  # a 30 s delay would have taken a minute
