"""What RobotsPolicySpiderMiddleware costs a crawl: the same local site crawled with and without.

A local server holds a few thousand realistic HTML pages (meta tags, an X-Robots-Tag
header, 20-odd links each). A spider that uses ``response.css`` on every page crawls
the site with and without the middleware, alternating, several times; the medians of
the crawl time (Scrapy's own ``elapsed_time_seconds``) and of the crawling process's CPU
time (steadier on a shared machine; the server runs in a process of its own) and their
ratios are printed. The target is a ratio of at most 1.05. The directives on the pages are
non-restrictive, so both crawls fetch and yield exactly the same (checked).

A second, in-process measurement times ``RobotsDirectives.from_response`` alone on pages
as the middleware meets them (not parsed yet: it streams them through the parser), which
is what the middleware adds per page.

``--memory`` measures hostile pages instead: 1,000 pages, each with a 16 KB X-Robots-Tag
header (``header``), a 16 KB Robots-Tag header of one-letter members (``robots-tag``), a
16 KB robots meta content (``meta``) or 1,000 robots meta tags (``tags``), and 100 pages with
100,000 robots meta tags (``tags-100k``, 4 MB a page) or a 10 MB robots meta content
(``meta-10mb``), crawled with and without the middleware, each crawl in a fresh process
(spawned, so it inherits nothing from this one). The spider keeps every page's
``response.meta["robots_directives"]`` as items that carry it would (None without the
middleware), so what the plugin keeps per page shows. It prints the crawl process's peak
RSS (``ru_maxrss``) and the ratio, the target being at most 1.2.

    python bench/bench_directives.py            # 3,000 pages, 5 runs each
    python bench/bench_directives.py --quick    # 600 pages, 3 runs each
    python bench/bench_directives.py --memory   # peak RSS on hostile pages, 3 runs each
    python bench/bench_directives.py --memory tags-100k meta-10mb --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import resource
import statistics
import time
from typing import Any, ClassVar

import scrapy

from scrapy_robots_policy.directives import RobotsDirectives
from scrapy_robots_policy.scrapy.internals import SCRAPY_HTML

MIDDLEWARE = "scrapy_robots_policy.scrapy.spider.RobotsPolicySpiderMiddleware"
AGENT = "BenchBot/1.0 (+http://127.0.0.1/bot)"


def page_html(index: int, count: int) -> str:
    links = "".join(f'<li><a href="/p/{(index * 7 + k) % count}">page {(index * 7 + k) % count}'
                    "</a></li>" for k in range(1, 21))
    paragraphs = "".join(f"<p>Paragraph {n} of page {index}: " + "lorem ipsum dolor sit amet "
                         * 12 + "</p>" for n in range(10))
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Page {index}</title>"
        "<meta name='description' content='A page of the benchmark site'>"
        "<meta name='viewport' content='width=device-width'>"
        "<meta name='robots' content='max-snippet:50, max-image-preview:large'>"
        "<meta name='benchbot' content='noarchive'>"
        "<link rel='stylesheet' href='/style.css'><script>var x = 1;</script></head>"
        f"<body><header><nav><ul>{links}</ul></nav></header><main><h1>Page {index}</h1>"
        f"{paragraphs}<a href='/p/{(index + 1) % count}'>next</a></main>"
        "<footer><p>footer</p></footer></body></html>"
    )


HEADERS = {"Content-Type": "text/html; charset=utf-8",
           "X-Robots-Tag": ["noimageindex", "otherbot: noindex"]}


#: What the server answers for a path: the bytes, or parts sent one after the other (so
#: the pages of a hostile site share one copy of their megabytes in the server).
Answer = bytes | tuple[bytes, ...]


def site(count: int) -> dict[str, Answer]:
    """Every page as the complete HTTP/1.1 answer the server sends for its path."""
    head = "".join(f"{name}: {value}\r\n" for name, values in HEADERS.items()
                   for value in ([values] if isinstance(values, str) else values))
    pages = {}
    for i in range(count):
        body = page_html(i, count).encode()
        pages[f"/p/{i}"] = (f"HTTP/1.1 200 OK\r\n{head}Content-Length: {len(body)}\r\n\r\n"
                            .encode() + body)
    return pages


class FastServer:
    """A keep-alive HTTP/1.1 server on 127.0.0.1 in its own process, answering from memory.

    tests.support.LocalServer (a thread per connection, in the measuring process) would be
    the bottleneck and make both crawls wait on it alike, hiding the crawler's own cost.
    """

    def __init__(self, pages: dict[str, Answer]):
        self.pages = pages
        self.port = 0
        self._proc: Any = None

    def __enter__(self) -> FastServer:
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=self._serve, args=(child,), daemon=True)
        self._proc.start()
        self.port = parent.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._proc.terminate()
        self._proc.join()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _serve(self, conn: Any) -> None:
        missing = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"

        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    head = await reader.readuntil(b"\r\n\r\n")
                    path = head.split(b" ", 2)[1].decode("latin-1")
                    answer = self.pages.get(path, missing)
                    for part in (answer,) if isinstance(answer, bytes) else answer:
                        writer.write(part)
                        await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError, IndexError):
                writer.close()

        async def main() -> None:
            server = await asyncio.start_server(answer, "127.0.0.1", 0, backlog=256)
            conn.send(server.sockets[0].getsockname()[1])
            await server.serve_forever()

        asyncio.run(main())


class BenchSpider(scrapy.Spider):
    name = "bench"

    def parse(self, response):
        yield {"url": response.url, "title": response.css("title::text").get(),
               "words": len(" ".join(response.css("p::text").getall()).split())}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse)


class KeepingSpider(BenchSpider):
    """Keeps what the middleware hands every page, as a spider putting it in items does."""

    name = "keeping"
    kept: ClassVar[list[Any]] = []

    def parse(self, response):
        self.kept.append(response.meta.get("robots_directives"))
        yield from super().parse(response)


def _crawl(conn: Any, url: str, middleware: bool, memory: bool = False) -> None:
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    settings = {"LOG_LEVEL": "WARNING", "TELNETCONSOLE_ENABLED": False,
                "ROBOTSTXT_OBEY": False, "USER_AGENT": AGENT, "CONCURRENT_REQUESTS": 16,
                "SPIDER_MIDDLEWARES": {MIDDLEWARE: 950} if middleware else {}}
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(KeepingSpider if memory else BenchSpider)
    items: list[int] = []

    def count(**_: Any) -> None:  # a named function: signals hold weak references
        items.append(1)

    crawler.signals.connect(count, signal=signals.item_scraped)
    process.crawl(crawler, start_urls=[url])
    before = resource.getrusage(resource.RUSAGE_SELF)
    process.start()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    stats = crawler.stats.get_stats()
    if memory:
        conn.send((after.ru_maxrss, stats.get("downloader/response_count", 0),
                   stats.get("robots_policy/response_count", 0)))
        conn.close()
        return
    conn.send((stats["elapsed_time_seconds"], cpu, len(items),
               stats.get("downloader/response_count", 0),
               stats.get("robots_policy/response_count", 0)))
    conn.close()


def _in_child(start_method: str, *args: Any) -> Any:
    """Run :func:`_crawl` in a child process and return what it reports."""
    ctx = multiprocessing.get_context(start_method)
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_crawl, args=(child, *args))
    proc.start()
    child.close()
    result = parent.recv()
    proc.join()
    return result


def crawl_once(url: str, middleware: bool) -> tuple[float, float, int, int, int]:
    return _in_child("fork", url, middleware)


# --- memory on hostile pages -------------------------------------------------------------

#: 16 KB of one-letter directives after a real one: the shape that costs the most per byte
#: (Twisted's HTTP client refuses a header line of 16 KiB or more, so just under).
JUNK = "noarchive, " + "a, " * 5330
#: Each hostile page shape and the pages of its site (the megabyte shapes need fewer: the
#: peak is set by the pages in flight, at most 16 at a time).
VARIANTS = {"header": 1000, "robots-tag": 1000, "meta": 1000, "tags": 1000, "tags-100k": 100,
            "meta-10mb": 100}


def hostile_pages(variant: str, count: int) -> dict[str, Answer]:
    """Pages that all say ``noarchive`` (nothing dropped: both crawls do the same work)."""
    # Built here, not on import: the spawned crawl processes import this module too, and
    # megabytes there would weigh on both sides of the ratio.
    many_tags = huge_junk = b""
    if variant == "tags-100k":
        many_tags = b"<meta name='robots' content='noarchive'>" * 100_000
    elif variant == "meta-10mb":
        huge_junk = b"noarchive, " + b"a, " * 3_495_250  # 10 MiB
    pages: dict[str, Answer] = {}
    for i in range(count):
        links = "".join(f"<a href='/m/{(i + k) % count}'>{k}</a>" for k in range(1, 6))
        head = "Content-Type: text/html; charset=utf-8\r\n"
        metas: tuple[bytes, ...] = ()
        if variant == "header":
            head += f"X-Robots-Tag: {JUNK}{i}\r\n"
        elif variant == "robots-tag":  # the List's members: "*;noarchive, a, a, ..."
            head += f"Robots-Tag: *;{JUNK}a{i}\r\n"
        elif variant == "meta":
            metas = (f"<meta name='robots' content='{JUNK}{i}'>".encode(),)
        elif variant == "tags":
            metas = (b"<meta name='robots' content='noarchive'>" * 1000,)
        elif variant == "tags-100k":
            metas = (many_tags,)
        else:  # each page's content its own, so no cache could serve it
            metas = (b"<meta name='robots' content='", huge_junk, f"{i}'>".encode())
        body = (f"<html><head><title>Page {i}</title>".encode(), *metas,
                f"</head><body><p>Page {i}</p>{links}</body></html>".encode())
        length = sum(map(len, body))
        pages[f"/m/{i}"] = (f"HTTP/1.1 200 OK\r\n{head}Content-Length: {length}\r\n\r\n"
                            .encode(), *body)
    return pages


def crawl_memory(url: str, middleware: bool) -> tuple[int, int, int]:
    """Spawned, not forked: the child's peak RSS is then its own crawl's, in KiB on Linux."""
    return _in_child("spawn", url, middleware, True)


def memory(pages: int | None, runs: int, variants: list[str]) -> None:
    for variant in variants:
        count = pages or VARIANTS[variant]
        peaks: dict[bool, list[int]] = {False: [], True: []}
        with FastServer(hostile_pages(variant, count)) as server:
            for run in range(runs):
                order = (False, True) if run % 2 == 0 else (True, False)
                for middleware in order:
                    rss, responses, inspected = crawl_memory(server.url("/m/0"), middleware)
                    assert responses >= count, (responses, count)
                    assert inspected == (responses if middleware else 0), inspected
                    peaks[middleware].append(rss)
        without = statistics.median(peaks[False]) / 1024
        with_mw = statistics.median(peaks[True]) / 1024
        print(f"{variant}: {count} pages, {runs} runs, peak RSS median without {without:.1f} MB,"
              f" with {with_mw:.1f} MB, ratio {with_mw / without:.2f} (target <= 1.2)",
              flush=True)


def micro(count: int) -> float:
    """Microseconds per page for from_response on responses as the middleware meets them."""
    from scrapy.http import HtmlResponse

    responses = [HtmlResponse(f"http://127.0.0.1/p/{i}", body=page_html(i, count).encode(),
                              headers=HEADERS) for i in range(count)]
    started = time.perf_counter()
    for response in responses:
        RobotsDirectives.from_response(response, AGENT, SCRAPY_HTML)
    return (time.perf_counter() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="600 pages, 3 runs each")
    parser.add_argument("--pages", type=int, help="number of pages (default 3000; with "
                        "--memory, 1000 or 100 depending on the variant)")
    parser.add_argument("--runs", type=int, help="runs per configuration (default 5)")
    parser.add_argument("--memory", nargs="*", choices=VARIANTS, metavar="VARIANT",
                        help=f"peak RSS on hostile pages instead ({', '.join(VARIANTS)}; "
                             "default all)")
    args = parser.parse_args()
    if args.memory is not None:
        memory(args.pages, args.runs or 3, args.memory or list(VARIANTS))
        return
    pages = args.pages or (600 if args.quick else 3000)
    runs = args.runs or (3 if args.quick else 5)

    print(f"from_response on a page: {micro(min(pages, 1000)):.1f} µs/page")
    times: dict[bool, list[float]] = {False: [], True: []}
    cpus: dict[bool, list[float]] = {False: [], True: []}
    with FastServer(site(pages)) as server:
        crawl_once(server.url("/p/0"), False)  # warm-up: imports, page cache
        for run in range(runs):
            order = (False, True) if run % 2 == 0 else (True, False)
            for middleware in order:
                seconds, cpu, items, responses, inspected = crawl_once(server.url("/p/0"),
                                                                      middleware)
                # the start URL has dont_filter: page 0 is fetched again through its link
                assert items == responses == pages + 1, (items, responses, pages)
                assert inspected == (responses if middleware else 0), inspected
                times[middleware].append(seconds)
                cpus[middleware].append(cpu)
                label = "with   " if middleware else "without"
                print(f"run {run + 1}/{runs} {label}: {seconds:.3f} s, CPU {cpu:.3f} s "
                      f"({items} items)", flush=True)
    print(f"pages: {pages}, runs: {runs} each")
    for name, samples in (("crawl time", times), ("crawler CPU time", cpus)):
        without = statistics.median(samples[False])
        with_mw = statistics.median(samples[True])
        print(f"{name}: median without {without:.3f} s, with {with_mw:.3f} s, "
              f"ratio {with_mw / without:.3f} (target <= 1.05)")


if __name__ == "__main__":
    main()
