"""Command line: ``python -m scrapy_robots_policy <command> ...`` or ``scrapy-robots-policy``.

Each command is one ``add_<name>`` function registering an argparse subcommand and its
handler, so commands can be added without touching the others.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import Message
from urllib.parse import urlsplit

from .directives import RobotsDirectives, header_values_for_others
from .origin import origin_of, robots_url
from .policy import Answer, Fetched, Policy
from .robotstxt import Explanation, RobotsTxt, product_token

EXIT_ALLOWED = 0
EXIT_DISALLOWED = 1
EXIT_USAGE = 2


#: Sent when fetching for the command line, unless --user-agent names a crawler.
DEFAULT_AGENT = "scrapy-robots-policy (+https://pypi.org/project/scrapy-robots-policy/)"
TIMEOUT = 10.0


def _read_robots(source: str, max_size: int) -> tuple[bytes, bool]:
    """The robots.txt body from a file path, or from standard input for "-", and whether
    it was cut: at most ``max_size`` bytes are read, as a crawl reads at most that much
    (so ``/dev/zero`` or a huge file cannot exhaust memory)."""
    if source == "-":
        body = sys.stdin.buffer.read(max_size + 1)
    else:
        with open(source, "rb") as handle:
            body = handle.read(max_size + 1)
    return body[:max_size], len(body) > max_size


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be fetched or checked, or ``None`` when it can.

    A path (``/a?b``) or anything without ``://`` is left to the engine, which reads it
    as a path; an absolute URL needs a well-formed host and port. Whitespace is refused
    everywhere: it is never part of a URL, and a pasted URL with a space in it is more
    likely two URLs than one.
    """
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in url):
        return "spaces and control characters must be percent-encoded (%20)"
    if "://" not in url:
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad or out-of-range port
    except ValueError as error:
        return str(error)
    if not parts.hostname:
        return "no host"
    return None


def _bad_urls(urls: Sequence[str]) -> bool:
    """Print one error line per malformed URL; whether there was any."""
    bad = [(url, problem) for url in urls if (problem := url_problem(url)) is not None]
    for url, problem in bad:
        print(f"error: invalid URL {url!r}: {problem}", file=sys.stderr)
    return bool(bad)


def _is_url(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Hand 3xx answers back: the policy follows redirects itself (hops, loops, schemes)."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


@dataclass(frozen=True)
class Page:
    """One HTTP answer as the command line sees it."""

    url: str
    status: int | None
    headers: Message
    body: bytes
    truncated: bool = False
    error: str | None = None


def fetch(url: str, user_agent: str, max_size: int, follow: bool = False) -> Page:
    """GET ``url`` with urllib: any status is an answer, network failures are ``error``.

    At most ``max_size`` bytes of the body are read (``truncated`` says if more came).
    """
    handlers = [] if follow else [_NoRedirect()]
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, headers={"User-Agent": user_agent})
    try:
        try:
            response = opener.open(request, timeout=TIMEOUT)
        except urllib.error.HTTPError as answer:  # 3xx, 4xx, 5xx: still an answer
            response = answer
        with response:
            body = response.read(max_size + 1)
            return Page(response.geturl(), response.status, response.headers,
                        body[:max_size], len(body) > max_size)
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        if isinstance(reason, socket.timeout):
            reason = "timeout"
        return Page(url, None, Message(), b"", error=str(reason))


def _agent_header(user_agent: str) -> str:
    return user_agent if product_token(user_agent) else DEFAULT_AGENT


def fetch_robots(url: str, user_agent: str, policy: Policy) -> tuple[Answer, list[str]]:
    """Fetch a robots.txt as the middleware does: same outcomes, redirects and size cap."""
    chain = [url]
    while True:
        page = fetch(chain[-1], _agent_header(user_agent), policy.settings.max_size)
        fetched = Fetched(page.status, page.body, location=page.headers.get("Location"),
                          cache_control=page.headers.get("Cache-Control"),
                          retry_after=page.headers.get("Retry-After"), error=page.error,
                          truncated=page.truncated)
        result = policy.read(chain, fetched)
        if isinstance(result, Answer):
            return result, chain
        chain.append(result)


def _robots_location(source: str) -> str | None:
    """The robots.txt URL for ``source``: itself, or the origin's when it names a site."""
    if urlsplit(source).path not in ("", "/"):
        return source
    origin = origin_of(source)
    return robots_url(origin) if origin is not None else None


def _load_rules(args: argparse.Namespace) -> RobotsTxt | None:
    """The rules to check against, printing where they came from for a URL."""
    policy = Policy()
    if not _is_url(args.robots):
        try:
            body, cut = _read_robots(args.robots, policy.settings.max_size)
        except OSError as error:
            print(f"error: cannot read {args.robots}: {error.strerror or error}",
                  file=sys.stderr)
            return None
        if cut:
            name = "standard input" if args.robots == "-" else args.robots
            print(f"note: {name} is longer than {policy.settings.max_size} bytes: only "
                  "that much was read, as a crawl reads", file=sys.stderr)
        return RobotsTxt.parse(body)
    location = _robots_location(args.robots)
    if location is None:
        print(f"error: not a URL with a host: {args.robots}", file=sys.stderr)
        return None
    answer, chain = fetch_robots(location, args.user_agent, policy)
    via = f" (via {' -> '.join(chain[1:])})" if len(chain) > 1 else ""
    meaning = "" if answer.definitive else ": unreachable, every URL disallowed"
    print(f"fetched {location}{via}: {answer.summary}{meaning}")
    return answer.rules


def _explain(explanation: Explanation) -> list[str]:
    """The group chosen for the agent and every rule of it that matched, one per line."""
    agent = explanation.agent or "*"
    at = ", ".join(str(line) for line in explanation.group_lines)
    lines = "lines" if len(explanation.group_lines) > 1 else "line"
    if explanation.group == "specific":
        found = [f"group for {agent!r}: user-agent {lines} {at}"]
    elif explanation.group == "*":
        why = f" (no group names {agent!r})" if explanation.agent else ""
        found = [f"group '*'{why}: user-agent {lines} {at}"]
    else:
        found = [f"no group for {agent!r} and no '*' group: every URL allowed"]
    found.extend(f"matched line {rule.line}: {rule}" for rule in explanation.matches)
    if not explanation.matches and explanation.group != "none":
        found.append("no rule matched")
    return found


def run_check(args: argparse.Namespace) -> int:
    """Print the verdict and deciding line per URL; exit 1 if any URL is disallowed."""
    if _bad_urls([args.robots, *args.urls] if _is_url(args.robots) else args.urls):
        return EXIT_USAGE
    rules = _load_rules(args)
    if rules is None:
        return EXIT_USAGE
    if _is_url(args.robots):
        _warn_other_origins(args.robots, args.urls)
    status = EXIT_ALLOWED
    for url in args.urls:
        decision = rules.decide(url, args.user_agent)
        if decision.line is not None:
            reason = f"line {decision.line}: {decision.rule}"
        elif rules is RobotsTxt.disallow_all():
            reason = "robots.txt unreachable"
        else:
            reason = "no rule matched"
        verdict = "allowed" if decision.allowed else "disallowed"
        print(f"{verdict:<10}  {url}  ({reason})")
        if args.explain and rules is not RobotsTxt.disallow_all():
            for line in _explain(rules.explain(url, args.user_agent)):
                print(f"    {line}")
        if not decision.allowed:
            status = EXIT_DISALLOWED
    return status


def _warn_other_origins(robots: str, urls: Sequence[str]) -> None:
    """Warn about absolute URLs that this robots.txt does not govern: a crawler would ask
    their own origin's robots.txt (origins compared as the middleware compares them)."""
    home = origin_of(robots)
    for url in urls:
        origin = origin_of(url) if "://" in url else home
        if origin != home:
            print(f"warning: {url} is on {origin or 'no origin'}, not {home}: a crawler "
                  f"would obey {robots_url(origin) if origin else 'no robots.txt'} for it",
                  file=sys.stderr)


def add_check(commands: argparse._SubParsersAction) -> None:
    check = commands.add_parser(
        "check",
        help="check URLs against a robots.txt",
        description=(
            "Check URLs against a robots.txt, as Google's parser and RFC 9309 read it. "
            "Exit status: 0 if every URL is allowed, 1 if any is disallowed."
        ),
    )
    check.add_argument("robots", metavar="ROBOTS",
                       help="robots.txt URL (or a site URL), file path, or - for stdin")
    check.add_argument("urls", metavar="URL", nargs="+", help="absolute URL or path to check")
    check.add_argument(
        "-A",
        "--user-agent",
        default="*",
        metavar="NAME",
        help="crawler product token or full User-Agent (default: *, i.e. no own group)",
    )
    check.add_argument("--explain", action="store_true",
                       help="also print the group chosen and every rule that matched")
    check.set_defaults(handler=run_check)


def run_directives(args: argparse.Namespace) -> int:
    """Print the page-level directives that apply to the user agent, and their sources."""
    if not _is_url(args.url):
        print(f"error: not an http(s) URL: {args.url}", file=sys.stderr)
        return EXIT_USAGE
    if _bad_urls([args.url]):
        return EXIT_USAGE
    page = fetch(args.url, _agent_header(args.user_agent), args.max_size, follow=True)
    if page.status is None:
        print(f"error: cannot fetch {args.url}: {page.error}", file=sys.stderr)
        return EXIT_USAGE
    directives = page_directives(page, args.user_agent)
    via = f" (redirected to {page.url})" if page.url != args.url else ""
    kind = page.headers.get_content_type()
    print(f"fetched {args.url}{via}: {page.status}, {kind}, {len(page.body)} bytes")
    for line in describe_directives(directives, args.user_agent):
        print(line)
    for origin in for_others(page, args.user_agent):
        print(f"not for {product_token(args.user_agent) or 'robots'!r}: {origin}")
    return EXIT_ALLOWED


def _is_html(page: Page) -> bool:
    return page.headers.get_content_type() in ("text/html", "application/xhtml+xml")


def page_directives(page: Page, user_agent: str) -> RobotsDirectives:
    """Header directives, plus meta tags when the body is (X)HTML, as the middleware reads."""
    directives = RobotsDirectives.from_x_robots_tag(page.headers.get_all("X-Robots-Tag") or [],
                                                    user_agent)
    if _is_html(page):
        directives = directives.combine(RobotsDirectives.from_html(page.body, user_agent))
    return directives


def for_others(page: Page, user_agent: str) -> list[str]:
    """Headers and meta tags with directives for other crawlers only: why they do not apply
    is the usual question."""
    found = [f"X-Robots-Tag: {value}" for value in header_values_for_others(
        page.headers.get_all("X-Robots-Tag") or [], user_agent)]
    if _is_html(page):
        from parsel import Selector
        from w3lib.encoding import html_to_unicode

        try:
            tags = Selector(text=html_to_unicode(None, page.body)[1]).xpath(
                "//meta[@name and @content]")
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


def describe_directives(directives: RobotsDirectives, user_agent: str) -> list[str]:
    """One line per directive with its source, then what they mean for a crawler."""
    name = product_token(user_agent) or "robots"
    if not directives.sources:
        lines = [f"no directive applies to {name!r}"]
    else:
        lines = [f"directives for {name!r}:"]
        lines.extend(f"  {d.text:<28} from {d.origin}" for d in directives.sources)
    lines.extend(f"  ignored: {problem}" for problem in directives.problems)
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


def add_directives(commands: argparse._SubParsersAction) -> None:
    directives = commands.add_parser(
        "directives",
        help="fetch a page and print its robots directives and where each came from",
        description=(
            "Fetch a page and print the X-Robots-Tag and robots meta tag directives that "
            "apply to a crawler, each with the header or tag it came from."
        ),
    )
    directives.add_argument("url", metavar="URL", help="http(s) URL of the page")
    directives.add_argument(
        "-A", "--user-agent", default="*", metavar="NAME",
        help="crawler name or full User-Agent (default: *, only directives for all robots)",
    )
    directives.add_argument("--max-size", type=int, default=5_000_000, metavar="BYTES",
                            help="read at most this many bytes of the page")
    directives.set_defaults(handler=run_directives)


def add_demo(commands: argparse._SubParsersAction) -> None:
    demo = commands.add_parser(
        "demo",
        help="crawl a bundled demo site on 127.0.0.1 and report what robots rules did",
        description=(
            "Start a small demo site on 127.0.0.1 (several origins), crawl it with the "
            "add-on and print what was crawled, refused, dropped and not followed, and why. "
            "Needs no network."
        ),
    )
    demo.add_argument("--serve", action="store_true",
                      help="only serve the demo site (until Ctrl-C), to try the other commands")
    demo.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from .demo import main as demo_main  # imports Scrapy: only when asked for

    return demo_main(serve_only=args.serve)


#: The console script installed by pip; the same as ``python -m scrapy_robots_policy``.
SCRIPT = "scrapy-robots-policy"


def build_parser() -> argparse.ArgumentParser:
    script = bool(sys.argv) and os.path.basename(sys.argv[0]) == SCRIPT
    parser = argparse.ArgumentParser(
        prog=SCRIPT if script else "python -m scrapy_robots_policy",
        description="robots.txt and robots directives, as Scrapy's robots policy sees them.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_check(commands)
    add_directives(commands)
    add_demo(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
