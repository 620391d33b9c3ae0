"""Sharing robots.txt through Redis: one fetch per origin across processes, never less obeyed.

A real ``redis-server`` runs on 127.0.0.1 per test (``tests/conftest.py``); the crawls are
real Scrapy processes.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pytest
from scrapy import Request, Spider

from scrapy_robots_policy.cache.redis_store import SOCKET_TIMEOUT, RedisStore, decode, encode
from scrapy_robots_policy.cache.wakeups import Wakeups
from scrapy_robots_policy.fetch.document import TDMREP_JSON
from scrapy_robots_policy.fetch.origin import origin_of
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.scrapy.redis_outages import RECONNECT_AFTER
from tests.support import (
    LocalServer,
    RedisServer,
    Reply,
    Seen,
    free_ports,
    run_crawl,
    start_crawl,
)

ROBOTS = "User-agent: *\nDisallow: /private\n"


class Pages(Spider):
    """Fetches ``start_urls``; after a page whose path is in ``plan``, fetches plan[path]."""

    name = "pages"
    plan: dict[str, list[str]] = {}  # noqa: RUF012 (set per crawl through a keyword)

    async def start(self) -> Any:
        for url in self.start_urls:
            yield Request(url, dont_filter=True)

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}
        for url in self.plan.get("/" + response.url.split("/", 3)[3], []):
            yield Request(url, dont_filter=True)


def settings(url: str, **more: Any) -> dict[str, Any]:
    return {"ADDONS": {"scrapy_robots_policy.Addon": 0}, "ROBOTSTXT_OBEY": True,
            "RETRY_ENABLED": False, "ROBOTS_POLICY_FETCH_TIMEOUT": 2.0,
            "ROBOTS_POLICY_REDIS_URL": url, **more}


def urls(servers: list[LocalServer], *paths: str) -> list[str]:
    return [s.url(p) for s in servers for p in paths]


def warnings(result: Any, pattern: str) -> list[str]:
    return [line for line in result.log.splitlines()
            if line.startswith("WARNING") and re.search(pattern, line)]


# -- across processes ------------------------------------------------------------------------


@pytest.mark.parametrize("processes", [2, 3])
def test_processes_sharing_redis_fetch_each_robots_txt_once_and_all_obey_it(
        redis_server: RedisServer, processes: int) -> None:
    # A slow robots.txt, so that the processes ask for it while one of them fetches it.
    robots = Reply(body=ROBOTS, delay=0.5)
    with LocalServer({"/robots.txt": robots}) as a, LocalServer({"/robots.txt": robots}) as b, \
            LocalServer({"/robots.txt": robots}) as c:
        servers = [a, b, c]
        start = urls(servers, "/page", "/private/x", "/private")
        crawls = [start_crawl(Pages, settings(redis_server.url), start_urls=start)
                  for _ in range(processes)]
        results = [crawl.result() for crawl in crawls]
    for s in servers:
        assert s.hits("/robots.txt") == 1, s.paths()
        assert s.hits("/page") == processes
        assert not [p for p in s.paths() if p.startswith("/private")]
    assert sum(r.stat("robotstxt/request_count") for r in results) == 3
    assert sum(r.stat("robotstxt/redis_shared") for r in results) == 3 * (processes - 1)
    for r in results:
        assert len(r.items) == 3
        assert r.stat("robotstxt/forbidden/rule") == 6
        assert r.stat("robotstxt/redis_errors") == 0
        assert not [line for line in r.log.splitlines()
                    if line.startswith(("WARNING", "ERROR"))]
    keys = sorted(k.decode() for k in redis_server.client.keys("robots_policy:*"))
    assert keys == sorted(f"robots_policy:{{{s.origin}}}" for s in servers)  # leases released
    assert all(redis_server.client.ttl(k) > 0 for k in keys)


def test_a_cached_origin_is_decided_without_asking_redis_per_request(
        redis_server: RedisServer) -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        start = [s.url(f"/p{n}") for n in range(40)] + [s.url(f"/private/{n}") for n in range(10)]
        r = run_crawl(Pages, settings(redis_server.url), start_urls=start)
    assert len(r.items) == 40
    assert r.stat("robotstxt/forbidden/rule") == 10
    stats = redis_server.client.info("commandstats")
    scripts = sum(v["calls"] for k, v in stats.items() if k in ("cmdstat_evalsha",
                                                                 "cmdstat_eval"))
    assert 2 <= scripts <= 4  # one claim, one write (each maybe retried once to load it)


def test_a_process_whose_fetch_dies_with_it_is_taken_over_after_its_lease(
        redis_server: RedisServer) -> None:
    asked: list[Seen] = []

    def robots(seen: Seen) -> Reply:
        asked.append(seen)
        # The first process never gets its answer: it is killed while waiting for it.
        return Reply(body=ROBOTS, delay=30 if len(asked) == 1 else 0)

    lease = {"ROBOTS_POLICY_REDIS_LEASE_TIME": 1.0}
    with LocalServer({"/robots.txt": robots}) as s:
        start = urls([s], "/page", "/private/x")
        first = start_crawl(Pages, settings(redis_server.url, **lease), start_urls=start)
        for _ in range(600):
            if asked:
                break
            time.sleep(0.05)
        first.kill()
        lease_key = f"robots_policy:{{{s.origin}}}#lease"
        assert redis_server.client.exists(lease_key)  # held by a process that is gone
        second = run_crawl(Pages, settings(redis_server.url, **lease), start_urls=start)
    assert s.hits("/robots.txt") == 2  # the dead one's, then the one that took over
    assert s.paths().count("/page") == 1
    assert "/private/x" not in s.paths()
    assert second.stat("robotstxt/request_count") == 1
    assert second.stat("robotstxt/forbidden/rule") == 1
    assert not redis_server.client.exists(lease_key)


# -- Redis down --------------------------------------------------------------------------------


def test_redis_killed_mid_crawl_each_process_fetches_for_itself_and_still_obeys(
        redis_server: RedisServer) -> None:
    def kill(seen: Seen) -> Reply:
        redis_server.kill()
        return Reply(body="<html>redis killed</html>", headers={"Content-Type": "text/html"})

    with LocalServer({"/robots.txt": Reply(body=ROBOTS), "/kill": kill}) as a, \
            LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as b, \
            LocalServer({"/robots.txt": Reply(status=503)}) as c:
        plan = {"/kill": [*urls([b], "/page", "/private/x"), *urls([c], "/page"),
                          a.url("/private/y"), a.url("/after")]}
        r = run_crawl(Pages, settings(redis_server.url, ROBOTS_POLICY_RETRY_PATIENCE=0.5,
                                      ROBOTS_POLICY_RETRY_BACKOFF=0.1),
                      start_urls=[a.url("/kill")], plan=plan)
    assert redis_server.proc.poll() is not None  # it was killed during the crawl
    assert sorted(i["url"] for i in r.items) == sorted(
        [a.url("/kill"), a.url("/after"), b.url("/page")])
    assert [s.hits("/robots.txt") for s in (a, b)] == [1, 1]
    assert c.hits("/robots.txt") >= 1
    assert not [p for s in (a, b, c) for p in s.paths() if p.startswith("/private")]
    assert c.paths().count("/page") == 0  # unreachable robots.txt: refused, not allowed
    assert r.stat("robotstxt/forbidden/unreachable") == 1
    assert r.stat("robotstxt/redis_errors") >= 1
    assert len(warnings(r, r"Redis at redis://127\.0\.0\.1:\d+/0 unreachable")) == 1


def test_redis_back_after_an_outage_is_used_again(redis_server: RedisServer) -> None:
    page = {"Content-Type": "text/html"}

    def kill(seen: Seen) -> Reply:
        redis_server.kill_once_written()
        return Reply(body="<html>redis killed</html>", headers=page)

    def restart(seen: Seen) -> Reply:
        redis_server.restart()
        # Answered once this process may try Redis again.
        return Reply(body="<html>redis back</html>", headers=page,
                     delay=RECONNECT_AFTER + 0.5)

    with LocalServer({"/robots.txt": Reply(body=ROBOTS), "/kill": kill}) as a, \
            LocalServer({"/robots.txt": Reply(body=ROBOTS), "/restart": restart}) as b, \
            LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as c:
        plan = {"/kill": [b.url("/restart")], "/restart": urls([c], "/page", "/private/x")}
        r = run_crawl(Pages, settings(redis_server.url, DOWNLOAD_TIMEOUT=60),
                      start_urls=[a.url("/kill")], plan=plan)
    assert len(r.items) == 3
    assert "/private/x" not in c.paths()
    assert r.stat("robotstxt/redis_errors") == 1  # b's claim; c's went through
    assert [line for line in r.log.splitlines()
            if line.startswith("INFO") and "reachable again" in line]
    assert redis_server.client.exists(f"robots_policy:{{{c.origin}}}")  # c's answer is shared
    assert not redis_server.client.exists(f"robots_policy:{{{b.origin}}}")  # fetched while down


def test_redis_unreachable_from_the_start_does_not_stop_the_crawl() -> None:
    url = f"redis://:secret@127.0.0.1:{next(free_ports(1))}/0"
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        r = run_crawl(Pages, settings(url), start_urls=urls([s], "/page", "/private/x"))
    assert s.paths().count("/robots.txt") == 1
    assert "/private/x" not in s.paths()
    assert len(r.items) == 1
    assert r.stat("robotstxt/redis_errors") >= 1
    assert warnings(r, "Redis at redis://127.0.0.1:.* unreachable")
    assert "secret" not in r.log


def test_a_malformed_redis_url_is_an_error_in_the_log_not_a_stopped_crawl() -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        r = run_crawl(Pages, settings("not-a-redis-url"),
                      start_urls=urls([s], "/page", "/private/x"))
    assert "/private/x" not in s.paths()
    assert len(r.items) == 1
    assert r.stat("robotstxt/redis_errors") == 1
    assert [line for line in r.log.splitlines()
            if line.startswith("ERROR") and "ROBOTS_POLICY_REDIS_URL" in line]


def test_an_unreadable_entry_in_redis_is_replaced_by_a_fetch_not_obeyed(
        redis_server: RedisServer) -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        key = f"robots_policy:{{{s.origin}}}"
        redis_server.client.hset(key, mapping={"expires_at": time.time() + 3600,
                                               "kind": "pickle", "body": "?"})
        r = run_crawl(Pages, settings(redis_server.url),
                      start_urls=urls([s], "/page", "/private/x"))
    assert s.hits("/robots.txt") == 1
    assert s.paths().count("/page") == 1 and "/private/x" not in s.paths()
    assert r.stat("robotstxt/redis_errors") == 1
    assert warnings(r, "unreadable entry .* in Redis; fetching it here")
    assert redis_server.client.hget(key, "kind") == b"rules"  # replaced by the fetched one


# -- the store on its own ------------------------------------------------------------------------


NEW = b"User-agent: *\nDisallow: /new"


def entry(body: bytes, at: float) -> CachedAnswer:
    return CachedAnswer(RobotsTxt.parse(body), f"200, {len(body)} bytes", at + 100.0, at, 0, body)


def test_an_older_answer_never_overwrites_a_newer_one(redis_server: RedisServer) -> None:
    origin = origin_of("http://example.com/")
    assert origin is not None

    async def scenario() -> tuple[bool, bool, Any]:
        store = RedisStore(redis_server.url)
        try:
            new, old = entry(NEW, 2000.0), entry(b"User-agent: *\nDisallow: /old", 1000.0)
            newer = await store.write(origin, new, 2000.0, 2000.0)
            older = await store.write(origin, old, 1000.0, 2001.0)  # the slow process
            state, stored, _ = await store.claim(origin, 2002.0, "t")
            return newer, older, (state, stored)
        finally:
            await store.close()

    newer, older, (state, stored) = asyncio.run(scenario())
    assert (newer, older) == (True, False)
    assert state == "fresh"
    assert stored.body == NEW
    assert not stored.rules.allowed("/new", "bot")
    assert stored.fetched_at == 2000.0


def test_one_lease_holder_at_a_time_and_its_answer_ends_the_wait(
        redis_server: RedisServer) -> None:
    origin = origin_of("http://example.com/")
    assert origin is not None

    async def scenario() -> list[str]:
        store = RedisStore(redis_server.url, lease_time=60.0)
        try:
            states = [(await store.claim(origin, 10.0, "a"))[0],
                      (await store.claim(origin, 10.0, "b"))[0],
                      "renewed by b" if await store.renew(origin, "b") else "not b's",
                      "renewed by a" if await store.renew(origin, "a") else "not a's"]
            await store.write(origin, entry(b"Disallow: /x", 10.0), 10.0, 10.0, "a")
            states.append((await store.claim(origin, 11.0, "b"))[0])
            return states
        finally:
            await store.close()

    assert asyncio.run(scenario()) == ["lease", "wait", "not b's", "renewed by a", "fresh"]


def test_a_closed_subscription_ends_whenever_the_close_comes(redis_server: RedisServer) -> None:
    """Closed at every moment of its subscribing, a process's subscription ends within the
    close's bound and leaves no subscriber behind. On Python 3.10 and 3.11 a cancellation
    that lands as redis-py sends SUBSCRIBE is lost (asyncio.wait_for, CPython gh-86296):
    a close that only cancelled its reader then waited for good, and the crawl never
    ended (a scrapy-redis worker's close, seen in CI)."""

    async def scenario() -> tuple[list[float], int]:
        store = RedisStore(redis_server.url)
        took = []
        try:
            for n in range(40):  # 0 to 8 ms after the subscribing begins
                wakeups = Wakeups(store)
                listening = asyncio.ensure_future(wakeups.listening())
                await asyncio.sleep(n * 0.0002)
                started = time.monotonic()
                closing = asyncio.ensure_future(wakeups.close())
                await asyncio.wait([closing, listening], timeout=10)
                took.append(time.monotonic() - started if closing.done() else float("inf"))
            for _ in range(100):  # the server drops a closed connection a moment later
                subscribers = (await store.client.pubsub_numsub(store.channel))[0][1]
                if not subscribers:
                    break
                await asyncio.sleep(0.01)
            return took, subscribers
        finally:
            await store.close()

    took, subscribers = asyncio.run(scenario())
    assert max(took) <= 2 * SOCKET_TIMEOUT + 0.5, took
    assert subscribers == 0


def test_fixed_outcomes_and_times_survive_the_round_trip() -> None:
    unreachable = CachedAnswer(RobotsTxt.disallow_all(), "503", 50.0, None, 3, status=503)
    allow = CachedAnswer(RobotsTxt.allow_all(), "404: allow all", 60.0, 10.0, status=404)
    lost = CachedAnswer(RobotsTxt.disallow_all(), "TimeoutError", 50.0, None, 1)
    for original in (unreachable, allow, lost):
        assert decode(flat(encode(original))) == original


def test_an_entry_written_before_statuses_were_kept_reads_as_no_status() -> None:
    fields = encode(CachedAnswer(RobotsTxt.allow_all(), "404: allow all", 60.0, 10.0,
                                 status=404))
    del fields["status"]
    assert decode(flat(fields)).status is None  # a spider's own request is downloaded


def flat(fields: dict[str, bytes | str]) -> list[bytes]:
    """The fields as a flat ``HGETALL`` reply."""
    reply: list[bytes] = []
    for name, value in fields.items():
        reply += [name.encode(), value if isinstance(value, bytes) else value.encode()]
    return reply


def test_a_body_kept_for_its_own_reader_survives_the_round_trip() -> None:
    # tdmrep.json: allow all as far as robots.txt goes, the body kept for its reader.
    tdmrep = CachedAnswer(RobotsTxt.allow_all(), "200, 2 bytes", 60.0, 10.0, 0, b"[]")
    assert decode(flat(encode(tdmrep))) == tdmrep


def test_each_document_has_keys_of_its_own_in_its_origins_slot() -> None:
    origin = origin_of("http://example.com/")
    assert origin is not None
    robots = RedisStore("redis://127.0.0.1:1/0")  # no connection is made to name keys
    tdmrep = RedisStore("redis://127.0.0.1:1/0", document=TDMREP_JSON)
    assert robots.keys(origin) == ("robots_policy:{http://example.com}",
                                   "robots_policy:{http://example.com}#lease")
    assert tdmrep.keys(origin) == ("robots_policy:{http://example.com}#tdmrep.json",
                                   "robots_policy:{http://example.com}#tdmrep.json#lease")
    assert (robots.announced(origin), tdmrep.announced(origin)) == (
        "http://example.com", "http://example.com#tdmrep.json")
