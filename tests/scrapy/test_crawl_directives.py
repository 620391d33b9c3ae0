"""Real crawls against a local server: page-level directives drop items and stop links.

One site holds a page per directive form (meta tags, X-Robots-Tag with and without a
user-agent prefix, ...); each form page links to a child page. An item missing for a
form page means its items were dropped; its child never requested means its links were
not followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest
import scrapy

from tests.support import LocalServer, Reply, run_crawl

MIDDLEWARE = "scrapy_robots_policy.spider.RobotsPolicySpiderMiddleware"
AGENT = "TestBot/1.0 (+http://127.0.0.1/bot)"
BASE_SETTINGS: dict[str, Any] = {
    "ROBOTSTXT_OBEY": False,
    "USER_AGENT": AGENT,
    "SPIDER_MIDDLEWARES": {MIDDLEWARE: 950},
}


@dataclass
class Form:
    metas: list[tuple[str, str]] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    item: bool = True  # the form page's item reaches the item pipeline
    follow: bool = True  # its child page is requested
    content_type: str = "text/html; charset=utf-8"
    rel: str = ""
    xhtml: bool = False
    after_html: bool = False  # the meta tags stand after </html>


FORMS: dict[str, Form] = {
    "plain": Form(),
    "meta-robots-noindex": Form(metas=[("robots", "noindex")], item=False),
    "meta-robots-nofollow": Form(metas=[("robots", "nofollow")], follow=False),
    "meta-robots-none": Form(metas=[("robots", "none")], item=False, follow=False),
    "meta-agent-noindex": Form(metas=[("testbot", "noindex")], item=False),
    "meta-agent-nofollow": Form(metas=[("TestBot", "NoFollow")], follow=False),
    "meta-combined": Form(metas=[("robots", "nofollow"), ("testbot", "noindex")], item=False,
                          follow=False),
    "meta-after-html": Form(metas=[("robots", "noindex")], after_html=True, item=False),
    "meta-unavailable-past": Form(metas=[("robots", "unavailable_after: 2020-09-21")],
                                  item=False),
    "meta-unavailable-future": Form(metas=[("robots", "unavailable_after: 2999-01-01")]),
    "meta-snippet-only": Form(metas=[("robots", "nosnippet, noarchive, max-snippet:5")]),
    "header-noindex": Form(headers=["noindex"], item=False),
    "header-nofollow": Form(headers=["nofollow"], follow=False),
    "header-none": Form(headers=["none"], item=False, follow=False),
    "header-agent-prefix": Form(headers=["testbot: noindex"], item=False),
    "header-agent-prefix-nofollow": Form(headers=["TestBot: nofollow"], follow=False),
    "header-mid-list": Form(headers=["noarchive, testbot: nofollow"], follow=False),
    "header-two": Form(headers=["noarchive", "testbot: noindex, nofollow"], item=False,
                       follow=False),
    "header-unavailable-past": Form(
        headers=["unavailable_after: Saturday, 01-Jul-23 15:00:00 GMT"], item=False),
    "header-unavailable-basic": Form(headers=["unavailable_after: 20200921T150000Z"],
                                     item=False),
    "header-unavailable-future": Form(headers=["unavailable_after: 25 Jun 2999 15:00:00 PST"]),
    "header-and-meta": Form(metas=[("robots", "nofollow")], headers=["testbot: noindex"],
                            item=False, follow=False),
    "other-meta": Form(metas=[("otherbot", "none")]),
    "other-header": Form(headers=["otherbot: noindex, nofollow"]),
    "other-mid-list": Form(headers=["testbot: noarchive, otherbot: noindex, nofollow"]),
    "related-crawler": Form(metas=[("testbot-news", "noindex, nofollow")]),
    "rel-nofollow-link": Form(rel="nofollow"),
    # a page that is not HTML: only the header counts, meta-like text does not
    "text-with-meta-text": Form(metas=[("robots", "noindex, nofollow")],
                                content_type="text/plain"),
    "text-with-header": Form(headers=["noindex, nofollow"], content_type="text/plain",
                             item=False, follow=False),
    # a binary file: the spider follows what X-Test-Follow names
    "pdf-plain": Form(metas=[("robots", "noindex, nofollow")], content_type="application/pdf"),
    "pdf-header": Form(headers=["testbot: noindex, nofollow"], content_type="application/pdf",
                       item=False, follow=False),
    "xhtml-meta": Form(metas=[("robots", "noindex"), ("TestBot", "nofollow")], xhtml=True,
                       content_type="application/xhtml+xml", item=False, follow=False),
}


def form_page(name: str, form: Form) -> Reply:
    end = " />" if form.xhtml else ">"
    metas = "".join(f'<meta name="{n}" content="{c}"{end}' for n, c in form.metas)
    rel = f' rel="{form.rel}"' if form.rel else ""
    html = ('<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
            if form.xhtml else "<html>")
    head, tail = ("", metas) if form.after_html else (metas, "")
    body = (f"{html}<head><title>{name}</title>{head}</head><body>"
            f'<a href="/f/{name}/child"{rel}>child</a></body></html>{tail}')
    headers: dict[str, str | list[str]] = {"Content-Type": form.content_type}
    if form.headers:
        headers["X-Robots-Tag"] = form.headers
    if form.content_type == "application/pdf":
        headers["X-Test-Follow"] = f"/f/{name}/child"
        # binary, so Scrapy makes a plain Response: meta-like bytes inside do not count
        return Reply(200, b"%PDF-1.4\n%\x00\x01\x02\x03\n" + body.encode(), headers)
    return Reply(200, body, headers)


def child_page() -> Reply:
    return Reply(200, "<html><body><p>child</p></body></html>", {"Content-Type": "text/html"})


def forms_site() -> dict[str, Reply]:
    links = "".join(f'<a href="/f/{name}">{name}</a>' for name in FORMS)
    routes = {"/": Reply(200, f"<html><body>{links}</body></html>",
                         {"Content-Type": "text/html"})}
    for name, form in FORMS.items():
        routes[f"/f/{name}"] = form_page(name, form)
        routes[f"/f/{name}/child"] = child_page()
    return routes


class PageSpider(scrapy.Spider):
    """Yields one item per page, follows every link, and any path in X-Test-Follow."""

    name = "pages"

    def parse(self, response):
        directives = response.meta.get("robots_directives")
        yield {"url": response.url,
               "seen": None if directives is None else directives.as_dict()}
        if isinstance(response, scrapy.http.TextResponse):
            for href in response.css("a::attr(href), area::attr(href)").getall():
                yield response.follow(href, self.parse)
        for path in response.headers.getlist(b"X-Test-Follow"):
            yield response.follow(path.decode(), self.parse)


def path_of(url: str) -> str:
    return "/" + url.split("/", 3)[3]


def crawl(routes: dict[str, Reply], spider: type[scrapy.Spider] = PageSpider,
          **settings: Any):
    with LocalServer(routes) as server:
        result = run_crawl(spider, {**BASE_SETTINGS, **settings}, start_urls=[server.url("/")])
    items = {path_of(item["url"]): item for item in result.items}
    return server, result, items


@pytest.fixture(scope="module")
def forms_crawl():
    return crawl(forms_site())


@pytest.mark.parametrize("name", list(FORMS))
def test_each_directive_form_drops_items_and_stops_links(forms_crawl, name):
    server, _, items = forms_crawl
    form = FORMS[name]
    assert server.hits(f"/f/{name}") == 1
    assert (f"/f/{name}" in items) is form.item
    assert (server.hits(f"/f/{name}/child") == 1) is form.follow
    if form.follow:  # the child of a followed page is an ordinary page
        assert f"/f/{name}/child" in items


def test_stats_count_each_decision_by_directive(forms_crawl):
    _, result, _ = forms_crawl
    not_indexable = [n for n, f in FORMS.items() if not f.item]
    not_followed = [n for n, f in FORMS.items() if not f.follow]
    assert result.stat("robots_policy/items_dropped") == len(not_indexable)
    assert result.stat("robots_policy/requests_dropped") == len(not_followed)
    assert result.stat("robots_policy/responses/noindex") == len(not_indexable)
    assert result.stat("robots_policy/responses/nofollow") == len(not_followed)
    expired = [n for n in not_indexable if "unavailable" in n]
    assert result.stat("robots_policy/items_dropped/unavailable_after") == len(expired) == 3
    assert result.stat("robots_policy/items_dropped/none") == 2
    assert result.stat("robots_policy/requests_dropped/none") == 2
    assert result.stat("robots_policy/items_dropped/noindex") == len(not_indexable) - 5
    assert result.stat("robots_policy/response_count") == 1 + 2 * len(FORMS) - len(not_followed)


def test_debug_log_names_url_directive_and_source(forms_crawl):
    server, result, _ = forms_crawl
    assert (f"DEBUG scrapy_robots_policy.spider: Dropped an item of "
            f"{server.url('/f/header-agent-prefix')}: noindex (from X-Robots-Tag: testbot: "
            f"noindex)") in result.log
    assert (f"Not following <GET {server.url('/f/meta-agent-nofollow/child')}> of "
            f"{server.url('/f/meta-agent-nofollow')}: nofollow (from <meta name=\"testbot\" "
            f"content=\"NoFollow\">)") in result.log
    assert "unavailable_after: 2020-09-21 (from <meta" in result.log


def test_callbacks_see_the_directives_in_response_meta(forms_crawl):
    _, _, items = forms_crawl
    assert items["/f/meta-snippet-only"]["seen"] == {
        "noarchive": True, "nosnippet": True, "max_snippet": 5}
    assert items["/f/header-unavailable-future"]["seen"] == {
        "unavailable_after": "2999-06-25T23:00:00+00:00"}
    assert items["/f/plain"]["seen"] == {}
    assert items["/f/other-header"]["seen"] == {}


# --- settings --------------------------------------------------------------------------


def test_drop_noindex_off_keeps_items_and_annotates_them():
    _, result, items = crawl(forms_site(), ROBOTS_POLICY_DROP_NOINDEX=False,
                             ROBOTS_POLICY_ITEM_FIELD="robots")
    assert all(f"/f/{name}" in items for name in FORMS)
    assert items["/f/header-noindex"]["robots"]["directives"] == {"noindex": True}
    assert items["/f/meta-robots-none"]["robots"]["directives"] == {"noindex": True,
                                                                   "nofollow": True}
    assert items["/f/plain"]["robots"]["directives"] == {}
    assert result.stat("robots_policy/items_dropped") == 0
    assert result.stat("robots_policy/requests_dropped") > 0  # nofollow still obeyed


def test_obey_nofollow_off_follows_every_link():
    server, result, items = crawl(forms_site(), ROBOTS_POLICY_OBEY_NOFOLLOW=False)
    assert all(server.hits(f"/f/{name}/child") == 1 for name in FORMS)
    assert "/f/header-noindex" not in items  # noindex still obeyed
    assert result.stat("robots_policy/requests_dropped") == 0


def test_directives_obey_off_disables_the_middleware():
    server, result, items = crawl(forms_site(), ROBOTS_POLICY_DIRECTIVES_OBEY=False)
    assert all(f"/f/{name}" in items for name in FORMS)
    assert all(server.hits(f"/f/{name}/child") == 1 for name in FORMS)
    assert items["/f/header-noindex"]["seen"] is None
    assert not any(key.startswith("robots_policy/") for key in result.stats)


NOFOLLOW_WITH_EXTRA = {
    "/": Reply(200, '<html><head><meta name="robots" content="nofollow"></head><body>'
                    '<a href="/linked">a</a><area href="linked-area"><a href="/shared">s</a>'
                    "</body></html>",
               {"Content-Type": "text/html", "X-Test-Follow": ["/api/next", "/shared"]}),
}


def test_links_only_mode_keeps_requests_that_are_not_links_on_the_page():
    server, result, _ = crawl(NOFOLLOW_WITH_EXTRA, ROBOTS_POLICY_NOFOLLOW_LINKS_ONLY=True)
    assert server.hits("/api/next") == 1
    assert server.hits("/linked") == 0
    assert server.hits("/linked-area") == 0
    assert server.hits("/shared") == 0  # also a link on the page
    assert result.stat("robots_policy/requests_dropped/nofollow") == 4  # /shared twice


def test_by_default_nofollow_drops_every_request_of_the_page():
    server, _, _ = crawl(NOFOLLOW_WITH_EXTRA)
    assert server.hits("/api/next") == 0
    assert server.hits("/linked") == 0


REL_LINKS = {
    "/": Reply(200, '<html><head><base href="/dir/"></head><body>'
                    '<a rel="nofollow" href="a">a</a>'
                    '<a rel="noopener NoFollow" href="/b">b</a>'
                    '<a href="c">c</a>'
                    '<a rel="nofollow" href="d">d</a><a href="d">d again</a>'
                    '<a rel="ugc" href="e">e</a>'
                    "</body></html>", {"Content-Type": "text/html"}),
}


def test_rel_nofollow_mode_skips_links_marked_nofollow():
    server, result, _ = crawl(REL_LINKS, ROBOTS_POLICY_OBEY_REL_NOFOLLOW=True)
    assert server.hits("/dir/a") == 0
    assert server.hits("/b") == 0
    assert server.hits("/dir/c") == 1
    assert server.hits("/dir/d") == 1  # also linked without rel=nofollow
    assert server.hits("/dir/e") == 1
    assert result.stat("robots_policy/requests_dropped/rel_nofollow") == 2


def test_rel_nofollow_is_followed_by_default():
    server, _, _ = crawl(REL_LINKS)
    assert server.hits("/dir/a") == 1
    assert server.hits("/b") == 1


# --- per spider and per request --------------------------------------------------------


class OtherBotSpider(PageSpider):
    name = "otherbot-by-setting"
    custom_settings: ClassVar[dict[str, Any]] = {"ROBOTSTXT_USER_AGENT": "OtherBot"}


class OtherBotUserAgentSpider(PageSpider):
    name = "otherbot-by-user-agent"
    custom_settings: ClassVar[dict[str, Any]] = {"USER_AGENT": "OtherBot/3.0"}


@pytest.mark.parametrize("spider", [OtherBotSpider, OtherBotUserAgentSpider])
def test_custom_settings_change_whose_directives_apply(spider):
    server, _, items = crawl(forms_site(), spider)
    assert "/f/meta-agent-noindex" in items  # addressed to testbot: not ours any more
    assert server.hits("/f/header-agent-prefix-nofollow/child") == 1
    assert "/f/other-meta" not in items  # addressed to otherbot: ours now
    assert server.hits("/f/other-header/child") == 0
    assert "/f/meta-robots-noindex" not in items  # robots applies to everyone


class OptOutSpider(PageSpider):
    name = "opt-out"

    async def start(self):
        yield scrapy.Request(self.start_urls[0], meta={"dont_obey_robotstxt": True})


def test_dont_obey_robotstxt_request_meta_opts_out():
    routes = {"/": Reply(200, '<meta name="robots" content="none"><a href="/next">n</a>',
                         {"Content-Type": "text/html"})}
    server, _, items = crawl(routes, OptOutSpider)
    assert items["/"]["seen"] == {"noindex": True, "nofollow": True}
    assert server.hits("/next") == 1


class AsyncSpider(PageSpider):
    name = "async"

    async def parse(self, response):
        for obj in super().parse(response):
            yield obj


def test_async_callbacks_are_filtered_too():
    routes = {"/": Reply(200, '<meta name="robots" content="none"><a href="/next">n</a>',
                         {"Content-Type": "text/html"}),
              "/ok": Reply(200, '<a href="/next2">n</a>', {"Content-Type": "text/html"})}
    routes["/"].headers["X-Test-Follow"] = "/ok"
    server, _, items = crawl(routes, AsyncSpider, ROBOTS_POLICY_NOFOLLOW_LINKS_ONLY=True)
    assert "/" not in items
    assert server.hits("/next") == 0
    assert server.hits("/ok") == 1
    assert "/ok" in items
    assert server.hits("/next2") == 1


# --- bad input -------------------------------------------------------------------------


def test_bad_input_never_stops_the_crawl():
    routes = {
        "/": Reply(200, '<a href="/binary">b</a><a href="/badheader">h</a>'
                        '<a href="/badvalue">v</a><a href="/empty">e</a>',
                   {"Content-Type": "text/html"}),
        "/binary": Reply(200, bytes(range(256)) * 100, {"Content-Type": "text/html"}),
        "/badheader": Reply(200, "<p>x</p>", {"Content-Type": "text/html",
                                              "X-Robots-Tag": ["\xff\xfe\x00noarchive",
                                                               "testbot: noindex"]}),
        "/badvalue": Reply(200, '<meta name="robots" content="max-snippet:many, nofollow">',
                           {"Content-Type": "text/html"}),
        "/empty": Reply(200, b"", {"Content-Type": "text/html"}),
    }
    _, result, items = crawl(routes)
    assert {"/", "/binary", "/badvalue", "/empty"} <= set(items)
    assert "/badheader" not in items  # the valid part of the header still counts
    assert items["/badvalue"]["seen"] == {"nofollow": True}
    # max-snippet:many, and the bytes and NUL glued to noarchive (reported, not kept)
    assert result.stat("robots_policy/invalid_directives") == 2
    assert "ignored invalid max-snippet: many" in result.log
    assert "Traceback" not in result.log
    assert result.stat("spider_exceptions", 0) == 0


# --- the add-on alone ------------------------------------------------------------------


@pytest.mark.parametrize("obey_robotstxt", [False, True])
def test_the_addon_alone_enforces_page_level_directives(obey_robotstxt):
    routes = forms_site()
    routes["/robots.txt"] = Reply(200, "User-agent: testbot\nDisallow: /f/plain\n",
                                  {"Content-Type": "text/plain"})
    settings = {"ADDONS": {"scrapy_robots_policy.Addon": 0}, "USER_AGENT": AGENT,
                "ROBOTSTXT_OBEY": obey_robotstxt}
    with LocalServer(routes) as server:
        result = run_crawl(PageSpider, settings, start_urls=[server.url("/")])
    items = {path_of(item["url"]) for item in result.items}
    assert "/f/header-agent-prefix" not in items
    assert "/f/meta-robots-noindex" not in items
    assert "/f/other-header" in items
    assert server.hits("/f/header-mid-list/child") == 0
    assert server.hits("/f/other-mid-list/child") == 1
    assert result.stat("robots_policy/items_dropped") == len([f for f in FORMS.values()
                                                              if not f.item])
    # robots.txt is the other middleware's business, and only when ROBOTSTXT_OBEY is on
    assert server.hits("/f/plain") == (0 if obey_robotstxt else 1)


# --- whose directives: the crawler's whole name ------------------------------------------

NAMES_SITE_ROBOTS = (
    "User-agent: MJ2bot\nDisallow: /\n\n"
    "User-agent: MJ12bot\nDisallow: /private\n\n"
    "User-agent: mozilla\nDisallow: /browser\n\n"
    "User-agent: mybot\nDisallow: /private\n"
)
NAMES_SITE_PAGES = {
    "/meta-mj12bot": ('<meta name="mj12bot" content="noindex">', {}),
    "/meta-mj": ('<meta name="mj" content="noindex">', {}),
    "/header-mj12bot": ("", {"X-Robots-Tag": "MJ12bot: noindex"}),
    "/header-mj99bot": ("", {"X-Robots-Tag": "mj99bot: noindex"}),
    "/meta-mybot": ('<meta name="mybot" content="noindex">', {}),
    "/private": ("", {}),
    "/browser": ("", {}),
}


def names_site() -> dict[str, Reply]:
    links = "".join(f'<a href="{path}">{path}</a>' for path in NAMES_SITE_PAGES)
    routes = {"/": Reply(200, f"<html><body>{links}</body></html>",
                         {"Content-Type": "text/html"}),
              "/robots.txt": Reply(200, NAMES_SITE_ROBOTS, {"Content-Type": "text/plain"})}
    for path, (head, headers) in NAMES_SITE_PAGES.items():
        routes[path] = Reply(200, f"<html><head>{head}</head><body>{path}</body></html>",
                             {"Content-Type": "text/html", **headers})
    return routes


def crawl_names(user_agent: str) -> tuple[LocalServer, Any, set[str]]:
    settings = {"ADDONS": {"scrapy_robots_policy.Addon": 0}, "USER_AGENT": user_agent,
                "ROBOTSTXT_OBEY": True}
    with LocalServer(names_site()) as server:
        result = run_crawl(PageSpider, settings, start_urls=[server.url("/")])
    return server, result, {path_of(item["url"]) for item in result.items}


def test_a_crawler_name_with_digits_obeys_its_own_group_meta_tags_and_headers():
    server, result, items = crawl_names("MJ12bot/1.0 (+http://mj12bot.com/)")
    assert server.hits("/private") == 0  # its own group, not MJ2bot's "Disallow: /"
    assert {"/", "/meta-mj", "/header-mj99bot", "/meta-mybot", "/browser"} <= items
    assert "/meta-mj12bot" not in items
    assert "/header-mj12bot" not in items
    assert "WARNING scrapy_robots_policy.useragent" not in result.log


def test_a_browser_style_user_agent_is_read_for_the_crawler_it_names():
    server, result, items = crawl_names("Mozilla/5.0 (compatible; MyBot/1.0; +https://x.test)")
    assert server.hits("/private") == 0
    assert server.hits("/browser") == 1
    assert "/meta-mybot" not in items
    assert "/meta-mj12bot" in items
    assert "WARNING scrapy_robots_policy.useragent" not in result.log


def test_a_browser_user_agent_naming_no_crawler_is_warned_about_once():
    agent = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"
    server, result, items = crawl_names(agent)
    assert server.hits("/browser") == 0  # the rules are read for "mozilla"
    assert "/meta-mybot" in items
    warnings = [line for line in result.log.splitlines()
                if line.startswith("WARNING scrapy_robots_policy.useragent")]
    assert len(warnings) == 1, warnings
    assert repr(agent) in warnings[0]
    assert "Set ROBOTSTXT_USER_AGENT" in warnings[0]


# --- long, many and hostile header values --------------------------------------------------

# What the header carries, as the server sends it (latin-1: "\xff" is the byte 0xff)
HOSTILE = {
    "/h/long": "noindex, " + "a, " * 5300,  # just under Twisted's 16 KiB header line limit
    "/h/bytes": "\xff\xfe\x80noindex, testbot: nofollow",
    "/h/nul": "noarchive, \x00noindex",
    "/h/snippet": "max-snippet: 99999999999999999999999999",
    "/h/date": "unavailable_after: 9999-12-31T23:59:59-14:00",
    "/h/commas": "noindex" + "," * 16_000,
}


def test_hostile_header_values_are_counted_and_logged_never_raised():
    links = "".join(f'<a href="{path}">x</a>' for path in HOSTILE)
    routes = {"/": Reply(200, f"<html><body>{links}</body></html>",
                         {"Content-Type": "text/html"})}
    for path, value in HOSTILE.items():
        routes[path] = Reply(200, f'<a href="{path}/child">c</a>',
                             {"Content-Type": "text/html", "X-Robots-Tag": value})
    server, result, items = crawl(routes)
    assert "Traceback" not in result.log
    assert result.stat("spider_exceptions", 0) == 0
    # noindex at the start of a 16 KB value or before 16,000 commas still counts
    assert {"/h/long", "/h/commas"}.isdisjoint(items)
    assert {"/h/bytes", "/h/nul", "/h/snippet", "/h/date"} <= set(items)
    assert server.hits("/h/bytes/child") == 0  # the valid part after the bad bytes counts
    assert result.stat("robots_policy/values_cut") == 2
    assert result.stat("robots_policy/invalid_directives") == 4
    for path in ("/h/long", "/h/commas"):
        assert f"Robots directives of {server.url(path)} read in part" in result.log
    for path in ("/h/bytes", "/h/nul", "/h/snippet", "/h/date"):
        assert f"on {server.url(path)}" in result.log
    assert max(len(line) for line in result.log.splitlines()) < 2000
