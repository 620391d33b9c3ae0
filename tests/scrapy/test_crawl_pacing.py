"""When requests reach a site, measured where the site receives them.

Crawl-delay is never undercut by Scrapy's own throttles (AutoThrottle, ``DOWNLOAD_DELAY``
with its jitter); a site answering 429 or 503 is left alone for its ``Retry-After`` (or a
doubling back-off), retries included, while other sites keep going; and a closing crawl
refuses what is held at once.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from tests.scrapy.test_crawl_robotstxt import crawl, log_lines
from tests.support import LocalServer, Reply, Seen

#: What the server's clock and the crawl's timers may disagree by, in seconds.
SLACK = 0.02
DELAYED = "User-agent: *\nCrawl-delay: {}\n"


def arrivals(server: LocalServer, path: str | None = None) -> list[float]:
    """When the server received each page request (or each request for ``path``)."""
    return [s.at for s in server.seen
            if s.path != "/robots.txt" and (path is None or s.path == path)]


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(sorted(times))]


def answers(*replies: Reply) -> Callable[[Seen], Reply]:
    """A route answering ``replies`` in turn, then the last one for ever."""
    lock, count = threading.Lock(), itertools.count()

    def route(seen: Seen) -> Reply:
        with lock:
            n = next(count)
        return replies[min(n, len(replies) - 1)]

    return route


def retrying(settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Scrapy's RetryMiddleware with its defaults (2 retries of 429, 503, ...), one request
    to a host at a time: those sent before the "slow down" arrived cannot obey it."""
    return {"RETRY_ENABLED": True, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, **(settings or {})}


# -- Crawl-delay against Scrapy's own throttles ----------------------------------------------


def test_autothrottle_never_undercuts_the_crawl_delay() -> None:
    with LocalServer({"/robots.txt": Reply(body=DELAYED.format(2))}) as s:
        r = crawl({"ROBOTS_POLICY_CRAWL_DELAY": True, "AUTOTHROTTLE_ENABLED": True,
                   "AUTOTHROTTLE_START_DELAY": 0.1},
                  start_urls=[s.url(f"/p{n}") for n in range(5)])
    assert len(arrivals(s)) == 5
    assert min(gaps(arrivals(s))) >= 2 - SLACK, gaps(arrivals(s))
    assert r.stat("robotstxt/crawl_delay/held") >= 4
    assert r.stat("robotstxt/crawl_delay/late") == 0


def test_download_delay_jitter_lengthens_gaps_never_shortens_them() -> None:
    """``DOWNLOAD_DELAY = 1.2`` with Scrapy's ±50 % jitter draws gaps of 0.6 to 1.8 s; a
    Crawl-delay of 1 s is the floor, and the longer draws stay."""
    with LocalServer({"/robots.txt": Reply(body=DELAYED.format(1))}) as s:
        r = crawl({"ROBOTS_POLICY_CRAWL_DELAY": True, "DOWNLOAD_DELAY": 1.2},
                  start_urls=[s.url(f"/p{n}") for n in range(7)])
    spaced = gaps(arrivals(s))
    assert len(spaced) == 6
    assert min(spaced) >= 1 - SLACK, spaced
    assert max(spaced) > 1.05, spaced  # Scrapy's own draws above the floor still count
    assert r.stat("robotstxt/crawl_delay/late") == 0


def test_a_paced_origin_sharing_its_hosts_slot_with_an_unpaced_one_keeps_its_pace() -> None:
    """Scrapy's slots are per host name: two ports of 127.0.0.1 are two origins in one
    slot, and the unpaced one's requests must not carry the paced one's out in a burst
    (they may wait behind them: the slot's queue is first in, first out)."""
    with LocalServer({"/robots.txt": Reply(body=DELAYED.format(1))}) as paced, \
            LocalServer({"/robots.txt": Reply(body="")}) as unpaced:
        starts = [url for n in range(4) for url in (unpaced.url(f"/u{n}"), paced.url(f"/p{n}"))]
        r = crawl({"ROBOTS_POLICY_CRAWL_DELAY": True}, start_urls=starts)
    assert len(arrivals(paced)) == 4 and len(arrivals(unpaced)) == 4
    assert min(gaps(arrivals(paced))) >= 1 - SLACK, gaps(arrivals(paced))
    assert r.stat("robotstxt/crawl_delay/late") == 0


# -- site back-off ---------------------------------------------------------------------------


def test_429_with_retry_after_pauses_the_origin_retries_included() -> None:
    slow_down = Reply(429, headers={"Retry-After": "2"})
    with LocalServer({"/robots.txt": Reply(body="User-agent: *\nDisallow:\n"),
                      "/a": answers(slow_down, Reply(body="a"))}) as s:
        r = crawl(retrying(), start_urls=[s.url("/a"), s.url("/b")])
    first = arrivals(s, "/a")[0]
    later = [t for t in arrivals(s) if t > first]
    assert len(later) == 2 and min(later) - first >= 2 - SLACK  # /b, the retry of /a
    assert sorted(item["url"] for item in r.items) == [s.url("/a"), s.url("/b")]
    assert r.stat("robots_policy/backoff/pauses") == 1
    assert r.stat("robots_policy/backoff/pauses/429") == 1
    assert r.stat("robots_policy/backoff/requests_held") >= 1
    assert log_lines(r, rf"^INFO .*{s.origin} answered 429 \(Retry-After: 2\): no request "
                        r"to it for 2 s")


def test_503_without_retry_after_backs_off_longer_each_time_in_a_row() -> None:
    with LocalServer({"/robots.txt": Reply(body=""),
                      "/a": answers(Reply(503), Reply(503), Reply(body="a"))}) as s:
        r = crawl(retrying(), start_urls=[s.url("/a")])
    tries = arrivals(s, "/a")
    assert len(tries) == 3
    first, second = gaps(tries)
    assert first >= 1 - SLACK and second >= 2 - SLACK, (first, second)
    assert [item["url"] for item in r.items] == [s.url("/a")]
    assert r.stat("robots_policy/backoff/pauses/503") == 2


def test_retry_after_past_the_maximum_is_capped_with_one_warning() -> None:
    slow_down = Reply(429, headers={"Retry-After": "86400"})
    with LocalServer({"/robots.txt": Reply(body=""),
                      "/a": answers(slow_down, slow_down, Reply(body="a"))}) as s:
        r = crawl(retrying({"ROBOTS_POLICY_SITE_BACKOFF_MAX": 1.5}), start_urls=[s.url("/a")])
    assert [round(gap, 1) >= 1.5 for gap in gaps(arrivals(s, "/a"))] == [True, True]
    assert r.items
    assert r.stat("robots_policy/backoff/capped") == 2
    warned = log_lines(r, rf"^WARNING .*Retry-After of 86400 s from {s.origin} capped to "
                          r"1.5 s \(ROBOTS_POLICY_SITE_BACKOFF_MAX\)")
    assert len(warned) == 1


def test_a_retry_after_naming_no_future_time_backs_off_and_says_why_once() -> None:
    slow_down = Reply(503, headers={"Retry-After": "\xb2"})
    with LocalServer({"/robots.txt": Reply(body=""),
                      "/a": answers(slow_down, slow_down, Reply(body="a"))}) as s:
        r = crawl(retrying(), start_urls=[s.url("/a")])
    assert [gap >= expected - SLACK for gap, expected in
            zip(gaps(arrivals(s, "/a")), (1, 2), strict=True)] == [True, True]
    said = log_lines(r, rf"^INFO .*Retry-After from {s.origin} not used \(not delay-seconds "
                        r"nor an HTTP-date: '.'\): backing off instead")
    assert len(said) == 1
    assert r.stat("robots_policy/backoff/unusable_retry_after") == 2


def test_other_host_names_keep_going_while_one_origin_is_paused() -> None:
    """Held requests wait in their slot, where the downloader-aware queue (Scrapy's default
    since 2.14) sees them: the paused site's many requests do not take every place."""
    slow_down = Reply(429, headers={"Retry-After": "3"})
    with LocalServer({"/robots.txt": Reply(body=""),
                      "/a": answers(slow_down, Reply(body="a"))}) as paused, \
            LocalServer({"/robots.txt": Reply(body="")}) as other:
        other_urls = [other.url(f"/b{n}").replace("127.0.0.1", "localhost") for n in range(6)]
        r = crawl(retrying({"CONCURRENT_REQUESTS": 4, "SCHEDULER_PRIORITY_QUEUE":
                            "scrapy.pqueues.DownloaderAwarePriorityQueue"}),
                  start_urls=[paused.url("/a"), *(paused.url(f"/c{n}") for n in range(20)),
                              *other_urls])
    first, retry = arrivals(paused, "/a")
    assert retry - first >= 3 - SLACK
    assert len(arrivals(other)) == 6
    assert max(arrivals(other)) < first + 3  # served during the pause
    assert len(r.items) == 27


def test_site_backoff_off_leaves_retries_as_scrapy_makes_them() -> None:
    slow_down = Reply(429, headers={"Retry-After": "5"})
    with LocalServer({"/robots.txt": Reply(body=""), "/a": slow_down}) as s:
        r = crawl(retrying({"ROBOTS_POLICY_SITE_BACKOFF": False}), start_urls=[s.url("/a")])
    tries = arrivals(s, "/a")
    assert len(tries) == 3  # the request and Scrapy's 2 retries
    assert tries[-1] - tries[0] < 1  # at once, as Scrapy's RetryMiddleware does
    assert not any(key.startswith("robots_policy/backoff/") for key in r.stats)


# -- closing ---------------------------------------------------------------------------------


def test_closing_refuses_requests_held_by_a_pause_at_once() -> None:
    slow_down = Reply(429, headers={"Retry-After": "60"})
    with LocalServer({"/robots.txt": Reply(body=""), "/a": slow_down}) as s:
        r = crawl(retrying({"CLOSESPIDER_TIMEOUT": 2}),
                  start_urls=[s.url(p) for p in ("/a", "/b", "/c")], timeout=60)
    assert r.stat("finish_reason") == "closespider_timeout"
    assert arrivals(s) == arrivals(s, "/a")[:1]  # nothing after the 429
    assert r.stat("robots_policy/backoff/closing") == 3  # /b, /c and the retry of /a
    assert log_lines(r, r"^INFO .*The crawl is closing: refused 3 requests held for their "
                        r"origin's pace \(3 pause\)")
    assert r.stat("robots_policy/backoff/requests_held") == 3
    assert r.seconds < 15  # not the 60 s of the pause


def test_robots_txt_settled_after_closing_began_lets_no_waiting_request_through() -> None:
    with LocalServer({"/robots.txt": Reply(body="", delay=2.5)}) as s:
        r = crawl({"CLOSESPIDER_TIMEOUT": 1, "ROBOTS_POLICY_FETCH_TIMEOUT": 10},
                  start_urls=[s.url(f"/p{n}") for n in range(12)], timeout=60)
    assert arrivals(s) == []
    assert r.stat("robotstxt/forbidden/closing") == 12
    assert log_lines(r, r"^INFO .*robots.txt of .* settled too late: the crawl is closing; "
                        r"refusing 12 waiting requests")
