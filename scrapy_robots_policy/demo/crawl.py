"""``python -m scrapy_robots_policy demo``: crawl the bundled demo site and say what happened.

The point is to show, without any network, what the add-on does to a real crawl and why:
which requests robots.txt refused and by which line, which items page-level directives
dropped and which links they kept the crawler from following, each with the header or
meta tag that decided. Everything the report says comes from the crawl itself: refusals
from the requests' errbacks (the IgnoreRequest message names the deciding line), drops
from the middlewares' own DEBUG records, robots.txt outcomes from their INFO records.
"""

from __future__ import annotations

import logging
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from scrapy import Request, Spider, signals
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response
from twisted.python.failure import Failure

from scrapy_robots_policy.demo.site import USER_AGENT, DemoSite, Origin

#: The crawl settings: the add-on alone, plus short patience so the 503 origin is given
#: up on in about two seconds instead of twenty.
SETTINGS: dict[str, Any] = {
    "ADDONS": {"scrapy_robots_policy.Addon": 0},
    "ROBOTSTXT_OBEY": True,
    # What the crawl is for: the press origin's usage signals decide on these; the
    # record on each item says which signal allowed it.
    "ROBOTS_POLICY_PURPOSES": ["search", "tdm"],
    "ROBOTS_POLICY_ITEM_FIELD": "robots",
    "ROBOTS_POLICY_RETRY_PATIENCE": 2.0,
    "ROBOTS_POLICY_RETRY_BACKOFF": 0.5,
    "LOG_LEVEL": "ERROR",  # the report is the output; Scrapy speaks only of real errors
    "TELNETCONSOLE_ENABLED": False,
    "RETRY_ENABLED": False,
    "DOWNLOAD_TIMEOUT": 10,
}
_REFUSED_PREFIXES = ("Forbidden by robots.txt: ", "Refused by usage signals: ")


@dataclass
class Journal:
    """What the crawl did, in the order it happened."""

    crawled: dict[str, int] = field(default_factory=dict)  # URL -> HTTP status
    kept: set[str] = field(default_factory=set)  # URLs whose item reached the end
    dropped: dict[str, str] = field(default_factory=dict)  # URL -> why its item was dropped
    not_followed: list[tuple[str, str, str]] = field(default_factory=list)  # page, link, why
    refused: dict[str, str] = field(default_factory=dict)  # URL -> why robots.txt refused it
    robots: dict[str, str] = field(default_factory=dict)  # origin -> fetch outcome
    tdmrep: dict[str, str] = field(default_factory=dict)  # origin -> tdmrep.json outcome
    signals: dict[str, list[str]] = field(default_factory=dict)  # origin -> usage signals
    retries: dict[str, int] = field(default_factory=dict)  # origin -> robots.txt retries
    order: list[str] = field(default_factory=list)  # URLs, first event first


class _Records(logging.Handler):
    """Read the middlewares' own log records (structured: their args are dicts)."""

    def __init__(self, journal: Journal) -> None:
        super().__init__(logging.DEBUG)
        self.journal = journal

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, dict) else {}
        j = self.journal
        if record.name.endswith(".spider") and "url" in args and "why" in args:
            request = args.get("request")
            if request is not None:
                j.not_followed.append((args["url"], request.url, args["why"]))
            else:
                j.dropped[args["url"]] = args["why"]
                _note(j, args["url"])
        elif record.name.endswith(".rounds") and "origin" in args and "why" in args:
            origin = str(args["origin"])
            if "wait" in args:  # a retry while requests wait
                j.retries[origin] = j.retries.get(origin, 0) + 1
            elif "request" not in args:
                unreachable = " (unreachable)" if record.levelno >= logging.WARNING else ""
                outcomes = j.robots if args.get("document") == "robots.txt" else j.tdmrep
                outcomes[origin] = f"{args['why']}{args.get('via', '')}{unreachable}"


def _note(journal: Journal, url: str) -> None:
    if url not in journal.order:
        journal.order.append(url)


class DemoSpider(Spider):
    """Follows every link and yields one item per page; errbacks record refusals."""

    name = "demo"
    user_agent = USER_AGENT

    def __init__(self, start_urls: list[str], journal: Journal, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = start_urls
        self.journal = journal

    async def start(self) -> AsyncIterator[Request]:
        for url in self.start_urls:
            yield Request(url, errback=self.refused)

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        self.journal.crawled[response.url] = response.status
        _note(self.journal, response.url)
        yield {"url": response.url, "title": response.css("title::text").get()}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse, errback=self.refused)

    def refused(self, failure: Failure) -> None:
        request = getattr(failure, "request", None)
        if request is None:
            return
        self.journal.refused[request.url] = str(failure.value)
        _note(self.journal, request.url)


def crawl(site: DemoSite) -> tuple[Journal, dict[str, Any], float]:
    """Crawl the served demo site from the shop's home; return the journal and stats."""
    journal = Journal()
    records = _Records(journal)
    ours = logging.getLogger("scrapy_robots_policy")
    level, propagate = ours.level, ours.propagate
    ours.addHandler(records)
    ours.setLevel(logging.DEBUG)
    ours.propagate = False  # our DEBUG records feed the report, not the terminal
    try:
        process = CrawlerProcess(SETTINGS)
        crawler = process.create_crawler(DemoSpider)

        def kept(item: Any, **_: Any) -> None:
            journal.kept.add(item["url"])
            parts = urlsplit(item["url"])
            origin = f"{parts.scheme}://{parts.netloc}"
            seen = journal.signals.setdefault(origin, [])
            for signal in (item.get("robots") or {}).get("usage", {}).get("signals", []):
                said = (f"{signal['purpose']} {'allowed' if signal['allowed'] else 'refused'}"
                        f" by {signal['evidence']}")
                if said not in seen:
                    seen.append(said)

        crawler.signals.connect(kept, signal=signals.item_scraped)
        started = time.monotonic()
        process.crawl(crawler, start_urls=[site.origin("shop").url + "/"], journal=journal)
        process.start()
        seconds = time.monotonic() - started
        stats = dict(crawler.stats.get_stats()) if crawler.stats else {}
    finally:
        ours.removeHandler(records)
        ours.setLevel(level)
        ours.propagate = propagate
    return journal, stats, seconds


def report(site: DemoSite, journal: Journal, stats: dict[str, Any], seconds: float) -> str:
    """The readable report: per origin, every URL met (by path) with what happened and why."""
    out = [f"Demo crawl as {USER_AGENT!r}: {len(site.origins)} origins on 127.0.0.1, "
           f"{seconds:.1f} s",
           "settings: ADDONS = {'scrapy_robots_policy.Addon': 0}, ROBOTSTXT_OBEY = True,",
           f"  ROBOTS_POLICY_PURPOSES = {SETTINGS['ROBOTS_POLICY_PURPOSES']}", ""]
    for origin in site.origins:
        out.extend(_origin_report(origin, journal))
        out.append("")
    crawled = len(journal.crawled)
    out.extend(textwrap.wrap(
        f"Summary: {crawled} pages crawled, {len(journal.kept)} items kept, "
        f"{len(journal.dropped)} items dropped (page not indexable, or a declared purpose "
        f"refused), {len(journal.refused)} requests refused (by robots.txt, or by usage "
        f"signals), {len(journal.not_followed)} links not followed (nofollow).", 96,
        subsequent_indent="  "))
    counters = [f"{key}={value}" for key, value in sorted(stats.items())
                if key.startswith(("robotstxt/", "robots_policy/"))]
    out.extend(textwrap.wrap("Stats: " + ", ".join(counters), 96, subsequent_indent="  ",
                             break_on_hyphens=False))
    return "\n".join(out)


def _origin_report(origin: Origin, journal: Journal) -> list[str]:
    lines = [f"{origin.name}  {origin.url}  ({origin.about})"]
    outcome = journal.robots.get(origin.url)
    if outcome:
        retries = journal.retries.get(origin.url)
        again = f", after {retries} retries" if retries else ""
        lines.append(f"  robots.txt: {outcome}{again}")
    if origin.name == "press":  # the others have none: 404, said once in the stats
        lines.append(f"  tdmrep.json: {journal.tdmrep.get(origin.url, 'not fetched')}")
    lines.extend(f"  usage: {said}" for said in journal.signals.get(origin.url, []))
    urls = sorted((url for url in journal.order if _mine(url, origin)),
                  key=lambda url: _path(url, origin))
    width = max((len(_path(url, origin)) for url in urls), default=0)
    for url in urls:
        path = _path(url, origin).ljust(width)
        if url in journal.refused:
            lines.append(f"  refused  {path}  {_refusal(journal.refused[url], origin)}")
            continue
        if url in journal.dropped:
            fate = f"item dropped: {journal.dropped[url]}"
        elif url in journal.kept:
            fate = "item kept"
        else:
            fate = f"status {journal.crawled.get(url, '?')}"
        lines.append(f"  crawled  {path}  {fate}")
        for page, link, why in journal.not_followed:
            if page == url:
                shown = _path(link, origin) if _mine(link, origin) else link
                lines.append(f"           {'':{width}}  link {shown} not followed: {why}")
    return lines


def _mine(url: str, origin: Origin) -> bool:
    return url == origin.url or url.startswith(origin.url + "/")


def _path(url: str, origin: Origin) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _refusal(message: str, origin: Origin) -> str:
    """The IgnoreRequest message, shortened: the origin and user agent are said above."""
    why = message
    for prefix in _REFUSED_PREFIXES:
        why = why.removeprefix(prefix)
    why = why.replace(f"{origin.url}/robots.txt", "robots.txt")
    return why.replace(f" (user agent {USER_AGENT!r})", "")


def serve() -> int:
    """Serve the demo site until interrupted, to try ``check`` and ``directives`` on it."""
    with DemoSite() as site:
        for origin in site.origins:
            print(f"{origin.name:<6} {origin.url}/  ({origin.about})")
        shop, news = site.origin("shop").url, site.origin("news").url
        print("\ntry:\n"
              f"  python -m scrapy_robots_policy check {shop}/robots.txt {shop}/cart "
              f"-A DemoBot --explain\n"
              f"  python -m scrapy_robots_policy directives {news}/for-demobot -A DemoBot\n"
              "Ctrl-C stops.", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0


def main(serve_only: bool = False) -> int:
    if serve_only:
        return serve()
    with DemoSite() as site:
        journal, stats, seconds = crawl(site)
    print(report(site, journal, stats, seconds))
    return 0 if journal.crawled else 1
