"""Real crawls against local servers: faults of robots.txt servers and of the crawl itself.

Each case once broke a crawl (a traceback, a site locked out, a crawl that never ends or
waits out its whole patience while closing); the tests show what a user sees instead.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from scrapy.downloadermiddlewares.httpcompression import ACCEPTED_ENCODINGS
from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer

from tests.scrapy.test_crawl_robotstxt import Pages, crawl, downloaded, log_lines
from tests.support import LocalServer, Reply, Seen, run_crawl


def sequence(*replies: Reply, then: Reply) -> Any:
    """A route answering ``replies`` in turn, then ``then`` forever."""
    answers = iter(replies)

    def route(seen: Seen) -> Reply:
        return next(answers, then)

    return route


def no_traceback(result: Any) -> None:
    assert "Traceback" not in result.log, result.log
    assert not log_lines(result, r"^ERROR "), result.log


# -- Retry-After: 0 / a date in the past -----------------------------------------------------


@pytest.mark.parametrize("value", ["0", "Thu, 01 Jan 1970 00:00:00 GMT"])
def test_retry_after_now_is_retried_not_a_refusal(value: str) -> None:
    robots = sequence(Reply(503, headers={"Retry-After": value}),
                      then=Reply(200, "User-agent: *\nDisallow: /no\n"))
    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 5},
                  start_urls=[s.url("/yes"), s.url("/no")])
    assert s.hits("/robots.txt") == 2
    assert downloaded(s) == ["/yes"]
    assert r.stat("robotstxt/forbidden/rule") == 1
    assert r.stat("robotstxt/forbidden/unreachable") == 0


def test_forever_retry_after_0_is_retried_a_bounded_number_of_times() -> None:
    with LocalServer({"/robots.txt": Reply(503, headers={"Retry-After": "0"})}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 3},
                  start_urls=[s.url("/a"), s.url("/b")])
    # Backoff 0.2 s, halved for 503 and doubling: 0.1 + 0.2 + 0.4 + 0.8 + 1.5 s.
    assert 3 <= s.hits("/robots.txt") <= 8
    assert downloaded(s) == []
    assert r.stat("robotstxt/forbidden/unreachable") == 2


def test_failed_refresh_with_retry_after_0_is_not_a_fetch_per_request() -> None:
    robots = sequence(Reply(body="User-agent: *\nDisallow: /private\n",
                            headers={"Cache-Control": "max-age=1"}),
                      then=Reply(503, headers={"Retry-After": "0"}))
    pages = [f"/p{n}" for n in range(25)]
    routes: dict[str, Any] = {"/robots.txt": robots, "/slow": Reply(delay=1.2)}
    routes.update({p: Reply(delay=0.05) for p in pages})
    chain = ["/slow", *pages]
    with LocalServer(routes) as s:
        r = crawl({"ROBOTS_POLICY_MIN_TTL": 0, "CONCURRENT_REQUESTS": 1},
                  start_urls=[s.url("/slow")],
                  plan={a: [s.url(b)] for a, b in itertools.pairwise(chain)})
    assert downloaded(s) == chain  # the last good copy answers while refreshes fail
    # 25 requests after expiry over about 2 s; refreshes back off from 0.1 s.
    assert s.hits("/robots.txt") <= 8, s.hits("/robots.txt")
    assert r.stat("robotstxt/stale_served_count") >= 1


# -- header values and redirects that do not parse --------------------------------------------


def test_retry_after_superscript_two_is_no_header() -> None:
    robots = sequence(Reply(503, headers={"Retry-After": "\xb2"}),
                      then=Reply(200, "User-agent: *\nDisallow: /no\n"))
    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 5},
                  start_urls=[s.url("/yes"), s.url("/no")])
    no_traceback(r)
    assert downloaded(s) == ["/yes"]
    assert r.stat("robotstxt/forbidden/rule") == 1


@pytest.mark.parametrize("location", ["http://127.0.0.1:99999/robots.txt", "http://h:abc/x"])
def test_redirect_to_a_bad_port_is_an_unusable_redirect_allow_all(location: str) -> None:
    robots = Reply(301, headers={"Location": location})
    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl(start_urls=[s.url("/a")])
    no_traceback(r)
    assert downloaded(s) == ["/a"]
    assert log_lines(r, r"^INFO .*robots.txt of .*: 301, unusable redirect to .*: allow all")


# -- Crawl-delay -----------------------------------------------------------------------------


def test_huge_crawl_delay_is_capped_and_said_once() -> None:
    robots = Reply(body="User-agent: *\nCrawl-delay: 1e308\n")
    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl({"ROBOTS_POLICY_CRAWL_DELAY": True, "ROBOTS_POLICY_MAX_CRAWL_DELAY": 0.5},
                  start_urls=[s.url(f"/p{n}") for n in range(3)], timeout=60)
    times = sorted(seen.at for seen in s.seen if seen.path != "/robots.txt")
    assert len(times) == 3
    assert all(b - a >= 0.4 for a, b in itertools.pairwise(times))
    capped = log_lines(r, r"^WARNING .*Crawl-delay of 1e\+308 s .* capped to 0.5 s "
                          r"\(ROBOTS_POLICY_MAX_CRAWL_DELAY\)")
    assert len(capped) == 1, r.log


# -- closing the crawl -----------------------------------------------------------------------


def test_closing_the_crawl_refuses_waiting_requests_at_once() -> None:
    with LocalServer({"/robots.txt": Reply(503)}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 60, "ROBOTS_POLICY_RETRY_BACKOFF": 1,
                   "CLOSESPIDER_TIMEOUT": 2},
                  start_urls=[s.url(f"/p{n}") for n in range(4)], timeout=120)
    assert r.stat("finish_reason") == "closespider_timeout"
    assert downloaded(s) == []
    assert r.stat("robotstxt/forbidden/closing") == 4
    assert r.stat("robotstxt/forbidden") == 4
    assert r.stat("robotstxt/forbidden/unreachable") == 0
    assert log_lines(r, r"^INFO .*robots.txt of .* not settled: the crawl is closing; "
                        r"refusing 4 waiting requests")
    assert r.seconds < 30  # not the 60 s of patience


# -- compression bombs -----------------------------------------------------------------------


def _module(*names: str) -> Any:
    for name in names:
        with contextlib.suppress(ImportError):
            return importlib.import_module(name)
    return None


def compressor(coding: str) -> tuple[Callable[[bytes], bytes], Callable[[], bytes]]:
    """A streaming compressor for ``coding``: (compress a chunk, finish)."""
    if coding == "gzip":
        gz = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
        return gz.compress, gz.flush
    if coding == "br":
        br = _module("brotli", "brotlicffi").Compressor(quality=5)
        return br.process, br.finish
    zstd = _module("compression.zstd", "backports.zstd")
    zs = (zstd.ZstdCompressor() if zstd is not None
          else _module("zstandard").ZstdCompressor().compressobj())
    return zs.compress, zs.flush


def bomb(coding: str, head: bytes, line: bytes, size: int, late: bytes = b"") -> bytes:
    """``head``, then ``line`` repeated up to ``size`` bytes with ``late`` after the first
    1 MB of them, compressed with ``coding`` without ever holding the inflated text."""
    compress, finish = compressor(coding)
    block = line * (1_000_000 // len(line))
    out = [compress(head)]
    for n in range(size // len(block)):
        out.append(compress(block))
        if n == 0:
            out.append(compress(late))
    out.append(finish())
    return b"".join(out)


#: What HttpCompressionMiddleware decodes here: br and zstd need optional modules.
DECODED = {coding.decode() for coding in ACCEPTED_ENCODINGS}
NOT_DECODED = {
    "br": "Scrapy decodes no br here: neither brotli nor brotlicffi is installed",
    "zstd": "Scrapy decodes no zstd here: its zstd module (zstandard before Scrapy 2.18, "
            "backports.zstd or Python 3.14's compression.zstd from 2.18) is not installed",
}
CODINGS = ["gzip", *(pytest.param(c, marks=pytest.mark.skipif(c not in DECODED, reason=why))
                    for c, why in NOT_DECODED.items())]


@pytest.mark.parametrize("coding", CODINGS)
def test_compression_bomb_is_read_up_to_the_cap_not_a_lockout(coding: str) -> None:
    body = bomb(coding, b"User-agent: *\nDisallow: /early\n", b"Disallow: /x\n", 100_000_000,
                late=b"Disallow: /late\n")
    assert len(body) < 512_000  # the download is not stopped: the bomb goes off inflating
    reply = Reply(body=body, headers={"Content-Encoding": coding})
    with LocalServer({"/robots.txt": reply}) as s:
        r = crawl(start_urls=[s.url("/early"), s.url("/x"), s.url("/late"), s.url("/ok")])
    no_traceback(r)
    # Rules in the first 512,000 bytes apply; /late, 1 MB in, is past the cap.
    assert sorted(downloaded(s)) == ["/late", "/ok"]
    assert r.stat("robotstxt/forbidden/rule") == 2
    assert r.stat("robotstxt/forbidden/unreachable") == 0
    assert log_lines(r, r"^INFO .*robots.txt of .*: 200, 512000 bytes, cut")
    # Scrapy stopped inflating at 64 x the cap: the 100 MB were never in memory.
    assert log_lines(r, r"^INFO .*robots.txt .* refused by a middleware \(IgnoreRequest: .*"
                        r"exceeded DOWNLOAD_MAXSIZE \(32768000 B\) during decompression.*\): "
                        r"reading its first 512000 bytes instead")


# -- DOWNLOAD_TIMEOUT ------------------------------------------------------------------------


class QuickPages(Pages):
    custom_settings = {"DOWNLOAD_TIMEOUT": 1}  # noqa: RUF012


def test_a_lower_download_timeout_of_the_spider_bounds_the_fetch() -> None:
    robots = Reply(body="User-agent: *\nDisallow: /no\n", delay=3)
    with LocalServer({"/robots.txt": robots}) as s:
        r = crawl({"ROBOTS_POLICY_FETCH_TIMEOUT": 10, "ROBOTS_POLICY_RETRY_PATIENCE": 0},
                  spider=QuickPages, start_urls=[s.url("/yes")])
    assert any("TimeoutError" in k for k in r.stats if "exception_count" in k), r.stats
    assert r.stat("robotstxt/forbidden/unreachable") == 1
    assert downloaded(s) == []


# -- a robots.txt the crawler chose not to fetch ----------------------------------------------


def test_http_cache_ignoring_missing_robots_txt_is_allow_all(tmp_path: Any) -> None:
    cache = {"HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(tmp_path / "cache")}
    robots = Reply(body="User-agent: *\nDisallow: /b\n")
    with LocalServer({"/robots.txt": robots}) as s:
        urls = [s.url("/a"), s.url("/b")]
        # A first crawl without robots.txt fills the cache with the pages only ...
        run_crawl(Pages, {**cache, "ROBOTSTXT_OBEY": False}, start_urls=urls)
        assert sorted(s.paths()) == ["/a", "/b"]
        # ... an offline re-run then has no robots.txt to read: not an outage.
        r = crawl({**cache, "HTTPCACHE_IGNORE_MISSING": True,
                   "ROBOTS_POLICY_RETRY_PATIENCE": 20}, start_urls=urls)
    assert sorted(s.paths()) == ["/a", "/b"]  # nothing more reached the server
    assert sorted(item["url"] for item in r.items) == urls
    assert r.stat("robotstxt/not_fetched") == 1
    assert r.stat("robotstxt/retry_count") == 0
    assert r.stat("robotstxt/forbidden") == 0
    warning = log_lines(r, r"^WARNING .*robots.txt of .*: not fetched \(IgnoreRequest: "
                           r".*\): allow all")
    assert len(warning) == 1, r.log


# -- DNS failures say which host -------------------------------------------------------------


class InvalidTldResolver(CachingThreadedResolver):
    """RFC 6761 6.4: names under ``.invalid`` get a negative answer at once, locally.

    The system resolver here would ask the network's name server; this one gives the
    answer (and the message) Twisted's threaded resolver gives for a name that does not
    resolve, without any query leaving the machine.
    """

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> defer.Deferred[str]:
        if name.rstrip(".").lower().endswith(".invalid"):
            return defer.fail(self._fail(name, "[Errno -2] Name or service not known"))
        return super().getHostByName(name, timeout)


def test_dns_failure_is_logged_with_its_message() -> None:
    r = crawl({"DNS_RESOLVER": f"{__name__}.InvalidTldResolver",
               "ROBOTS_POLICY_RETRY_PATIENCE": 0.5},
              start_urls=["http://nonexistent.invalid/a"])
    assert r.stat("robotstxt/forbidden/unreachable") == 1
    # "DNS lookup failed: no results for hostname lookup: nonexistent.invalid." in 2.13 to 2.19
    message = r"(DNSLookupError|CannotResolveHostError): [^;)]*nonexistent\.invalid"
    assert log_lines(r, rf"^WARNING .*robots.txt of http://nonexistent.invalid unreachable: "
                        rf"{message}")
    assert log_lines(r, rf"^DEBUG .*Forbidden by robots.txt: .*unreachable: {message}")


# -- /robots.txt itself ----------------------------------------------------------------------


def test_robots_txt_itself_is_allowed_under_disallow_all() -> None:
    with LocalServer({"/robots.txt": Reply(body="User-agent: *\nDisallow: /\n")}) as s:
        r = crawl(start_urls=[s.url("/robots.txt"), s.url("/a"), s.url("/robots.txt?x")])
    assert [item["url"] for item in r.items] == [s.url("/robots.txt")]
    assert s.hits("/robots.txt") == 1  # ours, which answers the spider's too
    assert r.stat("robotstxt/forbidden/rule") == 2
