"""What sharing robots.txt through Redis buys a cluster, and what it costs a crawl.

1. Fetches per origin: N Scrapy processes (2 and 4) crawl the same origins at the same
   time, once with the in-memory cache (each process fetches every robots.txt: expect N)
   and once sharing a real ``redis-server`` (expect 1). Counted by the HTTP servers.
2. Speed: one crawl process, many origins and pages, with the Redis backend and with the
   in-memory one, alternating; Redis is emptied before each run, so every robots.txt is
   fetched (and written to Redis) in every run. Medians of pages per second (responses
   over Scrapy's ``elapsed_time_seconds``) and the median of the per-pair ratios.

    python bench/bench_redis.py               # 40 origins x 25 pages, 5 runs each
    python bench/bench_redis.py --quick       # 20 origins x 10 pages, 3 runs each

Needs ``redis-server`` on the PATH (apt-get install redis-server) and the ``redis`` extra.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis
from scrapy import Request, Spider

from tests.support import LocalServer, Reply, free_ports, start_crawl

ROBOTS = "User-agent: *\nDisallow: /private\n"


class Pages(Spider):
    name = "bench_redis"

    async def start(self) -> Any:
        for url in self.start_urls:
            yield Request(url, dont_filter=True)

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}


@contextlib.contextmanager
def redis_server() -> Iterator[tuple[str, redis.Redis]]:
    exe = shutil.which("redis-server")
    if exe is None:
        sys.exit("redis-server is not installed (apt-get install redis-server)")
    port = next(free_ports(1))
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        for _ in range(200):
            with contextlib.suppress(redis.ConnectionError):
                client.ping()
                break
            time.sleep(0.05)
        yield url, client
    finally:
        client.close()
        proc.kill()
        proc.wait(10)


def settings(redis_url: str | None) -> dict[str, Any]:
    s: dict[str, Any] = {"ADDONS": {"scrapy_robots_policy.Addon": 0}, "ROBOTSTXT_OBEY": True,
                         "RETRY_ENABLED": False, "LOG_LEVEL": "INFO",
                         "CONCURRENT_REQUESTS": 32, "CONCURRENT_REQUESTS_PER_DOMAIN": 8}
    if redis_url:
        s["ROBOTS_POLICY_REDIS_URL"] = redis_url
    return s


def serve(stack: contextlib.ExitStack, reply: Reply) -> LocalServer:
    server = stack.enter_context(LocalServer({"/robots.txt": reply}))
    # socketserver listens with a backlog of 5: with 8 connections per origin at once,
    # some SYNs are dropped and retried a second later, which swamps what is measured.
    server._httpd.socket.listen(128)
    return server


def start_urls(servers: list[LocalServer], pages: int) -> list[str]:
    paths = [f"/p{n}" if n % 5 else f"/private/p{n}" for n in range(pages)]
    return [s.url(p) for s in servers for p in paths]


def fetches_per_origin(servers: list[LocalServer], processes: int, pages: int,
                       redis_url: str | None) -> tuple[float, int]:
    """Median robots.txt requests per origin, and pages downloaded, with N processes."""
    for s in servers:
        s.seen.clear()
    urls = start_urls(servers, pages)
    crawls = [start_crawl(Pages, settings(redis_url), start_urls=urls)
              for _ in range(processes)]
    for crawl in crawls:
        crawl.result(300)
    per_origin = [s.hits("/robots.txt") for s in servers]
    downloaded = sum(1 for s in servers for p in s.paths() if p != "/robots.txt")
    return statistics.median(per_origin), downloaded


def pages_per_second(servers: list[LocalServer], pages: int, redis_url: str | None) -> float:
    result = start_crawl(Pages, settings(redis_url),
                         start_urls=start_urls(servers, pages)).result(300)
    return result.stat("response_received_count") / result.stat("elapsed_time_seconds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--origins", type=int, default=40)
    parser.add_argument("--pages", type=int, default=25)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.origins, args.pages, args.runs = 20, 10, 3

    with contextlib.ExitStack() as stack:
        # A slow robots.txt (0.2 s), so that processes overlap while one of them fetches.
        servers = [serve(stack, Reply(body=ROBOTS, delay=0.2)) for _ in range(args.origins)]
        url, client = stack.enter_context(redis_server())
        print(f"{args.origins} origins x {args.pages} requests (a fifth disallowed)")
        print("robots.txt fetches per origin (median over origins), N processes at once:")
        for processes in (2, 4):
            row = []
            for label, backend in (("in-memory", None), ("redis", url)):
                client.flushall()
                fetched, downloaded = fetches_per_origin(servers, processes, args.pages,
                                                         backend)
                row.append(f"{label} {fetched:g} ({downloaded} pages)")
            print(f"  N={processes}: " + ", ".join(row))

        fast = [serve(stack, Reply(body=ROBOTS)) for _ in range(args.origins)]
        samples: dict[str, list[float]] = {"memory": [], "redis": []}
        for run in range(args.runs):
            order = [("memory", None), ("redis", url)]
            if run % 2:
                order.reverse()
            for label, backend in order:
                client.flushall()
                samples[label].append(pages_per_second(fast, args.pages, backend))
        ratios = [r / m for r, m in zip(samples["redis"], samples["memory"], strict=True)]
        print(f"pages/s, one process, {args.runs} runs alternating (cold Redis each run):")
        for label, values in samples.items():
            print(f"  {label}: median {statistics.median(values):.1f} "
                  f"(runs: {', '.join(f'{v:.1f}' for v in values)})")
        print(f"  median of per-run ratios redis/memory: {statistics.median(ratios):.3f} "
              f"(min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
