"""Which user agent the robots rules are read for: one answer for robots.txt, meta tags
and ``scrapy check`` contracts, so the three can never disagree about who is crawling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.http import Request
    from scrapy.settings import BaseSettings


class UserAgentChoice:
    """``ROBOTSTXT_USER_AGENT``, else the User-Agent the request carries, else ``USER_AGENT``.

    The robots.txt middleware sees requests before DefaultHeadersMiddleware and
    UserAgentMiddleware set their headers, so for a request with no User-Agent yet this
    predicts what those will set: ``DEFAULT_REQUEST_HEADERS``, then the spider's
    ``user_agent`` attribute, then ``USER_AGENT``.
    """

    def __init__(self, settings: BaseSettings) -> None:
        self.configured: str | None = settings.get("ROBOTSTXT_USER_AGENT") or None
        self._from_default_headers: str | None = next(
            (_text(value) for name, value in settings.getdict("DEFAULT_REQUEST_HEADERS").items()
             if _text(name).lower() == "user-agent" and value), None)
        self._fallback = self._from_default_headers or str(settings.get("USER_AGENT") or "")

    def use_spider(self, spider: Any) -> None:
        """Take the spider's ``user_agent`` attribute into account, as UserAgentMiddleware does."""
        agent = getattr(spider, "user_agent", None)
        if agent and not self._from_default_headers:
            self._fallback = str(agent)

    def for_request(self, request: Request | None) -> str:
        """The user agent (a full User-Agent string or a product token) for ``request``."""
        if self.configured:
            return self.configured
        headers = request.headers if request is not None else None
        sent = headers.get(b"User-Agent") if headers else None  # most often empty: cheap
        return sent.decode("latin-1") if sent else self._fallback


def _text(value: Any) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)
