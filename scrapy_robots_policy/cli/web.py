"""The command line's HTTP: urllib GETs, and robots.txt fetched by the middleware's machine.

Fetching a robots.txt is :class:`~scrapy_robots_policy.fetch.machine.RobotsFetch` driven through
urllib, so ``check URL`` sees the same outcomes, redirects and size cap as a crawl. The
command line does not wait for an unreachable robots.txt: it reports it at once.
"""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.message import Message

from scrapy_robots_policy.cli.common import agent_header
from scrapy_robots_policy.fetch.document import ROBOTS_TXT, Document
from scrapy_robots_policy.fetch.machine import NextStep, RobotsFetch, Settled, Wait
from scrapy_robots_policy.fetch.policy import Fetched, Policy, PolicySettings

TIMEOUT = 10.0
#: The fetch policy of the command line: the crawl's defaults, without retries.
POLICY_SETTINGS = PolicySettings(patience=0.0)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Hand 3xx answers back: the fetch machine follows redirects itself (hops, loops)."""

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
        return Page(url, None, Message(), b"", error=_why(error))


def _why(error: Exception) -> str:
    """Why a fetch failed, in words: "Connection refused", not "[Errno 111] Connection
    refused" (the number means nothing to a reader)."""
    reason = getattr(error, "reason", None) or error
    if isinstance(reason, socket.timeout):
        return "timeout"
    if isinstance(reason, OSError) and isinstance(reason.strerror, str) and reason.strerror:
        return reason.strerror
    return str(reason)


def fetch_robots(url: str, user_agent: str, document: Document = ROBOTS_TXT) -> Settled:
    """Fetch a robots.txt (or another per-origin ``document``: tdmrep.json) as the
    middleware does: same outcomes, redirects and size cap."""
    policy = Policy(POLICY_SETTINGS, document=document)
    machine = RobotsFetch(policy, url)
    step: NextStep = machine.start()
    while not isinstance(step, Settled):
        # Without patience an unreachable robots.txt settles at once: never a Wait.
        assert not isinstance(step, Wait)
        page = fetch(step.url, agent_header(user_agent), policy.settings.max_size)
        step = machine.received(Fetched(
            page.status, page.body, location=page.headers.get("Location"),
            cache_control=page.headers.get("Cache-Control"),
            retry_after=page.headers.get("Retry-After"), error=page.error,
            truncated=page.truncated))
    return step
