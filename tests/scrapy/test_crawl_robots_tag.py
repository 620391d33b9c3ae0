"""Real crawls of a site whose pages carry Robots-Tag headers (draft-illyes-repext-03),
once as TestBot and once as ExampleBot: the rules for ``*`` apply to both, those for
ExampleBot to ExampleBot only, with X-Robots-Tag and meta tags, as the stats and log say.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.scrapy.test_crawl_directives import crawl
from tests.support import Reply

LONG_HEAD = "*;noarchive, " + "OtherBot;noindex, " * 400 + 'OtherBot;x="'
LONG_TAIL = '", ExampleBot;noindex'
#: name: (Robots-Tag lines, other headers, meta tags)
PAGES: dict[str, tuple[list[str], dict[str, str], str]] = {
    "plain": ([], {}, ""),
    "star-noindex": (["*;noindex"], {}, ""),
    "examplebot-nofollow": (["ExampleBot;nofollow"], {}, ""),
    "draft-02": (["*;noindex;nosnippet, ExampleBot;"], {}, ""),
    "broken": (["*;noindex, ("], {}, ""),
    # 8,192 characters, ExampleBot's member last: read whole
    "long": ([LONG_HEAD + "x" * (8192 - len(LONG_HEAD) - len(LONG_TAIL)) + LONG_TAIL], {}, ""),
    "united": (["*;nosnippet"], {"X-Robots-Tag": "examplebot: noindex"},
               '<meta name="robots" content="nofollow">'),
}


def site() -> dict[str, Reply]:
    links = "".join(f'<a href="/{name}">{name}</a>' for name in PAGES)
    routes = {"/": Reply(200, f"<html><body>{links}</body></html>",
                         {"Content-Type": "text/html"})}
    for name, (robots_tag, headers, metas) in PAGES.items():
        page_headers: dict[str, str | list[str]] = {"Content-Type": "text/html", **headers}
        if robots_tag:
            page_headers["Robots-Tag"] = robots_tag
        routes[f"/{name}"] = Reply(
            200, f'<html><head>{metas}</head><body><a href="/{name}/child">c</a></body></html>',
            page_headers)
        routes[f"/{name}/child"] = Reply(200, "<p>child</p>", {"Content-Type": "text/html"})
    return routes


@pytest.fixture(scope="module", params=["TestBot/1.0", "ExampleBot/1.0"])
def crawled(request: Any) -> tuple[str, Any, Any, dict[str, Any]]:
    server, result, items = crawl(site(), USER_AGENT=request.param)
    return request.param.split("/")[0], server, result, items


def test_rules_for_every_crawler_and_for_ours_only(crawled):
    bot, server, result, items = crawled
    example = bot == "ExampleBot"
    assert "Traceback" not in result.log
    assert {"/", "/plain", "/examplebot-nofollow", "/broken"} <= set(items)
    assert {"/star-noindex", "/draft-02"}.isdisjoint(items)  # *;noindex, for both
    assert ("/long" in items) is not example  # the last member of 8,192 characters counts
    assert server.hits("/examplebot-nofollow/child") == (0 if example else 1)
    assert server.hits("/star-noindex/child") == 1
    # Robots-Tag, X-Robots-Tag and the meta tag together
    assert server.hits("/united/child") == 0
    assert ("/united" in items) is not example
    if not example:
        assert items["/united"]["seen"] == {"nofollow": True, "nosnippet": True}


def test_stats_and_log_name_the_robots_tag(crawled):
    bot, server, result, _ = crawled
    example = bot == "ExampleBot"
    assert result.stat("robots_policy/items_dropped/noindex") == (4 if example else 2)
    assert result.stat("robots_policy/requests_dropped/nofollow") == (2 if example else 1)
    assert (f"Dropped an item of {server.url('/star-noindex')}: noindex (from Robots-Tag: "
            "*;noindex)") in result.log
    if example:
        assert (f"Not following <GET {server.url('/examplebot-nofollow/child')}> of "
                f"{server.url('/examplebot-nofollow')}: nofollow (from Robots-Tag: "
                "ExampleBot;nofollow)") in result.log
    # the draft -02 example, read after dropping its trailing ";"
    assert result.stat("robots_policy/robots_tag_lenient") == 1
    assert (f"Robots-Tag: *;noindex;nosnippet, ExampleBot;: not RFC 9651 (Trailing delimiter "
            f"at position 32), read after dropping a ';' that ends a member, on "
            f"{server.url('/draft-02')}") in result.log
    # the field that does not parse is ignored whole, counted and logged
    assert result.stat("robots_policy/invalid_directives") == 1
    assert f"the whole field ignored on {server.url('/broken')}" in result.log
    assert result.stat("robots_policy/values_cut", 0) == 0
