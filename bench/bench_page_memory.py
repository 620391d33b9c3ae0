"""What reading a page's meta tags costs a crawl in memory, whether or not the spider parses.

The spider middleware reads every HTML page's robots meta tags. This measures the crawling
process's peak RSS on pages made to be expensive to parse, with Scrapy alone and with
RobotsPolicySpiderMiddleware, for two spiders: one that parses every page
(``response.css``: Scrapy keeps the page's tree on the response in both crawls, and the
middleware reads that tree) and one that never does (``response.body`` only: the
middleware streams its pages, and whatever it builds or leaves is the plugin's own cost).

Page shapes (every page says ``noarchive`` only, so both crawls yield the same items):

- ``tags-100k-x10``: 10 pages of 100,000 robots meta tags (4 MB each), 10 at a time;
- ``meta-10mb``: 10 pages whose robots meta content is 10 MiB, 10 at a time;
- ``tags-100k-x1``: one page of 100,000 robots meta tags.

Beside the crawls, one page of the shape is read alone in a fresh process, and what that
adds to the process's peak is printed for three readers: libxml2 parsing it as parsel
does with a parser target that reads nothing (the least any reader that reads the page as
Scrapy's tree has it pays), the middleware's reader, and parsel's tree (what a parsing
spider builds). The peak is reset before each (Linux's ``/proc/self/clear_refs``).

Each crawl runs in a fresh spawned process (it inherits nothing from this one) against a
local server in a process of its own; the peak is that crawl process's ``ru_maxrss``.
Peaks vary from run to run (how many pages are in flight at once, when Python's cycle
collector frees a tree), so every run's peak is printed, and the medians compared,
the configurations alternating; the ratio is with the middleware over Scrapy alone for
the same spider, the target at most 1.2. The machine's load average is printed before
and after.

    python bench/bench_page_memory.py                     # every shape, 3 runs each
    python bench/bench_page_memory.py meta-10mb --runs 5
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import statistics
import sys
from pathlib import Path
from typing import Any, cast

import scrapy

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_directives import AGENT, MIDDLEWARE, FastServer, hostile_pages  # the same pages

#: Each shape: the hostile_pages variant, how many pages, how many fetched at a time.
SHAPES = {"tags-100k-x10": ("tags-100k", 10, 10), "meta-10mb": ("meta-10mb", 10, 10),
          "tags-100k-x1": ("tags-100k", 1, 1)}


class ParsingSpider(scrapy.Spider):
    """Parses every page, as most spiders do: its tree stays on the response."""

    name = "parsing"

    def parse(self, response: Any) -> Any:
        yield {"url": response.url, "title": response.css("title::text").get()}


class BlindSpider(scrapy.Spider):
    """Never parses a page (it stores or hashes the bytes): nothing builds a tree for it."""

    name = "blind"

    def parse(self, response: Any) -> Any:
        yield {"url": response.url, "size": len(response.body)}


SPIDERS = {"parsing": ParsingSpider, "blind": BlindSpider}


def _crawl(conn: Any, urls: list[str], spider: str, middleware: bool, concurrency: int) -> None:
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    settings = {"LOG_LEVEL": "WARNING", "TELNETCONSOLE_ENABLED": False,
                "ROBOTSTXT_OBEY": False, "USER_AGENT": AGENT,
                "CONCURRENT_REQUESTS": concurrency, "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
                "SPIDER_MIDDLEWARES": {MIDDLEWARE: 950} if middleware else {}}
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SPIDERS[spider])
    items: list[int] = []

    def count(**_: Any) -> None:  # a named function: signals hold weak references
        items.append(1)

    crawler.signals.connect(count, signal=signals.item_scraped)
    process.crawl(crawler, start_urls=urls)
    process.start()
    stats = crawler.stats.get_stats()
    conn.send((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, len(items),
               stats.get("robots_policy/response_count", 0)))
    conn.close()


def crawl_peak(urls: list[str], spider: str, middleware: bool, concurrency: int
               ) -> tuple[int, int, int]:
    """Peak RSS (KiB on Linux), items and pages the middleware read, of one fresh crawl."""
    result: tuple[int, int, int] = _in_fresh_process(_crawl, urls, spider, middleware,
                                                     concurrency)
    return result


def _in_fresh_process(target: Any, *args: Any) -> Any:
    """What ``target(conn, *args)`` sends back, run in a spawned process: it inherits
    nothing from this one, so its peak is its own work's."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(child, *args))
    proc.start()
    child.close()
    result = parent.recv()
    proc.join()
    return result


def _one_read(conn: Any, body: bytes, reader: str) -> None:
    from lxml import etree
    from parsel import Selector
    from scrapy.http import HtmlResponse

    from scrapy_robots_policy.directives.response import read_response

    response = HtmlResponse("http://127.0.0.1/m/0", body=body, encoding="utf-8")
    text = response.text  # decoded before, as Scrapy's MetaRefreshMiddleware does
    parser = etree.HTMLParser(recover=True, encoding="utf-8", huge_tree=True,
                              target=cast("etree.ParserTarget", _ReadsNothing()))
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # the peak (VmHWM) starts again from what is resident now
    before = _status_kib("VmRSS")
    if reader == "libxml2":
        etree.fromstring(body, parser)
    elif reader == "middleware":
        read_response(response, AGENT)
    else:
        Selector(text=text).css("title")
    conn.send(_status_kib("VmHWM") - before)
    conn.close()


class _ReadsNothing:
    """A parser target with no ``start``: lxml hands it no element, no attribute."""

    def close(self) -> None:
        return None


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field))


def read_costs(body: bytes) -> str:
    """What reading one page adds to a fresh process's peak, per reader."""
    if not os.path.exists("/proc/self/clear_refs"):
        return "one page read alone: not measured (no /proc/self/clear_refs here)"
    costs = [f"{reader} +{_in_fresh_process(_one_read, body, reader) / 1024:.1f} MB"
             for reader in ("libxml2", "middleware", "parsel")]
    return ("one page read alone, added to the peak: " + ", ".join(costs)
            + " (libxml2: parsed as parsel does, nothing read)")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def measure(shape: str, runs: int) -> list[str]:
    variant, count, concurrency = SHAPES[shape]
    peaks: dict[tuple[str, bool], list[int]] = {(s, m): [] for s in SPIDERS
                                                for m in (False, True)}
    pages = hostile_pages(variant, count)
    answer = pages["/m/0"]
    assert isinstance(answer, tuple)  # the HTTP head, then the page's pieces
    print(f"{shape}: {read_costs(b''.join(answer[1:]))}", flush=True)
    with FastServer(pages) as server:
        urls = [server.url(f"/m/{i}") for i in range(count)]
        for run in range(runs):
            for spider, middleware in (list(peaks) if run % 2 == 0 else list(peaks)[::-1]):
                rss, items, read = crawl_peak(urls, spider, middleware, concurrency)
                assert items == count, (shape, spider, middleware, items)
                assert read == (count if middleware else 0), (shape, middleware, read)
                peaks[spider, middleware].append(rss)
    lines = []
    for spider in SPIDERS:
        alone, with_mw = (sorted(p / 1024 for p in peaks[spider, m]) for m in (False, True))
        print(f"{shape}, {spider} spider: Scrapy alone {_mb(alone)}; with the middleware "
              f"{_mb(with_mw)}", flush=True)
        median_alone, median_with = statistics.median(alone), statistics.median(with_mw)
        lines.append(f"| {shape} | {spider} | {median_alone:.0f} MB | {median_with:.0f} MB | "
                     f"{median_with - median_alone:+.0f} MB | {median_with / median_alone:.2f} |")
    return lines


def _mb(samples: list[float]) -> str:
    return ", ".join(f"{sample:.0f}" for sample in samples) + " MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shapes", nargs="*", metavar="SHAPE",
                        help=f"page shapes ({', '.join(SHAPES)}; default all)")
    parser.add_argument("--runs", type=int, default=3, help="runs per configuration")
    args = parser.parse_args()
    if unknown := set(args.shapes) - set(SHAPES):
        parser.error(f"unknown shapes: {', '.join(sorted(unknown))}")
    print(f"before: {load()}", flush=True)
    rows = ["| shape | spider | Scrapy alone | with the middleware | difference | "
            "ratio (target <= 1.2) |", "|---|---|---|---|---|---|"]
    for shape in args.shapes or list(SHAPES):
        rows += measure(shape, args.runs)
    print(f"after: {load()}; peak RSS medians of {args.runs} runs each")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
