"""What every command shares: exit statuses, which URLs it accepts, the User-Agent it sends."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from urllib.parse import urlsplit

from scrapy_robots_policy.robotstxt import product_token

EXIT_ALLOWED = 0
EXIT_DISALLOWED = 1
EXIT_USAGE = 2

#: Sent when fetching for the command line, unless --user-agent names a crawler.
DEFAULT_AGENT = "scrapy-robots-policy (+https://pypi.org/project/scrapy-robots-policy/)"


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


def bad_urls(urls: Sequence[str]) -> bool:
    """Print one error line per malformed URL; whether there was any."""
    bad = [(url, problem) for url in urls if (problem := url_problem(url)) is not None]
    for url, problem in bad:
        print(f"error: invalid URL {url!r}: {problem}", file=sys.stderr)
    return bool(bad)


def is_url(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


def agent_header(user_agent: str) -> str:
    """The User-Agent to send: the crawler's own, or ours when ``-A`` names no crawler."""
    return user_agent if product_token(user_agent) else DEFAULT_AGENT
