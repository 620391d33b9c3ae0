"""A cluster as polite as one process: what sharing Crawl-delay and waking waiters measure.

1. Cluster: P Scrapy processes (8) crawl O origins (50) at once, each origin asking for
   ``Crawl-delay: D`` (1 s), each process fetching K pages (3) of every origin; once
   sharing a real ``redis-server``, once without Redis (each process alone: the peer).
   Counted by the HTTP servers: robots.txt fetches per origin, and the most page requests
   one origin received within any window of D seconds (the smallest gap between two
   of them, too).
2. No starvation: one process, origin A with ``Crawl-delay: 2`` and origin B without
   (another host name, so another Scrapy slot), their URLs interleaved; B's pages per
   second (its requests' span, as its server saw them) against a crawl of B alone, runs
   alternating; with Redis (held requests), and without (Scrapy's slot delay) for reference.
3. Wake-up: a waiter waits for another's write (written at a random moment); the delay
   from the write to the waiter having the answer, woken by the write (this package)
   against polling (the loop of the previous release: 50 ms doubling to 500 ms).
4. Memory: 100,000 origins written through the store, bodies cycling over the real
   robots.txt corpus (capped at 500 KiB as the middleware caps them); ``MEMORY USAGE`` of
   the entries (median, mean) and ``used_memory`` grown per origin.

    python bench/bench_cluster.py             # all, 3 runs where runs apply
    python bench/bench_cluster.py --only wake --only memory

Needs ``redis-server`` on the PATH and the ``redis`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_redis import Pages, serve  # the same spider and servers as one process's bench

from scrapy_robots_policy.cache.redis_store import RedisStore
from scrapy_robots_policy.cache.wakeups import Wakeups
from scrapy_robots_policy.fetch.origin import Origin
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.robotstxt import RobotsTxt
from tests.support import LocalServer, RedisServer, Reply, start_crawl

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "robots-txt"
MAX_SIZE = 500 * 1024


class SentAt:
    """Last downloader middleware before the download handler: when each page request
    leaves the process (wall clock, shared by the processes), kept in the stats, so gaps
    are also measured on the crawlers' side, free of the test servers' own delays."""

    def __init__(self, stats: Any) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> SentAt:
        return cls(crawler.stats)

    def process_request(self, request: Any, spider: Any = None) -> None:
        if not request.url.endswith("/robots.txt"):
            key = f"bench/sent/{request.url.split('/')[2]}"
            self.stats.set_value(key, [*(self.stats.get_value(key) or []), time.time()])


def settings(redis_url: str | None) -> dict[str, Any]:
    s: dict[str, Any] = {"ADDONS": {"scrapy_robots_policy.Addon": 0}, "ROBOTSTXT_OBEY": True,
                         "RETRY_ENABLED": False, "LOG_LEVEL": "WARNING",
                         "ROBOTS_POLICY_CRAWL_DELAY": True,
                         "DOWNLOADER_MIDDLEWARES": {f"{__name__}.SentAt": 999}}
    if redis_url:
        s["ROBOTS_POLICY_REDIS_URL"] = redis_url
    return s


def most_in_window(times: list[float], window: float) -> int:
    """The most requests within any ``window`` seconds (half-open: a request exactly one
    window after another is in the next window)."""
    best, first = 0, 0
    for last, at in enumerate(times):
        while at - times[first] >= window:
            first += 1
        best = max(best, last - first + 1)
    return best


def cluster(processes: int, origins: int, pages: int, delay: float) -> None:
    robots = f"User-agent: *\nCrawl-delay: {delay}\n"
    print(f"\n1. {processes} processes x {origins} origins (Crawl-delay: {delay}), {pages} "
          "pages of each origin per process")
    with contextlib.ExitStack() as stack:
        servers = [serve(stack, Reply(body=robots)) for _ in range(origins)]
        redis = RedisServer.start()
        stack.callback(redis.stop)
        urls = [s.url(f"/p{n}") for n in range(pages) for s in servers]
        for label, url in (("shared (Redis)", redis.url), ("each process alone", None)):
            for s in servers:
                s.seen.clear()
            started = time.monotonic()
            crawls = [start_crawl(Pages, settings(url), start_urls=urls)
                      for _ in range(processes)]
            results = [crawl.result(900) for crawl in crawls]
            late = sum(result.stat("robotstxt/crawl_delay/late") for result in results)
            sent: dict[str, list[float]] = {}
            for result in results:
                for key, value in result.stats.items():
                    if key.startswith("bench/sent/"):
                        sent.setdefault(key, []).extend(value)
            took = time.monotonic() - started
            fetches = [s.hits("/robots.txt") for s in servers]
            times = [sorted(x.at for x in s.seen if x.path != "/robots.txt") for s in servers]
            windows = [most_in_window(t, delay) for t in times]
            gaps = [b - a for t in times for a, b in itertools.pairwise(t)]
            print(f"  {label}: robots.txt fetches per origin median {statistics.median(fetches):g}"
                  f" (max {max(fetches)}); requests per origin per {delay} s window: max "
                  f"{max(windows)} (median over origins {statistics.median(windows):g}); "
                  f"smallest gap {min(gaps):.3f} s, gaps under {delay - 0.01:g} s "
                  f"{sum(g < delay - 0.01 for g in gaps)} of {len(gaps)}; pages "
                  f"{sum(map(len, times))} of {processes * origins * pages}; {took:.1f} s")
            left = [sorted(t) for t in sent.values()]
            left_gaps = [b - a for t in left for a, b in itertools.pairwise(t)]
            print(f"    as the crawlers sent them: per {delay} s window max "
                  f"{max(most_in_window(t, delay) for t in left)}; smallest gap "
                  f"{min(left_gaps):.3f} s, under {delay - 0.01:g} s "
                  f"{sum(g < delay - 0.01 for g in left_gaps)} of {len(left_gaps)}")
            if url:
                turns = redis.client.info("commandstats")["cmdstat_time"]["calls"]
                print(f"    turn scripts {turns} for {sum(map(len, times))} pages "
                      f"({late} turns taken again, woken late)")


def b_pages_per_second(a: LocalServer | None, b_urls: list[str], b: LocalServer,
                       redis_url: str | None, a_pages: int) -> float:
    b.seen.clear()
    urls = list(b_urls)
    if a is not None:
        a_urls = [a.url(f"/a{n}") for n in range(a_pages)]
        step = len(b_urls) // len(a_urls)
        urls = [u for i, bu in enumerate(b_urls)
                for u in ([a_urls[i // step]] if i % step == 0 and i // step < a_pages
                          else []) + [bu]]
    start_crawl(Pages, settings(redis_url), start_urls=urls).result(600)
    times = sorted(x.at for x in b.seen if x.path != "/robots.txt")
    return (len(times) - 1) / (times[-1] - times[0])


def starvation(runs: int, b_pages: int, a_pages: int) -> None:
    print(f"\n2. B's pages/s ({b_pages} pages), A ({a_pages} pages, Crawl-delay: 2) "
          f"interleaved, against B alone; {runs} runs alternating")
    with contextlib.ExitStack() as stack:
        a = serve(stack, Reply(body="User-agent: *\nCrawl-delay: 2\n"))
        b = serve(stack, Reply(body="User-agent: *\nDisallow: /private\n"))
        redis = RedisServer.start()
        stack.callback(redis.stop)
        # "localhost" for B: Scrapy's slots are per host, and the slot of a delayed host
        # is delayed for all its origins (a separate matter).
        b_urls = [f"http://localhost:{b.port}/b{n}" for n in range(b_pages)]
        for label, url in (("shared (Redis)", redis.url), ("each process alone", None)):
            ratios, mixed, alone = [], [], []
            for run in range(runs):
                order = [True, False] if run % 2 == 0 else [False, True]
                got = {}
                for with_a in order:
                    redis.client.flushall()
                    got[with_a] = b_pages_per_second(a if with_a else None, b_urls, b, url,
                                                     a_pages)
                mixed.append(got[True])
                alone.append(got[False])
                ratios.append(got[True] / got[False])
            print(f"  {label}: B with A {statistics.median(mixed):.1f} pages/s, B alone "
                  f"{statistics.median(alone):.1f}; median ratio {statistics.median(ratios):.3f}"
                  f" (runs: {', '.join(f'{r:.3f}' for r in ratios)})")


async def _wake_delays(url: str, trials: int, woken: bool) -> list[float]:
    """Seconds from the start of the write to the waiter holding the answer."""
    writer, waiter = RedisStore(url, lease_time=60.0), RedisStore(url, lease_time=60.0)
    wakeups = Wakeups(waiter)
    body = b"User-agent: *\nDisallow: /x\n"
    delays = []
    try:
        for n in range(trials):
            origin = Origin("http", f"wake{n}.{woken}.example", 80)
            assert (await writer.claim(origin, 1.0, "w"))[0] == "lease"
            written: list[float] = []

            async def write(origin: Origin = origin, written: list[float] = written) -> None:
                await asyncio.sleep(random.uniform(0.0, 1.0))
                written.append(time.monotonic())
                entry = CachedAnswer(RobotsTxt.parse(body), "200", 1e12, 1.0, 0, body)
                await writer.write(origin, entry, 1.0, 1.0, "w")

            task = asyncio.ensure_future(write())
            await (_woken_wait(waiter, wakeups, origin) if woken
                   else _polled_wait(waiter, origin))
            delays.append(time.monotonic() - written[0])
            await task
    finally:
        await wakeups.close()
        await writer.close()
        await waiter.close()
    return delays


async def _woken_wait(store: RedisStore, wakeups: Wakeups, origin: Origin) -> None:
    while True:
        with wakeups.watch(origin) as woken:
            await wakeups.listening()
            state, _, left = await store.claim(origin, 2.0, "r")
            if state == "fresh":
                return
            await asyncio.wait([woken], timeout=max(left, 0.01))


async def _polled_wait(store: RedisStore, origin: Origin) -> None:
    wait = 0.05
    while (await store.claim(origin, 2.0, "r"))[0] != "fresh":
        await asyncio.sleep(wait)
        wait = min(wait * 2, 0.5)


def wake(trials: int) -> None:
    print(f"\n3. Wake-up delay, write to answer in hand ({trials} writes each, at a random "
          "moment within 1 s of the wait's start)")
    redis = RedisServer.start()
    try:
        for label, woken in (("woken by the write", True), ("polling 50-500 ms", False)):
            d = sorted(asyncio.run(_wake_delays(redis.url, trials, woken)))
            p99 = d[min(len(d) - 1, int(len(d) * 0.99))]
            print(f"  {label}: median {statistics.median(d) * 1000:.2f} ms, p99 "
                  f"{p99 * 1000:.2f} ms")
    finally:
        redis.stop()


async def _write_many(url: str, count: int, bodies: list[bytes]) -> None:
    store = RedisStore(url)
    parsed = RobotsTxt.parse(b"User-agent: *\nDisallow: /x\n")  # only the body is stored
    try:
        for start in range(0, count, 50):  # within the pool of 100 connections
            writes = []
            for n in range(start, min(start + 50, count)):
                body = bodies[n % len(bodies)]
                entry = CachedAnswer(parsed, f"200, {len(body)} bytes", 4e9, 1.7e9, 0, body)
                origin = Origin("https", f"www.site{n}.example", 443)
                writes.append(store.write(origin, entry, 1.0, 1.7e9))
            await asyncio.gather(*writes)
    finally:
        await store.close()


def memory(count: int) -> None:
    files = sorted(CORPUS.glob("*.txt"))
    bodies = [f.read_bytes()[:MAX_SIZE] for f in files]
    print(f"\n4. Redis memory, {count:,} origins written, bodies cycling over {len(bodies)} "
          f"real robots.txt files (median body {statistics.median(map(len, bodies)):.0f} "
          "bytes)")
    redis = RedisServer.start()
    try:
        before = redis.client.info("memory")["used_memory"]
        asyncio.run(_write_many(redis.url, count, bodies))
        grown = redis.client.info("memory")["used_memory"] - before
        keys = list(redis.client.scan_iter("robots_policy:*", count=1000))
        assert len(keys) == count
        usage: list[int] = []
        for start in range(0, count, 1000):
            pipe = redis.client.pipeline(transaction=False)
            for key in keys[start:start + 1000]:
                pipe.memory_usage(key, samples=0)
            usage += pipe.execute()
        print(f"  MEMORY USAGE per entry (all {count:,}): median "
              f"{statistics.median(usage):,.0f} bytes, mean {statistics.mean(usage):,.0f}; "
              f"used_memory grown {grown / count:,.0f} bytes per origin "
              f"({grown / 2**20:,.0f} MiB in all)")
    finally:
        redis.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append",
                        choices=["cluster", "starvation", "wake", "memory"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--delay", type=float, default=1.0, help="Crawl-delay of part 1")
    parser.add_argument("--a-pages", type=int, default=30, help="pages of A in part 2")
    args = parser.parse_args()
    only = set(args.only or ["cluster", "starvation", "wake", "memory"])
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs")
    if "cluster" in only:
        cluster(processes=8, origins=50, pages=3, delay=args.delay)
    if "starvation" in only:
        starvation(args.runs, b_pages=2000, a_pages=args.a_pages)
    if "wake" in only:
        wake(trials=200)
    if "memory" in only:
        memory(100_000)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
