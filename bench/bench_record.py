"""How many bytes the compliance record adds to an item (ROBOTS_POLICY_ITEM_FIELD).

Crawls the bundled demo site (five origins on 127.0.0.1: robots.txt with rules, a 404, a
503, usage signals) once per configuration, writing a JSON-lines feed, and measures each
item's record as the feed stores it (its JSON, as Scrapy's JSON-lines exporter writes
it):

    python bench/bench_record.py

Configurations: no purpose declared (robots.txt part and directives only); the demo's
purposes (search, tdm); every purpose in "record" mode (nothing dropped: the largest
records).
"""

from __future__ import annotations

import json
import multiprocessing
import statistics
import tempfile
from pathlib import Path
from typing import Any

from scrapy import Spider
from scrapy.crawler import CrawlerProcess

from scrapy_robots_policy.demo.site import USER_AGENT, DemoSite

CONFIGURATIONS: dict[str, dict[str, Any]] = {
    "no purpose": {},
    "search, tdm": {"ROBOTS_POLICY_PURPOSES": ["search", "tdm"]},
    "all four, record": {"ROBOTS_POLICY_PURPOSES": ["search", "ai-input", "ai-train", "tdm"],
                         "ROBOTS_POLICY_USAGE": "record"},
}


class Everything(Spider):
    name = "everything"
    user_agent = USER_AGENT

    def parse(self, response: Any, **kwargs: Any) -> Any:
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)


def _crawl(start_urls: list[str], feed: str, settings: dict[str, Any]) -> None:
    process = CrawlerProcess({
        "ADDONS": {"scrapy_robots_policy.Addon": 0}, "ROBOTSTXT_OBEY": True,
        "ROBOTS_POLICY_ITEM_FIELD": "robots", "ROBOTS_POLICY_RETRY_PATIENCE": 1.0,
        "LOG_LEVEL": "ERROR", "TELNETCONSOLE_ENABLED": False,
        "FEEDS": {feed: {"format": "jsonlines"}}, **settings})
    process.crawl(Everything, start_urls=start_urls)
    process.start()


def measure(settings: dict[str, Any]) -> list[int]:
    """Bytes of each item's record in the feed of one crawl (in a child process: one
    Twisted reactor per crawl)."""
    with DemoSite() as site, tempfile.TemporaryDirectory() as folder:
        feed = str(Path(folder) / "items.jl")
        starts = [origin.url + "/" for origin in site.origins]
        child = multiprocessing.get_context("spawn").Process(
            target=_crawl, args=(starts, feed, settings))
        child.start()
        child.join(120)
        sizes = []
        for line in Path(feed).read_text().splitlines():
            record = json.loads(line)["robots"]
            sizes.append(len(json.dumps(record, ensure_ascii=False).encode()))
        return sizes


def main() -> None:
    print(f"{'configuration':<18} {'items':>5} {'median B':>9} {'max B':>6} {'mean B':>7}")
    for name, settings in CONFIGURATIONS.items():
        sizes = measure(settings)
        print(f"{name:<18} {len(sizes):>5} {statistics.median(sizes):>9.0f} {max(sizes):>6} "
              f"{statistics.fmean(sizes):>7.0f}")


if __name__ == "__main__":
    main()
