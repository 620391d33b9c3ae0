"""A cluster as polite as one process: shared Crawl-delay, woken waiters, Redis Cluster.

Real ``redis-server`` processes (one, or three masters in cluster mode) started by
``tests/conftest.py``; the crawls are real Scrapy processes against local servers.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest
from scrapy.resolver import CachingThreadedResolver, dnscache
from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.error import DNSLookupError
from twisted.internet.task import deferLater

from scrapy_robots_policy.cache.redis_store import RedisStore, escaped
from scrapy_robots_policy.fetch.origin import origin_of
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.robotstxt import RobotsTxt
from tests.cache.test_rediscache import Pages, settings, urls, warnings
from tests.support import (
    FirstAnswerRelay,
    LocalServer,
    RedisCluster,
    RedisServer,
    Reply,
    Seen,
    free_ports,
    run_crawl,
    start_crawl,
)

DELAYED = "User-agent: *\nCrawl-delay: 1\nDisallow: /private\n"
UNDELAYED = "User-agent: *\nDisallow: /private\n"
DELAY = {"ROBOTS_POLICY_CRAWL_DELAY": True}


def page_times(server: LocalServer) -> list[float]:
    return sorted(s.at for s in server.seen if s.path != "/robots.txt")


def spaced(times: list[float], seconds: float = 0.9) -> bool:
    """Whether requests came at least ``seconds`` apart (1 s delays, 0.1 s of jitter)."""
    return all(b - a >= seconds for a, b in itertools.pairwise(times))


# -- one Redis server ------------------------------------------------------------------------


def test_two_processes_together_send_one_request_per_crawl_delay(
        redis_server: RedisServer) -> None:
    with LocalServer({"/robots.txt": Reply(body=DELAYED)}) as slow, \
            LocalServer({"/robots.txt": Reply(body=UNDELAYED)}) as fast:
        start = urls([slow], "/a", "/b", "/c", "/private/x") + urls(
            [fast], *(f"/p{n}" for n in range(10)))
        crawls = [start_crawl(Pages, settings(redis_server.url, **DELAY), start_urls=start)
                  for _ in range(2)]
        results = [crawl.result() for crawl in crawls]
    assert len(page_times(slow)) == 6  # 3 pages from each process, none lost
    assert spaced(page_times(slow))  # each process alone would send 2 per second
    assert len(page_times(fast)) == 20
    assert "/private/x" not in slow.paths()
    # One turn (one script, whose TIME call Redis counts) per request to the delayed
    # origin (and one more for a request that could not leave at its turn), none for the
    # other.
    retaken = sum(r.stat("robotstxt/crawl_delay/retaken") for r in results)
    assert redis_server.client.info("commandstats")["cmdstat_time"]["calls"] == 6 + retaken
    assert all(r.stat("robotstxt/crawl_delay/late") == 0 for r in results)
    assert sum(r.stat("robotstxt/crawl_delay/held") for r in results) >= 5
    assert all(r.stat("robotstxt/redis_errors") == 0 for r in results)


@pytest.mark.parametrize("throttle", [
    {"AUTOTHROTTLE_ENABLED": True, "AUTOTHROTTLE_START_DELAY": 0.1},
    {"DOWNLOAD_DELAY": 3.0},  # a longer per-process delay must not bunch the turns
], ids=["autothrottle", "download_delay"])
def test_scrapys_own_throttles_never_bunch_two_processes_requests(
        redis_server: RedisServer, throttle: dict[str, Any]) -> None:
    with LocalServer({"/robots.txt": Reply(body=DELAYED)}) as s:
        crawls = [start_crawl(Pages, settings(redis_server.url, **DELAY, **throttle),
                              start_urls=urls([s], *(f"/p{n}" for n in range(5))))
                  for _ in range(2)]
        results = [crawl.result() for crawl in crawls]
    assert len(page_times(s)) == 10
    assert spaced(page_times(s), 0.98), [round(b - a, 3) for a, b in
                                        itertools.pairwise(page_times(s))]
    assert all(r.stat("robotstxt/crawl_delay/late") == 0 for r in results)


class SlowNames(CachingThreadedResolver):
    """Scrapy's resolver, but each name takes half a second to look up, as a real DNS
    lookup may, and is 127.0.0.1."""

    def getHostByName(self, name: str, timeout: Any = ()) -> Deferred[str]:
        if name in dnscache:
            return succeed(dnscache[name])
        looked_up: Deferred[str] = deferLater(self.reactor, 0.5, lambda: "127.0.0.1")
        return looked_up.addCallback(lambda ip: dnscache.__setitem__(name, ip) or ip)


class NoNames(CachingThreadedResolver):
    """Scrapy's resolver, but no name resolves (and none is looked up)."""

    def getHostByName(self, name: str, timeout: Any = ()) -> Deferred[str]:
        return fail(DNSLookupError(name))


def test_a_name_that_does_not_resolve_fails_the_download_as_before() -> None:
    # Redis down: each process keeps the shared DOWNLOAD_DELAY itself, so every origin,
    # this robots.txt's too, is paced, and its name looked up before it leaves.
    url = f"redis://127.0.0.1:{next(free_ports(1))}/0"
    r = run_crawl(Pages, settings(url, DOWNLOAD_DELAY=0.2, DNS_RESOLVER=f"{__name__}.NoNames",
                                  ROBOTS_POLICY_SHARED_DOWNLOAD_DELAY=True),
                  start_urls=["http://nowhere.test/a"], timeout=60)
    assert r.items == []
    assert r.stat("robotstxt/forbidden") == 1  # robots.txt unreachable: refused, as before
    assert r.stat("robotstxt/forbidden/unreachable") == 1
    assert "DNS lookup failed" in r.log


def test_a_slow_name_lookup_never_brings_two_processes_requests_closer(
        redis_server: RedisServer) -> None:
    # The process that takes robots.txt from Redis looks the name up at its first page.
    slow = {**DELAY, "DNS_RESOLVER": f"{__name__}.SlowNames"}
    with LocalServer({"/robots.txt": Reply(body=DELAYED)}) as s:
        start = [f"http://slow-dns.test:{s.port}/p{n}" for n in range(3)]
        crawls = [start_crawl(Pages, settings(redis_server.url, **slow), start_urls=start)
                  for _ in range(2)]
        results = [crawl.result() for crawl in crawls]
    assert sum(len(r.items) for r in results) == 6
    assert spaced(page_times(s)), [round(b - a, 3) for a, b in
                                   itertools.pairwise(page_times(s))]


def test_a_turn_answered_late_is_taken_again_not_sent_late(redis_server: RedisServer) -> None:
    # One process's first turn comes back 0.4 s after Redis gave it (a busy host, a slow
    # network): sent then, its request would come 0.4 s closer to the next turn's.
    relay = FirstAnswerRelay(redis_server, b"#turn", seconds=0.4)
    with LocalServer({"/robots.txt": Reply(body=DELAYED)}) as s:
        start = urls([s], *(f"/p{n}" for n in range(3)))
        crawls = [start_crawl(Pages, settings(url, **DELAY), start_urls=start)
                  for url in (relay.url, redis_server.url)]
        slowed, other = [crawl.result() for crawl in crawls]
    relay.close()
    assert len(slowed.items) == len(other.items) == 3
    assert spaced(page_times(s)), [round(b - a, 3) for a, b in
                                   itertools.pairwise(page_times(s))]
    assert slowed.stat("robotstxt/crawl_delay/retaken") == 1


def test_an_unreadable_turn_is_a_redis_failure_not_a_request_waiting_forever(
        redis_server: RedisServer) -> None:
    relay = FirstAnswerRelay(redis_server, b"#turn", instead=b"$4\r\noops\r\n")
    with LocalServer({"/robots.txt": Reply(body=DELAYED)}) as s:
        r = start_crawl(Pages, settings(relay.url, **DELAY),
                        start_urls=urls([s], "/a", "/b", "/c")).result(60)
    relay.close()
    assert len(r.items) == 3
    assert spaced(page_times(s))  # kept by the process alone meanwhile
    assert r.stat("robotstxt/redis_errors") == 1
    assert warnings(r, "unreadable turn b'oops'")


def test_a_pause_one_process_observed_holds_every_process(redis_server: RedisServer) -> None:
    first = iter([True])

    def slow_down_once(seen: Seen) -> Reply:
        if next(first, False):
            return Reply(429, headers={"Retry-After": "3"})
        return Reply(body="ok")

    with LocalServer({"/robots.txt": Reply(body=UNDELAYED), "/a": slow_down_once}) as s:
        # The second process alone would send a page every 0.15 to 0.45 s throughout.
        other = start_crawl(Pages, settings(redis_server.url, DOWNLOAD_DELAY=0.3),
                            start_urls=urls([s], *(f"/p{n}" for n in range(12))))
        time.sleep(1.5)
        observer = run_crawl(Pages, settings(redis_server.url, RETRY_ENABLED=True),
                             start_urls=urls([s], "/a"))
        result = other.result()
    paused_at = next(seen.at for seen in s.seen if seen.path == "/a")
    during = [seen.path for seen in s.seen if paused_at + 0.1 < seen.at < paused_at + 2.9]
    assert during == [], during
    assert len([seen for seen in s.seen if seen.path.startswith("/p")]) == 12  # none lost
    assert observer.items and observer.stat("robots_policy/backoff/pauses/429") == 1
    assert result.stat("robots_policy/backoff/shared_pauses") == 1


def test_redis_unreachable_each_process_keeps_the_crawl_delay_itself() -> None:
    url = f"redis://127.0.0.1:{next(free_ports(1))}/0"
    with LocalServer({"/robots.txt": Reply(body=DELAYED)}) as s:
        r = run_crawl(Pages, settings(url, **DELAY), start_urls=urls([s], "/a", "/b", "/c"))
    assert len(r.items) == 3
    assert spaced(page_times(s))
    assert r.stat("robotstxt/redis_errors") >= 1
    assert len(warnings(r, "Redis at redis://127.0.0.1:.* unreachable")) == 1


def test_download_delay_shared_only_when_asked(redis_server: RedisServer) -> None:
    pages = [f"/p{n}" for n in range(3)]
    shared = {"DOWNLOAD_DELAY": 1.0, "ROBOTS_POLICY_SHARED_DOWNLOAD_DELAY": True}
    with LocalServer({"/robots.txt": Reply(body=UNDELAYED)}) as s:
        crawls = [start_crawl(Pages, settings(redis_server.url, **shared),
                              start_urls=urls([s], *pages)) for _ in range(2)]
        for crawl in crawls:
            crawl.result()
    assert len(page_times(s)) == 6
    assert spaced(page_times(s))
    with LocalServer({"/robots.txt": Reply(body=UNDELAYED)}) as s:
        crawls = [start_crawl(Pages, settings(redis_server.url, DOWNLOAD_DELAY=1.0),
                              start_urls=urls([s], *pages)) for _ in range(2)]
        for crawl in crawls:
            crawl.result()
    assert not spaced(page_times(s))  # Scrapy's delay, per process: 2 requests a second


def test_a_waiting_process_is_woken_by_the_write_not_by_the_lease(
        redis_server: RedisServer) -> None:
    # The lease outlasts the test's patience: only the write can end the wait in time.
    lease = {"ROBOTS_POLICY_REDIS_LEASE_TIME": 60.0, "ROBOTS_POLICY_FETCH_TIMEOUT": 5.0}
    asked: list[Seen] = []

    def robots(seen: Seen) -> Reply:
        asked.append(seen)
        return Reply(body=UNDELAYED, delay=1.0)

    with LocalServer({"/robots.txt": robots}) as s:
        first = start_crawl(Pages, settings(redis_server.url, **lease),
                            start_urls=urls([s], "/one"))
        while not asked:
            time.sleep(0.02)
        second = run_crawl(Pages, settings(redis_server.url, **lease),
                           start_urls=urls([s], "/two"), timeout=30)
        first.result()
    assert s.hits("/robots.txt") == 1
    assert second.stat("robotstxt/redis_shared") == 1
    assert len(second.items) == 1


# -- Redis Cluster ---------------------------------------------------------------------------


def test_two_processes_over_a_redis_cluster_fetch_once_and_share_the_delay(
        redis_cluster: RedisCluster) -> None:
    robots = Reply(body=UNDELAYED, delay=0.3)
    with LocalServer({"/robots.txt": Reply(body=DELAYED, delay=0.3)}) as slow, \
            LocalServer({"/robots.txt": robots}) as b, LocalServer({"/robots.txt": robots}) as c:
        start = urls([slow, b, c], "/a", "/b", "/private/x")
        crawls = [start_crawl(Pages, settings(redis_cluster.url, **DELAY), start_urls=start)
                  for _ in range(2)]
        results = [crawl.result() for crawl in crawls]
    for s in (slow, b, c):
        assert s.hits("/robots.txt") == 1, s.paths()
        assert len(page_times(s)) == 4
        assert not [p for p in s.paths() if p.startswith("/private")]
    assert spaced(page_times(slow))
    assert sum(r.stat("robotstxt/redis_shared") for r in results) == 3
    assert all(r.stat("robotstxt/redis_errors") == 0 for r in results)
    client = redis_cluster.client()
    # Each origin's keys in the slot of its hash tag, on the node that owns it.
    assert client.exists(f"robots_policy:{{{escaped(slow.origin)}}}")


def test_a_cluster_node_killed_mid_crawl_falls_back_for_its_origins_only(
        redis_cluster: RedisCluster) -> None:
    servers = [LocalServer({"/robots.txt": Reply(body=DELAYED if n < 2 else UNDELAYED)})
               for n in range(8)]
    keys = [f"robots_policy:{{{escaped(s.origin)}}}".encode() for s in servers]
    owners = [redis_cluster.node_of(key) for key in keys]
    victim = owners[0]  # at least one origin loses its node

    def kill(seen: Seen) -> Reply:
        victim.kill()
        return Reply(body="<html>node killed</html>", headers={"Content-Type": "text/html"})

    with LocalServer({"/robots.txt": Reply(body=UNDELAYED), "/kill": kill}) as k:
        for s in servers:
            s.__enter__()
        try:
            plan: dict[str, list[str]] = {
                "/kill": urls(servers, "/a", "/b", "/private/x")}
            r = run_crawl(Pages, settings(redis_cluster.url, **DELAY,
                                          ROBOTS_POLICY_FETCH_TIMEOUT=5.0),
                          start_urls=[k.url("/kill")], plan=plan)
        finally:
            for s in servers:
                s.__exit__()
    assert victim.proc.poll() is not None  # it was killed during the crawl
    assert sorted(i["url"] for i in r.items) == sorted([k.url("/kill"),
                                                         *urls(servers, "/a", "/b")])
    assert not [p for s in servers for p in s.paths() if p.startswith("/private")]
    # One round per origin: any fetch past the first is a retry of that round (a download
    # slowed past its timeout on a loaded machine), counted as such, never a second round.
    hits = [s.hits("/robots.txt") for s in servers]
    assert min(hits) == 1
    assert sum(hits) - len(servers) == r.stat("robotstxt/retry_count")
    assert all(spaced(page_times(s)) for s in servers[:2])  # delays kept, shared or not
    assert r.stat("robotstxt/redis_errors") >= 1
    assert len(warnings(r, r"Redis at redis\+cluster://.* unreachable")) == 1
    # Origins of the live masters are still shared (redis-py reloads the layout when one
    # node fails, so a call to another node at that moment may fall back too); those of
    # the killed one are not. 8 origins over 3 masters: none on a live one has a chance of 1
    # in 2187.
    live = {key for node in redis_cluster.nodes if node is not victim
            for key in node.client.keys("robots_policy:*")}
    assert live & {key for key, owner in zip(keys, owners, strict=True) if owner is not victim}


def test_an_origin_with_braces_keeps_all_its_keys_in_one_slot(
        redis_cluster: RedisCluster) -> None:
    origin = origin_of("http://odd{tag}.example/")
    assert origin is not None
    body = b"User-agent: *\nDisallow: /x\n"

    async def scenario() -> list[Any]:
        store = RedisStore(redis_cluster.url)
        try:
            lease = (await store.claim(origin, 1.0, "t"))[0]
            answer = CachedAnswer(RobotsTxt.parse(body), "200", 99.0, 1.0, 0, body)
            await store.write(origin, answer, 1.0, 1.0, "t")
            fresh = await store.claim(origin, 2.0, "u")
            return [lease, fresh[0], fresh[1].body if fresh[1] else None,
                    await store.turn(origin, 5.0) == 0.0, await store.turn(origin, 5.0) > 4]
        finally:
            await store.close()

    # Scripts over keys of two slots would fail with CROSSSLOT.
    assert asyncio.run(scenario()) == ["lease", "fresh", body, True, True]
