"""What obeying robots.txt with this plugin costs a crawl, against Scrapy's own middleware.

A local server (a separate process) answers on hundreds of loopback addresses
(127.0.0.2, 127.0.0.3, ...), each its own origin with a small robots.txt and a few pages.
The spider first fetches one page per origin, then from it the rest of that origin's
pages, a fifth of them disallowed. The same crawl runs with

- ``builtin``: Scrapy's RobotsTxtMiddleware (with its default Protego parser),
- ``ours``: RobotsPolicyDownloaderMiddleware in its place (the like-for-like comparison),
- ``addon``: the whole plugin through the Addon (the page-level spider middleware too),

alternating, several times (``ours`` and ``addon`` refuse a known origin's disallowed
requests before the scheduler, ``ROBOTS_POLICY_EARLY_REFUSAL``'s default); the medians
of pages per second (responses over Scrapy's ``elapsed_time_seconds``), of pages per CPU
second of the crawling process (steadier on a shared machine) and their ratios are
printed; the targets are ours >= 0.97 x builtin and addon >= 0.95 x builtin. Every run
must download the same pages and refuse the same requests (checked). How many requests
reach the scheduler (Scrapy's ``scheduler/enqueued``) is printed per variant, and for
one more crawl of the add-on with ``ROBOTS_POLICY_EARLY_REFUSAL = False``; the machine's
load average before and after. The spider parses no page: the spider middleware reads a
page's meta tags only when its text can hold one, so its pages cost it no HTML parse.

Memory per cached origin is measured in-process with tracemalloc: every robots.txt of the
shared corpus (4,231 real files) is parsed and cached as the middleware caches it, and
also the small robots.txt of the crawl.

    python bench/bench_crawl.py            # 200 origins x 15 requests, 5 runs each
    python bench/bench_crawl.py --quick    # 50 origins x 15 requests, 3 runs each
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import multiprocessing
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import scrapy

from scrapy_robots_policy.cache.memory import LRUCache
from scrapy_robots_policy.fetch.origin import Origin
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.robotstxt import RobotsTxt

CORPUS = Path(os.environ.get("ROBOTS_CORPUS")
              or Path(__file__).resolve().parents[2] / "shared" / "corpus" / "robots-txt")
ROBOTS = (b"User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/open\n\n"
          b"User-agent: OtherBot\nDisallow: /\n\nSitemap: /sitemap.xml\n")
PAGE = (b"<!DOCTYPE html><html><head><title>page</title></head><body>"
        + b"<p>lorem ipsum dolor sit amet</p>" * 40 + b"</body></html>")
ALLOWED, DISALLOWED = 12, 3  # requests per origin besides its first page
BUILTIN = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
OURS = "scrapy_robots_policy.scrapy.downloader.RobotsPolicyDownloaderMiddleware"
VARIANTS = {
    "builtin": {},
    "ours": {"DOWNLOADER_MIDDLEWARES": {BUILTIN: None, OURS: 100}},
    "addon": {"ADDONS": {"scrapy_robots_policy.Addon": 0}},
}
#: Crawled once, for the scheduler figure only: the add-on refusing at download time only.
LATE = {"ADDONS": {"scrapy_robots_policy.Addon": 0}, "ROBOTS_POLICY_EARLY_REFUSAL": False}


# -- the server ------------------------------------------------------------------------------


async def _serve(hosts: list[str], port: int, ready: Any) -> None:
    robots_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n"
    page_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n"
    robots = robots_head % len(ROBOTS) + ROBOTS
    page = page_head % len(PAGE) + PAGE

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while True:
                request_line = await reader.readline()
                if not request_line:
                    break
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass
                path = request_line.split(b" ")[1] if b" " in request_line else b"/"
                writer.write(robots if path == b"/robots.txt" else page)
                await writer.drain()
        writer.close()

    servers = [await asyncio.start_server(handle, host, port, backlog=512) for host in hosts]
    ready.set()
    await asyncio.gather(*(s.serve_forever() for s in servers))


def serve(hosts: list[str], port: int, ready: Any) -> None:
    asyncio.run(_serve(hosts, port, ready))


# -- the crawl -------------------------------------------------------------------------------


class BenchSpider(scrapy.Spider):
    name = "bench"
    custom_settings = {"USER_AGENT": "BenchBot/1.0 (+http://127.0.0.1/bot)"}  # noqa: RUF012

    def __init__(self, origins: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.origins = origins

    async def start(self) -> Any:
        for origin in self.origins:
            yield scrapy.Request(f"{origin}/p/0")

    def parse(self, response: Any) -> Any:
        if response.url.endswith("/p/0"):
            # Later requests of an origin only come once its robots.txt is known: each
            # middleware then has the same work (Scrapy 2.14+'s built-in would otherwise
            # let waiting disallowed requests through).
            base = response.url[: -len("/p/0")]
            for n in range(1, ALLOWED + 1):
                yield scrapy.Request(f"{base}/p/{n}")
            for n in range(DISALLOWED):
                yield scrapy.Request(f"{base}/private/{n}")


def _crawl(conn: Any, origins: list[str], variant: str) -> None:
    import logging

    from scrapy.crawler import CrawlerProcess

    settings = {
        "ROBOTSTXT_OBEY": True,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
        "COOKIES_ENABLED": False,
        **VARIANTS.get(variant, LATE),
    }
    process = CrawlerProcess(settings)
    logging.getLogger("scrapy").setLevel(logging.WARNING)
    crawler = process.create_crawler(BenchSpider)
    process.crawl(crawler, origins=origins)
    cpu = time.process_time()
    process.start()
    stats = dict(crawler.stats.get_stats())
    stats["bench/cpu_seconds"] = time.process_time() - cpu
    conn.send(stats)
    conn.close()


def crawl_once(origins: list[str], variant: str) -> dict[str, Any]:
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_crawl, args=(child, origins, variant))
    proc.start()
    child.close()
    if not parent.poll(600):
        proc.kill()
        raise TimeoutError(f"{variant} crawl did not finish")
    stats: dict[str, Any] = parent.recv()
    proc.join(10)
    return stats


# -- memory per cached origin ----------------------------------------------------------------


def memory_per_origin(bodies: list[bytes], agent: str = "BenchBot/1.0") -> float:
    """Bytes that one cached origin costs, averaged over ``bodies`` (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    cache: LRUCache[Origin, CachedAnswer] = LRUCache(len(bodies) + 1)
    now = time.time()
    for n, body in enumerate(bodies):
        rules = RobotsTxt.parse(body)
        rules.allowed("/some/page.html", agent)  # as after a first decision
        cache.put(Origin("http", f"host{n}.example", 80),
                  CachedAnswer(rules, f"200, {len(body)} bytes", now + 86400, now))
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del cache
    return used / len(bodies)


# -- cost per request, in-process ----------------------------------------------------------


def cost_per_request(count: int = 200, requests: int = 20_000) -> dict[str, float]:
    """Microseconds each middleware spends deciding a request whose robots.txt is cached.

    Both get the same robots.txt for ``count`` origins and the same requests, whose URL
    parse is already cached (in a crawl, OffsiteMiddleware runs first and caches it).
    """
    from scrapy import signals
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
    from scrapy.exceptions import IgnoreRequest
    from scrapy.robotstxt import ProtegoRobotParser
    from scrapy.utils.httpobj import urlparse_cached
    from scrapy.utils.test import get_crawler

    from scrapy_robots_policy.fetch.origin import origin_of
    from scrapy_robots_policy.scrapy.downloader import RobotsPolicyDownloaderMiddleware

    crawler = get_crawler(BenchSpider, {"ROBOTSTXT_OBEY": True,
                                        "USER_AGENT": "BenchBot/1.0"})
    crawler.spider = BenchSpider(origins=[])
    hosts = [f"127.0.0.{2 + n}:8000" for n in range(count)]
    reqs = [scrapy.Request(f"http://{hosts[n % count]}/"
                           + ("private/x" if n % 5 == 0 else f"p/{n}"))
            for n in range(requests)]
    for request in reqs:
        urlparse_cached(request)
    ours = RobotsPolicyDownloaderMiddleware(crawler)
    now = time.time()
    for host in hosts:
        origin = origin_of(f"http://{host}/")
        assert origin is not None
        ours._cache.put(origin, CachedAnswer(RobotsTxt.parse(ROBOTS), "bench", now + 1e6, now))
    builtin = RobotsTxtMiddleware(crawler)
    for host in hosts:
        builtin._parsers[host] = ProtegoRobotParser(ROBOTS, crawler.spider)

    def run_ours(request: scrapy.Request) -> None:
        result = ours.process_request(request)
        assert result is None  # decided synchronously: its robots.txt is cached

    def run_builtin(request: scrapy.Request) -> None:
        coroutine = builtin.process_request(request)
        if coroutine is not None:  # Scrapy 2.14+: a coroutine that completes at once
            with contextlib.suppress(StopIteration):
                coroutine.send(None)

    best: dict[str, float] = {}
    for _ in range(5):
        for name, decide in (("builtin", run_builtin), ("ours", run_ours)):
            started = time.perf_counter()
            for request in reqs:
                with contextlib.suppress(IgnoreRequest):
                    decide(request)
            spent = (time.perf_counter() - started) / requests * 1e6
            best[name] = min(best.get(name, spent), spent)
    # Before the scheduler, an allowed request of a known origin is asked once more (the
    # engine's yes or no): what that costs, Scrapy's signal dispatch included.
    early = ours._early
    assert early is not None
    allowed = [request for request in reqs if "/private/" not in request.url]
    crawler.signals.disconnect_all(signals.request_scheduled)
    crawler.signals.connect(early._scheduled, signal=signals.request_scheduled)
    for _ in range(5):
        started = time.perf_counter()
        for request in allowed:
            crawler.signals.send_catch_log(signals.request_scheduled, request=request,
                                           spider=crawler.spider)
        spent = (time.perf_counter() - started) / len(allowed) * 1e6
        best["early"] = min(best.get("early", spent), spent)
    return best


# -- main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer origins and runs")
    parser.add_argument("--origins", type=int, help="number of origins (default 200)")
    parser.add_argument("--runs", type=int, help="runs per variant (default 5)")
    args = parser.parse_args()
    count = args.origins or (50 if args.quick else 200)
    runs = args.runs or (3 if args.quick else 5)

    hosts = [f"127.0.0.{2 + n % 250}" if n < 250 else f"127.0.1.{n - 248}"
             for n in range(count)]
    port = 18_000 + (time.time_ns() // 1000) % 20_000
    ready = multiprocessing.get_context("fork").Event()
    server = multiprocessing.get_context("fork").Process(target=serve,
                                                          args=(hosts, port, ready),
                                                          daemon=True)
    server.start()
    if not ready.wait(30):
        raise RuntimeError("server did not start")
    origins = [f"http://{host}:{port}" for host in hosts]
    expected_pages = count * (2 + ALLOWED)  # robots.txt, first page, allowed pages
    print(f"Scrapy {scrapy.__version__}: {count} origins, {count * (1 + ALLOWED)} pages "
          f"and {count * DISALLOWED} disallowed requests per crawl, {runs} runs per variant")

    rates: dict[str, list[float]] = {v: [] for v in VARIANTS}
    cpu_rates: dict[str, list[float]] = {v: [] for v in VARIANTS}
    enqueued: dict[str, int] = {}
    print("load average (1, 5, 15 min) before: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    try:
        crawl_once(origins[:2], "builtin")  # warm up the server and the disk cache
        names = list(VARIANTS)
        for run in range(runs):
            # A different order each run, so that a drift of the machine's load during
            # the benchmark does not always favour the variant that runs first.
            for variant in names[run % len(names):] + names[: run % len(names)]:
                stats = crawl_once(origins, variant)
                pages = stats.get("response_received_count", 0)
                forbidden = stats.get("robotstxt/forbidden", 0)
                if pages != expected_pages or forbidden != count * DISALLOWED:
                    raise RuntimeError(f"{variant}: {pages} responses, {forbidden} refused "
                                       f"(expected {expected_pages}, {count * DISALLOWED})")
                rate = pages / stats["elapsed_time_seconds"]
                cpu_rate = pages / stats["bench/cpu_seconds"]
                rates[variant].append(rate)
                cpu_rates[variant].append(cpu_rate)
                enqueued[variant] = stats.get("scheduler/enqueued", 0)
                print(f"  run {run + 1} {variant:8} {rate:8.1f} pages/s, "
                      f"{cpu_rate:8.1f} pages per CPU second")
        enqueued["addon, early refusal off"] = crawl_once(origins, "late").get(
            "scheduler/enqueued", 0)
    finally:
        server.kill()
    print("load average (1, 5, 15 min) after: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"requests reaching the scheduler ({count * (1 + ALLOWED + DISALLOWED)} yielded, "
          f"{count * DISALLOWED} of them disallowed): "
          + ", ".join(f"{v} {n}" for v, n in enqueued.items()))

    for label, samples in (("pages/s", rates), ("pages per CPU second", cpu_rates)):
        for kind, pick in (("median", statistics.median), ("best", max)):
            values = {v: pick(r) for v, r in samples.items()}
            print(f"{kind} {label}: " + ", ".join(f"{v} {m:.1f}" for v, m in values.items())
                  + f"; ours/builtin {values['ours'] / values['builtin']:.3f} (target >= 0.97),"
                  f" addon/builtin {values['addon'] / values['builtin']:.3f} (target >= 0.95)")
        # Ratios within a run compare crawls made seconds apart, under the same load.
        paired = {v: statistics.median(a / b for a, b in zip(samples[v], samples["builtin"],
                                                             strict=True))
                  for v in ("ours", "addon")}
        print(f"median of per-run ratios ({label}): ours/builtin {paired['ours']:.3f}, "
              f"addon/builtin {paired['addon']:.3f}")
    print("(addon includes the page-level spider middleware)")
    costs = cost_per_request()
    print(f"decision of a request with a cached robots.txt, in-process (best of 5): builtin "
          f"{costs['builtin']:.1f} us, ours {costs['ours']:.1f} us "
          f"(ours/builtin {costs['ours'] / costs['builtin']:.3f}); the check of an allowed "
          f"request before the scheduler, signal dispatch included: {costs['early']:.1f} us")

    corpus = sorted(CORPUS.glob("*.txt"))
    if not corpus:
        sys.exit(f"no robots.txt corpus at {CORPUS}: set ROBOTS_CORPUS to its folder")
    if args.quick:
        corpus = corpus[::8]
    bodies = [p.read_bytes() for p in corpus]
    sizes = sorted(len(b) for b in bodies)
    print(f"memory per cached origin: {memory_per_origin([ROBOTS] * 2000):,.0f} B for the "
          f"crawl's robots.txt ({len(ROBOTS)} B); {memory_per_origin(bodies):,.0f} B on "
          f"average over {len(bodies)} corpus files (median file {sizes[len(sizes) // 2]:,} "
          f"B, mean {sum(sizes) / len(sizes):,.0f} B)")


if __name__ == "__main__":
    main()
