"""``directives URL [-A NAME]``: a page's robots directives for a crawler, with sources."""

from __future__ import annotations

import argparse
import sys

from scrapy_robots_policy.cli import common, usage
from scrapy_robots_policy.cli.web import Page, fetch
from scrapy_robots_policy.directives import (
    RobotsDirectives,
    header_values_for_others,
    robots_tag_for_others,
)
from scrapy_robots_policy.robotstxt import product_token
from scrapy_robots_policy.usage.policy import USAGE_HEADERS

HELP = "fetch a page and print its robots directives and where each came from"
DESCRIPTION = ("Fetch a page and print the Robots-Tag, X-Robots-Tag and robots meta tag "
               "directives that apply to a crawler, each with the header or tag it came "
               "from.")
#: Bytes of a page read by default (--max-size).
MAX_SIZE = 5_000_000


def configure(directives: argparse.ArgumentParser) -> None:
    directives.add_argument("url", metavar="URL", help="http(s) URL of the page")
    directives.add_argument(
        "-A", "--user-agent", default="*", metavar="NAME",
        help="crawler name or full User-Agent (default: *, only directives for all robots)",
    )
    directives.add_argument(
        "--max-size", type=_byte_count, default=MAX_SIZE, metavar="BYTES",
        help=f"read at most this many bytes of the page (default: {MAX_SIZE}); meta tags "
             "past them are not seen, and the fetched line says 'cut'")
    usage.add_purpose_option(directives)


def run(args: argparse.Namespace) -> int:
    """Print the page-level directives that apply to the user agent, and their sources."""
    if not common.is_url(args.url):
        print(f"error: not an http(s) URL: {args.url}", file=sys.stderr)
        return common.EXIT_USAGE
    if common.bad_urls([args.url]):
        return common.EXIT_USAGE
    page = fetch(args.url, common.agent_header(args.user_agent), args.max_size, follow=True)
    if page.status is None:
        print(f"error: cannot fetch {args.url}: {page.error}", file=sys.stderr)
        return common.EXIT_USAGE
    directives = page_directives(page, args.user_agent)
    via = f" (redirected to {page.url})" if page.url != args.url else ""
    kind = page.headers.get_content_type()
    cut = f", cut at --max-size {args.max_size}" if page.truncated else ""
    print(f"fetched {args.url}{via}: {page.status}, {kind}, {len(page.body)} bytes{cut}")
    for line in describe(directives, args.user_agent):
        print(line)
    for origin in for_others(page, args.user_agent):
        print(f"not for {product_token(args.user_agent) or 'robots'!r}: {origin}")
    if not args.purpose:
        return common.EXIT_ALLOWED
    purposes = usage.policy(args.purpose)
    headers = {name.lower(): page.headers.get_all(name) or [] for name in USAGE_HEADERS}
    reading = purposes.for_page(None, page.url, headers, directives, purposes.purposes)
    print("page-level usage signals (robots.txt and tdmrep.json: see check --purpose):")
    for line in usage.describe(reading):
        print(f"  {line}")
    return common.EXIT_DISALLOWED if reading.refusal is not None else common.EXIT_ALLOWED


def _byte_count(text: str) -> int:
    """A --max-size value: a whole number of bytes, at least 1."""
    try:
        size = int(text)
    except ValueError:
        size = 0
    if size < 1:
        raise argparse.ArgumentTypeError(f"not a whole number of bytes above 0: {text!r}")
    return size


def _is_html(page: Page) -> bool:
    return page.headers.get_content_type() in ("text/html", "application/xhtml+xml")


def page_directives(page: Page, user_agent: str) -> RobotsDirectives:
    """Header directives, plus meta tags when the body is (X)HTML, as the middleware reads."""
    headers = page.headers
    directives = RobotsDirectives.from_robots_tag(
        headers.get_all("Robots-Tag") or [], user_agent).combine(
        RobotsDirectives.from_x_robots_tag(headers.get_all("X-Robots-Tag") or [], user_agent))
    if _is_html(page):
        directives = directives.combine(RobotsDirectives.from_html(page.body, user_agent))
    return directives


def for_others(page: Page, user_agent: str) -> list[str]:
    """Headers and meta tags with directives for other crawlers only: why they do not apply
    is the usual question."""
    found = robots_tag_for_others(page.headers.get_all("Robots-Tag") or [], user_agent)
    found.extend(f"X-Robots-Tag: {value}" for value in header_values_for_others(
        page.headers.get_all("X-Robots-Tag") or [], user_agent))
    if _is_html(page):
        from parsel import Selector
        from w3lib.encoding import html_to_unicode

        try:
            tags = list(Selector(text=html_to_unicode(None, page.body)[1]).xpath(
                "//meta[@name and @content]"))
        except Exception:  # unreadable HTML has no tags to show; from_html said why
            tags = []
        for tag in tags:
            name, content = tag.attrib["name"], tag.attrib["content"]
            # For others: nothing in it for this crawler (compared as the middleware does),
            # yet directives for the crawler it names.
            if (not RobotsDirectives.from_meta([(name, content)], user_agent).sources
                    and RobotsDirectives.from_meta([(name, content)], name).tokens):
                found.append(f'<meta name="{name}" content="{content}">')
    return found


def describe(directives: RobotsDirectives, user_agent: str) -> list[str]:
    """One line per directive with its source, then what they mean for a crawler."""
    name = product_token(user_agent) or "robots"
    if not directives.sources:
        lines = [f"no directive applies to {name!r}"]
    else:
        lines = [f"directives for {name!r}:"]
        lines.extend(f"  {d.text:<28} from {d.origin}" for d in directives.sources)
    lines.extend(f"  ignored: {problem}" for problem in directives.problems)
    lines.extend(f"  read leniently: {note}" for note in directives.lenient)
    lines.extend(f"  error: {error}" for error in directives.errors)
    why = directives.why_not_indexable()
    index = "no" if not directives.indexable() else "yes"
    follow = "no" if directives.nofollow else "yes"
    lines.append(f"indexable: {index}" + (f" ({why.text})" if why and index == "no" else ""))
    lines.append(f"links followed: {follow}")
    effective = sorted(directives.tokens)
    if effective:
        lines.append(f"effective: {', '.join(effective)}")
    else:  # not "none": that is a directive, meaning noindex, nofollow
        nothing = "no directive applies" if not directives.sources else "no restriction"
        lines.append(f"effective: ({nothing}: index, follow)")
    return lines
