"""Real crawls with Scrapy's own RobotsTxtMiddleware and
``ROBOTSTXT_PARSER = "scrapy_robots_policy.RobotParser"``: the same decisions as the
add-on's, on a robots.txt where Google's rules (this engine) and Protego (Scrapy's default
parser) disagree, so the crawl shows which engine answered. And what the add-on says about
a ROBOTSTXT_PARSER it does not use."""

from __future__ import annotations

import re
from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware

from tests.support import CrawlResult, LocalServer, Reply, idle_crawler, run_crawl

ADDON = {"scrapy_robots_policy.Addon": 0}
BUILTIN = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
OURS = "scrapy_robots_policy.downloader.RobotsPolicyDownloaderMiddleware"
PARSER = "scrapy_robots_policy.RobotParser"
PROTEGO = "scrapy.robotstxt.ProtegoRobotParser"

ROBOTS = """User-agent: *
Disallow: /a$
Disallow: /q
Allow: /q%3F
Disallow: /plus
Allow: /plus+
Disallow: /tie
Allow: /tie
Disallow: /caf%C3%A9
"""

#: Each path as the server sees it; in comments, why Google's rules answer as they do.
PATHS = [
    "/a",           # refused by both
    "/a$b",         # "$" anchors only at the end of a pattern: "/a$" is "/a" and no more
    "/q?x",         # "%3F" is an encoded "?" in a path, not the "?" that starts the query
    "/q%3Fx",
    "/plus+x",
    "/plus%2Bx",    # "%2B" is not "+" (RFC 9309 keeps reserved characters encoded)
    "/tie",         # equal length: allow wins the tie
    "/caf%C3%A9",   # "/café", sent encoded
    "/page",
]
GOOGLE = {"/a$b", "/q%3Fx", "/plus+x", "/tie", "/page"}
# Protego decodes %3F and %2B and reads "$" anywhere as an anchor: the opposite answer on
# three paths of four that differ.
PROTEGO_ALLOWS = {"/q?x", "/q%3Fx", "/plus+x", "/plus%2Bx", "/tie", "/page"}


class Paths(Spider):
    """Fetches ``/page`` first, then, from its callback, every path of ``PATHS``.

    One request first: in Scrapy 2.19's middleware, of the requests waiting together for
    an origin's robots.txt, only the first to wait gets the parser (``Deferred.asFuture``
    leaves None to the next) and the others go unchecked, whatever the parser. That gap is
    the middleware's, not the parser's; the add-on's middleware has none (see
    ``test_50_concurrent_disallowed_requests_none_downloaded_one_fetch``)."""

    name = "paths"
    origin = ""

    def request(self, path: str, **kwargs: Any) -> Request:
        # A header, so Scrapy's middleware hands the parser the agent as bytes.
        return Request(self.origin + path, dont_filter=True,
                       headers={"User-Agent": "MyBot/1.0 (+https://example.com)"}, **kwargs)

    async def start(self) -> Any:
        yield self.request("/page", callback=self.everything)

    def everything(self, response: Any) -> Any:
        for path in PATHS:
            yield self.request(path)

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}


def crawl(settings: dict[str, Any]) -> tuple[CrawlResult, LocalServer]:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as server:
        result = run_crawl(Paths, {"ROBOTSTXT_OBEY": True, "RETRY_ENABLED": False, **settings},
                           origin=server.origin)
    return result, server


def downloaded(server: LocalServer) -> set[str]:
    return {path for path in server.paths() if path != "/robots.txt"}


def enabled_downloader_middlewares(log: str) -> str:
    match = re.search(r"Enabled downloader middlewares:\n(\[.*?\])", log, re.S)
    assert match, log
    return match.group(1)


def parser_warnings(log: str) -> list[str]:
    return [line for line in log.splitlines()
            if line.startswith("WARNING") and "ROBOTSTXT_PARSER" in line]


def test_scrapys_middleware_with_robotparser_decides_as_google() -> None:
    result, server = crawl({"ROBOTSTXT_PARSER": PARSER})
    enabled = enabled_downloader_middlewares(result.log)
    assert BUILTIN in enabled and OURS not in enabled
    assert downloaded(server) == GOOGLE
    assert result.stat("robotstxt/forbidden") == len(PATHS) - len(GOOGLE)
    assert server.hits("/robots.txt") == 1
    assert len(result.items) == len(GOOGLE)  # "/page" twice: its first time yields none
    assert not parser_warnings(result.log)


def test_scrapys_default_parser_answers_otherwise_on_the_same_file() -> None:
    """The file discriminates: with Protego, Scrapy's middleware crawls other paths."""
    result, server = crawl({})
    assert BUILTIN in enabled_downloader_middlewares(result.log)
    assert downloaded(server) == PROTEGO_ALLOWS != GOOGLE


@pytest.mark.parametrize("parser", [None, PROTEGO, PARSER])
def test_the_addon_decides_the_same_and_says_nothing_of_these_parsers(parser: str | None) -> None:
    result, server = crawl({"ADDONS": ADDON,
                            **({"ROBOTSTXT_PARSER": parser} if parser else {})})
    enabled = enabled_downloader_middlewares(result.log)
    assert OURS in enabled and BUILTIN not in enabled
    assert downloaded(server) == GOOGLE
    assert not parser_warnings(result.log)


@pytest.mark.parametrize("parser", ["scrapy.robotstxt.PythonRobotParser",
                                    "scrapy_robots_policy.RobotsTxt", "myproject.Parser"])
def test_the_addon_warns_once_of_another_parser_and_uses_its_engine(parser: str) -> None:
    result, server = crawl({"ADDONS": ADDON, "ROBOTSTXT_PARSER": parser})
    assert downloaded(server) == GOOGLE  # not urllib's answers: the add-on's engine
    warnings = parser_warnings(result.log)
    assert len(warnings) == 1, result.log
    assert repr(parser) in warnings[0]
    assert "'scrapy_robots_policy.RobotParser'" in warnings[0]
    assert warnings[0].startswith("WARNING scrapy_robots_policy.addon:")


def test_robotstxt_as_robotstxt_parser_stops_the_crawl_at_start() -> None:
    """RobotsTxt is not a RobotParser: Scrapy's middleware (2.14+) builds it as
    ``RobotsTxt(b"")`` at start-up, which raises the TypeError naming RobotParser, where it
    used to answer "allowed" to everything; Scrapy 2.13 calls ``RobotsTxt.from_crawler``
    and fails on its absence. Either way the crawl stops before any request."""
    settings = {"ROBOTSTXT_OBEY": True, "ROBOTSTXT_PARSER": "scrapy_robots_policy.RobotsTxt"}
    with pytest.raises((TypeError, AttributeError)) as raised:
        RobotsTxtMiddleware.from_crawler(idle_crawler(Paths, settings))
    if isinstance(raised.value, TypeError):
        assert "RobotsTxt.parse" in str(raised.value) and PARSER in str(raised.value)
    else:
        assert "from_crawler" in str(raised.value)
    with LocalServer({"/robots.txt": Reply(body="User-agent: *\nDisallow: /\n")}) as server:
        try:  # no stats at all on 2.14+, a few log counts on 2.13
            log = run_crawl(Paths, settings, origin=server.origin).log
        except RuntimeError as failed:
            log = str(failed)
    assert server.paths() == []
    assert "Spider opened" not in log
