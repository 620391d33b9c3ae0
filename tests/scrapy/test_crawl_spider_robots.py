"""Real crawls: a spider's own robots.txt requests are answered from the plugin's fetch.

One fetch per origin, whoever asks: a ``SitemapSpider`` starting from robots.txt, or any
spider requesting an origin's robots.txt, gets the plugin's copy (same status and body,
flagged ``cached`` and ``robots_policy``), counted at the server, whichever came first.
"""

from __future__ import annotations

from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.spiders import SitemapSpider

from scrapy_robots_policy import fetch_sitemap_urls, sitemap_urls
from scrapy_robots_policy.fetch.origin import origin_of
from tests.scrapy.test_crawl_robotstxt import crawl, log_lines
from tests.support import LocalServer, RedisServer, Reply, Seen

ROBOTS = "User-agent: *\nDisallow: /private\n"
ANSWERED = ["cached", "robots_policy"]


def site(robots: str = ROBOTS) -> dict[str, Any]:
    """A site whose robots.txt lists one sitemap naming /a, /b and the disallowed /private."""
    def sitemap(seen: Seen) -> Reply:
        base = f"http://{seen.headers['host']}"
        locs = "".join(f"<url><loc>{base}{p}</loc></url>" for p in ("/a", "/b", "/private"))
        return Reply(body='<?xml version="1.0" encoding="UTF-8"?><urlset xmlns='
                          f'"http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>',
                     headers={"Content-Type": "application/xml"})

    def robots_txt(seen: Seen) -> Reply:
        return Reply(body=f"{robots}Sitemap: http://{seen.headers['host']}/sitemap.xml\n")

    return {"/robots.txt": robots_txt, "/sitemap.xml": sitemap}


class Asks(Spider):
    """Requests ``start_urls`` at once; after the response to a URL in ``plan``, requests
    plan[url]. Every answer (any status) is an item; failures are counted (Scrapy 2.13
    drops an errback's items)."""

    name = "asks"
    plan: dict[str, list[str]] = {}  # noqa: RUF012 (set per crawl through a keyword)
    meta: dict[str, Any] = {}  # noqa: RUF012

    async def start(self) -> Any:
        for url in self.start_urls:
            yield self.ask(url)

    def ask(self, url: str) -> Request:
        return Request(url, dont_filter=True, errback=self.failed,
                       meta={"handle_httpstatus_all": True, **self.meta})

    def parse(self, response: Any) -> Any:
        yield {"url": response.url, "status": response.status, "body": response.body,
               "flags": response.flags}
        for url in self.plan.get(response.url, []):
            yield self.ask(url)

    def failed(self, failure: Any) -> None:
        self.crawler.stats.inc_value(f"test/failed/{failure.request.url}")


class Sitemaps(SitemapSpider):
    name = "sitemaps"

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}


def answers(result: Any, url: str) -> list[dict[str, Any]]:
    return [item for item in result.items if item["url"] == url]


# -- SitemapSpider -----------------------------------------------------------------------------


def test_a_sitemap_spider_starting_from_robots_txt_fetches_it_once() -> None:
    with LocalServer(site()) as s:
        r = crawl(spider=Sitemaps, sitemap_urls=[s.url("/robots.txt")])
    assert s.hits("/robots.txt") == 1
    assert sorted(item["url"] for item in r.items) == [s.url("/a"), s.url("/b")]
    assert r.stat("robotstxt/forbidden/rule") == 1  # /private, listed in the sitemap
    # ... refused before the scheduler: only robots.txt, the sitemap, /a and /b went in.
    assert r.stat("robotstxt/forbidden/early") == 1
    assert r.stat("scheduler/enqueued") == 4
    assert s.hits("/private") == 0
    assert r.stat("robotstxt/request_count") == 1
    assert r.stat("robotstxt/spider_requests_answered") == 1
    assert log_lines(r, rf"^DEBUG .*Answered <GET {s.url('/robots.txt')}> from the "
                        r"plugin's fetch of it \(200, \d+ bytes\)")


# -- whoever asks first ------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["robots.txt first", "page first", "together"])
def test_one_fetch_and_the_same_answer_whichever_asks_first(order: str) -> None:
    # "together": the page starts the plugin's fetch, which the spider's request joins.
    with LocalServer({"/robots.txt": Reply(body=ROBOTS, delay=0.3)}) as s:
        robots, page, private = s.url("/robots.txt"), s.url("/a"), s.url("/private")
        start, plan = {
            "robots.txt first": ([robots], {robots: [page, private]}),
            "page first": ([page], {page: [robots, private]}),
            "together": ([page, robots, private], {}),
        }[order]
        r = crawl(spider=Asks, start_urls=start, plan=plan)
    assert s.hits("/robots.txt") == 1
    assert s.paths().count("/a") == 1 and s.hits("/private") == 0  # the same rules obeyed
    [answer] = answers(r, robots)
    assert (answer["status"], answer["body"]) == (200, ROBOTS.encode())
    assert answer["flags"] == ANSWERED
    assert r.stat("robotstxt/spider_requests_answered") == 1
    assert r.stat("robotstxt/forbidden/rule") == 1


def test_the_robots_txt_of_two_origins_each_fetched_once() -> None:
    first, second = "User-agent: *\nDisallow: /one\n", "User-agent: *\nDisallow: /two\n"
    with LocalServer({"/robots.txt": Reply(body=first)}) as one, \
            LocalServer({"/robots.txt": Reply(body=second)}) as two:
        r = crawl(spider=Asks, start_urls=[one.url("/robots.txt"), two.url("/robots.txt"),
                                           one.url("/two"), two.url("/one")])
    assert (one.hits("/robots.txt"), two.hits("/robots.txt")) == (1, 1)
    assert answers(r, one.url("/robots.txt"))[0]["body"] == first.encode()
    assert answers(r, two.url("/robots.txt"))[0]["body"] == second.encode()
    assert (one.hits("/two"), two.hits("/one")) == (1, 1)
    assert r.stat("robotstxt/spider_requests_answered") == 2


TDMREP = ('[{"location": "/private/*", "tdm-reservation": 1}, '
          '{"location": "/.well-known/*", "tdm-reservation": 1}]')


@pytest.mark.parametrize("order", ["tdmrep.json first", "page first", "together"])
def test_a_spiders_tdmrep_json_request_is_answered_from_the_gates_fetch(order: str) -> None:
    # A crawl declaring "tdm" fetches each origin's tdmrep.json; the spider asking for it
    # too gets that copy. The file reserves its own location: it is a policy file,
    # answered like robots.txt, never refused by what it says.
    routes = {"/robots.txt": Reply(body="User-agent: *\nAllow: /\n"),
              "/.well-known/tdmrep.json": Reply(body=TDMREP, delay=0.3)}
    with LocalServer(routes) as s:
        tdmrep, page, private = (s.url("/.well-known/tdmrep.json"), s.url("/a"),
                                 s.url("/private/1"))
        start, plan = {
            "tdmrep.json first": ([tdmrep], {tdmrep: [page, private]}),
            "page first": ([page], {page: [tdmrep, private]}),
            "together": ([page, tdmrep, private], {}),
        }[order]
        r = crawl({"ROBOTS_POLICY_PURPOSES": ["tdm"]}, spider=Asks, start_urls=start,
                  plan=plan)
    assert s.hits("/.well-known/tdmrep.json") == 1
    [answer] = answers(r, tdmrep)
    assert (answer["status"], answer["body"], answer["flags"]) == (200, TDMREP.encode(),
                                                                    ANSWERED)
    assert r.stat("robots_policy/tdmrep/spider_requests_answered") == 1
    assert (s.hits("/a"), s.hits("/private/1")) == (1, 0)  # the reservation obeyed
    assert r.stat("robots_policy/usage/requests_refused/tdmrep.json/tdm") == 1


def test_without_a_purpose_that_reads_it_the_spider_downloads_tdmrep_json_itself() -> None:
    routes = {"/robots.txt": Reply(body="User-agent: *\nAllow: /\n"),
              "/.well-known/tdmrep.json": Reply(body=TDMREP)}
    with LocalServer(routes) as s:
        r = crawl({"ROBOTS_POLICY_PURPOSES": ["search"]}, spider=Asks,
                  start_urls=[s.url("/.well-known/tdmrep.json")])
    assert s.hits("/.well-known/tdmrep.json") == 1
    [answer] = answers(r, s.url("/.well-known/tdmrep.json"))
    assert "robots_policy" not in answer["flags"]  # downloaded, not answered
    assert r.stat("robots_policy/tdmrep/spider_requests_answered") == 0


# -- what the fetch got, passed on -------------------------------------------------------------


def test_a_404_is_answered_404_without_the_error_page() -> None:
    with LocalServer({"/robots.txt": Reply(404, "<html>Not here</html>")}) as s:
        r = crawl(spider=Asks, start_urls=[s.url("/robots.txt"), s.url("/a")])
    assert s.hits("/robots.txt") == 1
    [answer] = answers(r, s.url("/robots.txt"))
    assert (answer["status"], answer["body"], answer["flags"]) == (404, b"", ANSWERED)
    assert s.hits("/a") == 1  # 404: allow all


def test_a_500_is_answered_500_after_the_plugins_own_retries() -> None:
    with LocalServer({"/robots.txt": Reply(500, "down")}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 0.5, "RETRY_ENABLED": True}, spider=Asks,
                  start_urls=[s.url("/robots.txt"), s.url("/a")])
    [answer] = answers(r, s.url("/robots.txt"))
    assert (answer["status"], answer["body"], answer["flags"]) == (500, b"", ANSWERED)
    # Retried on the plugin's schedule; Scrapy's retries of the spider's request are
    # answered from the same outcome, held a while, without reaching the server.
    assert s.hits("/robots.txt") == r.stat("robotstxt/request_count") >= 2
    assert r.stat("retry/count") == 2
    assert s.hits("/a") == 0
    assert r.stat("robotstxt/forbidden/unreachable") == 1
    # The round refused /a alone: the spider's robots.txt request was answered.
    assert [line for line in r.log.splitlines() if line.startswith("WARNING")
            and "unreachable" in line and "refusing 1 waiting requests" in line]


def test_a_redirect_is_answered_with_the_final_status_and_body_at_the_url_asked() -> None:
    moved = Reply(301, headers={"Location": "/elsewhere/robots.txt"})
    with LocalServer({"/robots.txt": moved, "/elsewhere/robots.txt": Reply(body=ROBOTS)}) as s:
        r = crawl(spider=Asks, start_urls=[s.url("/robots.txt"), s.url("/private")])
    assert (s.hits("/robots.txt"), s.hits("/elsewhere/robots.txt")) == (1, 1)
    [answer] = answers(r, s.url("/robots.txt"))
    assert (answer["status"], answer["body"]) == (200, ROBOTS.encode())
    assert s.hits("/private") == 0


def test_no_http_answer_to_pass_on_the_spiders_request_is_downloaded() -> None:
    with LocalServer({"/robots.txt": Reply(reset=True)}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 0}, spider=Asks,
                  start_urls=[s.url("/robots.txt")])
    assert s.hits("/robots.txt") == 2  # the plugin's, then the spider's own
    assert answers(r, s.url("/robots.txt")) == []
    assert r.stat(f"test/failed/{s.url('/robots.txt')}") == 1  # the download's own failure
    assert r.stat("robotstxt/spider_requests_downloaded") == 1
    assert log_lines(r, r"^DEBUG .*Downloading <GET .*/robots.txt>: the robots.txt of "
                        r"http://127.0.0.1:\d+ got no HTTP answer to pass on")


def test_still_waiting_when_the_crawl_closes_it_is_refused_as_the_pages_are() -> None:
    with LocalServer({"/robots.txt": Reply(503)}) as s:
        r = crawl({"ROBOTS_POLICY_RETRY_PATIENCE": 60, "ROBOTS_POLICY_RETRY_BACKOFF": 1,
                   "CLOSESPIDER_TIMEOUT": 2}, spider=Asks,
                  start_urls=[s.url("/robots.txt"), s.url("/a")], timeout=120)
    assert r.stat("finish_reason") == "closespider_timeout"
    assert s.hits("/robots.txt") == r.stat("robotstxt/request_count")  # the plugin's only
    assert r.stat("robotstxt/forbidden/closing") == 2
    assert r.stat(f"test/failed/{s.url('/robots.txt')}") == 1
    assert r.seconds < 30  # not the 60 s of patience


def test_a_tdmrep_json_request_still_waiting_when_the_crawl_closes_is_refused() -> None:
    routes = {"/robots.txt": Reply(body="User-agent: *\nAllow: /\n"),
              "/.well-known/tdmrep.json": Reply(503)}
    with LocalServer(routes) as s:
        tdmrep = s.url("/.well-known/tdmrep.json")
        r = crawl({"ROBOTS_POLICY_PURPOSES": ["tdm"], "ROBOTS_POLICY_RETRY_PATIENCE": 60,
                   "ROBOTS_POLICY_RETRY_BACKOFF": 1, "CLOSESPIDER_TIMEOUT": 2},
                  spider=Asks, start_urls=[tdmrep], timeout=120)
    assert r.stat("finish_reason") == "closespider_timeout"
    assert s.hits("/.well-known/tdmrep.json") == r.stat("robots_policy/tdmrep/request_count")
    assert r.stat("robots_policy/tdmrep/spider_requests_refused") == 1
    assert r.stat(f"test/failed/{tdmrep}") == 1
    assert log_lines(r, rf"^DEBUG .*Refused <GET {tdmrep}>: the tdmrep.json of "
                        r"http://127\.0\.0\.1:\d+ was still being fetched")
    assert r.seconds < 30  # not the 60 s of patience


def test_dont_obey_robotstxt_downloads_the_spiders_copy_itself() -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        r = crawl(spider=Asks, start_urls=[s.url("/robots.txt")],
                  meta={"dont_obey_robotstxt": True})
    assert s.hits("/robots.txt") == 1
    [answer] = answers(r, s.url("/robots.txt"))
    assert "cached" not in answer["flags"]
    assert r.stat("robotstxt/request_count") == 0  # the plugin never asked


def test_a_robots_txt_with_a_query_is_a_page_like_any_other() -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        r = crawl(spider=Asks, start_urls=[s.url("/robots.txt?x=1")])
    assert s.paths().count("/robots.txt?x=1") == 1
    assert answers(r, s.url("/robots.txt?x=1"))[0]["flags"] == []


# -- shared through Redis -----------------------------------------------------------------------


@pytest.mark.parametrize(("path", "body", "purposes", "stats"), [
    ("/robots.txt", ROBOTS, [], "robotstxt"),
    ("/.well-known/tdmrep.json", TDMREP, ["tdm"], "robots_policy/tdmrep"),
])
def test_another_process_is_answered_from_redis_without_a_fetch(
        redis_server: RedisServer, path: str, body: str, purposes: list[str],
        stats: str) -> None:
    shared = {"ROBOTS_POLICY_REDIS_URL": redis_server.url, "ROBOTS_POLICY_PURPOSES": purposes}
    routes = {"/robots.txt": Reply(body=ROBOTS), path: Reply(body=body)}
    with LocalServer(routes) as s:
        crawl(shared, spider=Asks, start_urls=[s.url("/a")])
        r = crawl(shared, spider=Asks, start_urls=[s.url(path)])
    assert s.hits(path) == 1
    [answer] = answers(r, s.url(path))
    assert (answer["status"], answer["body"], answer["flags"]) == (200, body.encode(),
                                                                   ANSWERED)
    assert r.stat(f"{stats}/redis_shared") == 1
    assert r.stat(f"{stats}/request_count") == 0


def test_an_entry_shared_by_an_older_version_lets_the_spider_download_its_copy(
        redis_server: RedisServer) -> None:
    shared = {"ROBOTS_POLICY_REDIS_URL": redis_server.url}
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        crawl(shared, spider=Asks, start_urls=[s.url("/a")])
        key = f"robots_policy:{{{origin_of(s.origin)}}}"
        assert redis_server.client.hdel(key, "status") == 1  # as an older version wrote it
        r = crawl(shared, spider=Asks, start_urls=[s.url("/robots.txt"), s.url("/private")])
    assert s.hits("/robots.txt") == 2  # the first process's fetch, the spider's own
    assert answers(r, s.url("/robots.txt"))[0]["flags"] == []
    assert s.hits("/private") == 0  # the shared rules obeyed all the same
    assert r.stat("robotstxt/spider_requests_downloaded") == 1


# -- the Sitemap URLs, without a request -------------------------------------------------------


class ReadsSitemaps(Spider):
    """Asks the helpers for an origin's Sitemap URLs and crawls the sitemaps they name."""

    name = "reads_sitemaps"
    origin = ""

    async def start(self) -> Any:
        yield {"url": "before", "sitemaps": sitemap_urls(self.crawler, self.origin)}
        found = await fetch_sitemap_urls(self.crawler, self.origin)
        yield {"url": "fetched", "sitemaps": found}
        for url in found or ():
            yield Request(url)

    def parse(self, response: Any) -> Any:
        yield {"url": "known", "sitemaps": sitemap_urls(self.crawler, response.url)}


def test_the_sitemap_urls_of_robots_txt_are_read_without_a_request() -> None:
    with LocalServer(site()) as s:
        r = crawl(spider=ReadsSitemaps, origin=s.origin)
    listed = [s.url("/sitemap.xml")]
    by_step = {item["url"]: item["sitemaps"] for item in r.items}
    assert by_step == {"before": None, "fetched": listed, "known": listed}
    assert s.hits("/robots.txt") == 1 and s.hits("/sitemap.xml") == 1
