"""The demo site of ``python -m scrapy_robots_policy demo``: several origins on 127.0.0.1.

Each origin shows one family of rules, so the demo report can show each decision with
its reason: ``shop`` has a group for DemoBot and a stricter one for everyone else,
``news`` has pages marked noindex / nofollow in every form (meta tags, X-Robots-Tag, a
crawler-name prefix, an expired ``unavailable_after``, and directives for another
crawler, which must change nothing), ``blog`` has no robots.txt at all (404: everything
allowed), ``flaky`` answers 503 for its robots.txt (unreachable: nothing allowed) and
``press`` says what its content may be used for (Content-Signal and Content-Usage lines,
a tdmrep.json, a ``tdm-reservation`` header), which the demo crawl's declared purposes
(search, tdm) meet.
Pure standard library; each origin is its own server on an ephemeral port.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The demo crawler's User-Agent; its product token "DemoBot" is what rules address.
USER_AGENT = "DemoBot/1.0 (+https://example.invalid/bot)"


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: str = ""
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class Origin:
    """One demo origin: a name for the report, what it shows, and its pages by path."""

    name: str
    about: str
    pages: dict[str, Reply] = field(default_factory=dict)
    url: str = ""  # http://127.0.0.1:PORT, once served


def html(title: str, links: Any = (), head: str = "", text: str = "") -> str:
    """A small page: a title, optional head markup, and links (str or (href, label))."""
    items = []
    for link in links:
        href, label = link if isinstance(link, tuple) else (link, link)
        items.append(f'<li><a href="{escape(href)}">{escape(label)}</a></li>')
    return (f"<!DOCTYPE html><html><head><title>{escape(title)}</title>{head}</head>"
            f"<body><h1>{escape(title)}</h1><p>{escape(text)}</p><ul>{''.join(items)}</ul>"
            "</body></html>")


def page(title: str, links: Any = (), head: str = "", *headers: tuple[str, str],
         text: str = "") -> Reply:
    return Reply(200, html(title, links, head, text),
                 (("Content-Type", "text/html; charset=utf-8"), *headers))


SHOP_ROBOTS = """\
# The demo shop: only DemoBot may crawl, and not the cart or the accounts.
User-agent: *
Disallow: /

User-agent: DemoBot
Disallow: /cart
Disallow: /account/
Allow: /account/help$
"""

SHOP_HOME_LINKS = ("/products/tea", "/products/coffee", "/cart", "/account/orders",
                   "/account/help")

NEWS_ROBOTS = """\
User-agent: *
Disallow: /drafts/
"""

PRESS_ROBOTS = """\
# The demo press: Cloudflare's Content Signals for all, an aipref line for members' pages.
User-agent: *
Content-Signal: search=yes, ai-input=no, ai-train=no
Content-Usage: /members/ search=n
Allow: /
"""
PRESS_TDMREP = (
    '[{"location": "/research/*", "tdm-reservation": 1,'
    ' "tdm-policy": "https://press.example/tdm-policy.json"}]')


def build_site() -> list[Origin]:
    """The demo origins, their pages linking each other (absolute links are added later)."""
    shop = Origin("shop", "robots.txt with a group for DemoBot and one for everyone else", {
        "/robots.txt": Reply(200, SHOP_ROBOTS, (("Content-Type", "text/plain"),)),
        "/": page("Shop", SHOP_HOME_LINKS),
        "/products/tea": page("Tea", ["/cart?add=tea", "/products/coffee"]),
        "/products/coffee": page("Coffee", ["/cart?add=coffee", "/products/tea"]),
        "/account/help": page("Help", ["/"]),
    })
    news = Origin("news", "noindex / nofollow pages in every form", {
        "/robots.txt": Reply(200, NEWS_ROBOTS, (("Content-Type", "text/plain"),)),
        "/": page("News", ["/plain", "/meta-noindex", "/header-nofollow", "/for-demobot",
                           "/none-for-demobot", "/expired", "/other-crawlers",
                           "/drafts/tomorrow"]),
        "/plain": page("A plain article", ["/"]),
        "/meta-noindex": page("Not for the index", ["/linked-from-noindex"],
                              '<meta name="robots" content="noindex">'),
        "/linked-from-noindex": page("Linked from a noindex page", ["/"],
                                     text="noindex pages are still followed"),
        "/header-nofollow": page("Links not to follow", ["/linked-from-nofollow"], "",
                                 ("X-Robots-Tag", "nofollow")),
        "/linked-from-nofollow": page("Only linked from a nofollow page"),
        "/for-demobot": page("Not for DemoBot's index", [], "",
                             ("X-Robots-Tag", "demobot: noindex")),
        "/none-for-demobot": page("Nothing for DemoBot", ["/linked-from-none"],
                                  '<meta name="DemoBot" content="none">'),
        "/linked-from-none": page("Only linked from a 'none' page"),
        "/expired": page("Expired offer", [], "",
                         ("X-Robots-Tag", "unavailable_after: 2020-01-01T00:00:00Z")),
        "/other-crawlers": page(
            "Rules for other crawlers", ["/linked-from-other-crawlers"],
            '<meta name="googlebot" content="noindex, nofollow">',
            ("X-Robots-Tag", "otherbot: noindex, nofollow")),
        "/linked-from-other-crawlers": page("Followed: those rules were not for DemoBot"),
    })
    blog = Origin("blog", "no robots.txt (404): everything allowed", {
        "/robots.txt": Reply(404, "not found", (("Content-Type", "text/plain"),)),
        "/": page("Blog", ["/post/1"]),
        "/post/1": page("First post", ["/"]),
    })
    flaky = Origin("flaky", "robots.txt answers 503: nothing may be crawled", {
        "/robots.txt": Reply(503, "down for maintenance", (("Content-Type", "text/plain"),)),
        "/": page("Flaky", ["/deals"]),
        "/deals": page("Deals"),
    })
    press = Origin("press", "usage signals: Content-Signal, Content-Usage and TDMRep", {
        "/robots.txt": Reply(200, PRESS_ROBOTS, (("Content-Type", "text/plain"),)),
        "/.well-known/tdmrep.json": Reply(200, PRESS_TDMREP,
                                          (("Content-Type", "application/json"),)),
        "/": page("Press", ["/story", "/members/feed", "/research/paper", "/reports/2026"]),
        "/story": page("A story for search engines"),
        "/members/feed": page("Members only"),
        "/research/paper": page("A paper reserved from text and data mining"),
        "/reports/2026": page("The 2026 report", [], "", ("tdm-reservation", "1"),
                              ("tdm-policy", "https://press.example/tdm-policy.json")),
    })
    return [shop, news, blog, flaky, press]


class DemoSite:
    """Serve the demo origins on 127.0.0.1, one server thread each, as a context manager."""

    def __init__(self, origins: list[Origin] | None = None) -> None:
        self.origins = origins or build_site()
        self._servers: list[ThreadingHTTPServer] = []

    def __enter__(self) -> DemoSite:
        for origin in self.origins:
            server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(origin.pages.get))
            server.daemon_threads = True
            origin.url = f"http://127.0.0.1:{server.server_address[1]}"
            self._servers.append(server)
            threading.Thread(target=server.serve_forever, daemon=True).start()
        self._link_origins()
        return self

    def __exit__(self, *exc: object) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()

    def origin(self, name: str) -> Origin:
        return next(origin for origin in self.origins if origin.name == name)

    def _link_origins(self) -> None:
        """Shop's home links the other homes, so one start URL would reach every origin."""
        shop = self.origin("shop")
        others = [(o.url + "/", f"{o.name} ({o.about})") for o in self.origins if o is not shop]
        shop.pages["/"] = page("Shop", [*SHOP_HOME_LINKS, *others])


def _handler(lookup: Callable[[str], Reply | None]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: Any) -> None:  # the report says what happened
            pass

        def do_GET(self) -> None:
            reply = lookup(self.path) or lookup(self.path.split("?")[0]) or Reply(
                404, html("Not found"), (("Content-Type", "text/html"),))
            body = reply.body.encode()
            self.send_response(reply.status)
            for name, value in reply.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_HEAD = do_GET

    return Handler
