"""tdmrep.json once per cluster: with ``ROBOTS_POLICY_REDIS_URL``, the processes of a crawl
share each origin's tdmrep.json as they share its robots.txt, answers and failures alike.

A real ``redis-server`` (``tests/conftest.py``); the crawls are real Scrapy processes run
side by side against one local server, which counts what it was asked.
"""

from __future__ import annotations

from tests.cache.test_rediscache import Pages, settings, urls
from tests.support import CrawlResult, LocalServer, RedisServer, Reply, start_crawl

RESERVED = ('[{"location": "/research/*", "tdm-reservation": 1, '
            '"tdm-policy": "https://example.com/policy.json"}]')
ROUTES = {"/robots.txt": Reply(body="User-agent: *\nAllow: /\n")}
TDMREP = "/.well-known/tdmrep.json"


def crawl_twice(redis: RedisServer, server: LocalServer, paths: list[str],
                **more: object) -> list[CrawlResult]:
    """Two processes crawling the same pages at once, declaring ``tdm``."""
    crawls = [start_crawl(Pages, settings(redis.url, ROBOTS_POLICY_PURPOSES=["tdm"], **more),
                          start_urls=urls([server], *paths)) for _ in range(2)]
    return [crawl.result() for crawl in crawls]


def test_two_processes_fetch_an_origins_tdmrep_json_once_and_both_obey_it(
        redis_server: RedisServer) -> None:
    # Slow, so that the second process asks while the first is fetching it.
    routes = {**ROUTES, TDMREP: Reply(body=RESERVED, delay=0.5,
                                      headers={"Content-Type": "application/json"})}
    with LocalServer(routes) as s:
        results = crawl_twice(redis_server, s, ["/plain", "/research/paper"])
    assert s.hits(TDMREP) == 1
    assert s.hits("/robots.txt") == 1
    assert s.hits("/plain") == 2 and s.hits("/research/paper") == 0
    assert sorted(r.stat("robots_policy/tdmrep/request_count") for r in results) == [0, 1]
    assert sorted(r.stat("robots_policy/tdmrep/redis_shared") for r in results) == [0, 1]
    for r in results:
        assert r.stat("robots_policy/usage/requests_refused/tdmrep.json/tdm") == 1
        assert r.stat("robotstxt/redis_errors") == 0
        assert not [line for line in r.log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    keys = sorted(k.decode() for k in redis_server.client.keys("robots_policy:*"))
    assert keys == [f"robots_policy:{{{s.origin}}}", f"robots_policy:{{{s.origin}}}#tdmrep.json"]
    assert redis_server.client.hget(keys[1], "kind") == b"body"
    assert all(redis_server.client.ttl(k) > 0 for k in keys)  # and the leases released


def test_an_unreachable_tdmrep_json_is_retried_by_one_process_and_refuses_in_both(
        redis_server: RedisServer) -> None:
    # 503: retried while requests wait (as robots.txt is), then held as unreachable for a
    # while; the other process takes that outcome from Redis instead of asking again.
    routes = {**ROUTES, TDMREP: Reply(503, "down", delay=0.2)}
    with LocalServer(routes) as s:
        results = crawl_twice(redis_server, s, ["/plain"], ROBOTS_POLICY_RETRY_PATIENCE=0.5,
                              ROBOTS_POLICY_RETRY_BACKOFF=5.0)
    fetching, sharing = sorted(results,
                               key=lambda r: -r.stat("robots_policy/tdmrep/request_count"))
    assert s.hits(TDMREP) == fetching.stat("robots_policy/tdmrep/request_count") >= 2
    assert fetching.stat("robots_policy/tdmrep/unreachable_count") == 1
    assert sharing.stat("robots_policy/tdmrep/request_count") == 0
    assert sharing.stat("robots_policy/tdmrep/redis_shared") == 1
    assert s.hits("/plain") == 0
    for r in results:
        assert r.stat("robots_policy/usage/requests_refused/tdmrep.json/tdm") == 1
    entry = f"robots_policy:{{{s.origin}}}#tdmrep.json"
    assert redis_server.client.hget(entry, "kind") == b"deny"
    assert redis_server.client.hget(entry, "fetched_at") == b""  # unreachable, not fetched
