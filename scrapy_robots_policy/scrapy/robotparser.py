"""RobotParser: this package's robots.txt engine behind Scrapy's ``ROBOTSTXT_PARSER``.

For crawls that keep Scrapy's own ``RobotsTxtMiddleware`` (no add-on) and only want its
answers to follow Google's rules (RFC 9309)::

    ROBOTSTXT_PARSER = "scrapy_robots_policy.RobotParser"

Scrapy's middleware builds the parser with ``from_crawler(crawler, body)`` (the body as
bytes; ``b""`` once at start-up, to check the backend loads) and asks
``allowed(url, user_agent)``, where the user agent is the request's ``User-Agent`` header
as bytes, or ``ROBOTSTXT_USER_AGENT`` / ``USER_AGENT`` as str. Only the parser changes:
fetching, caching and what a 4xx or 5xx means stay the middleware's (Scrapy's), which the
add-on replaces too (see docs/robots-txt.md, "Only the parser, with Scrapy's middleware").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.robotstxt import RobotParser as ScrapyRobotParser

from scrapy_robots_policy.robotstxt import RobotsTxt

if TYPE_CHECKING:
    # typing.Self requires Python 3.11
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

__all__ = ["RobotParser"]


class RobotParser(ScrapyRobotParser):
    """Scrapy's ``RobotParser`` interface over :class:`~scrapy_robots_policy.RobotsTxt`.

    The body is handed to ``RobotsTxt.parse`` as the octets it arrived as, which reads them
    as Google does (a UTF-8 byte order mark skipped, any bytes accepted, nothing raised,
    past 500 KiB ignored), where Scrapy's own parsers first decode it to text. ``rules``
    is that parsed file, for ``robots_parsed`` handlers that want more than a yes or no
    (``decide``, ``sitemaps``, ``explain``).
    """

    def __init__(self, robotstxt_body: bytes | str, spider: Spider | None = None) -> None:
        self.spider: Spider | None = spider
        self.rules: RobotsTxt = RobotsTxt.parse(robotstxt_body)

    @classmethod
    def from_crawler(cls, crawler: Crawler, robotstxt_body: bytes) -> Self:
        spider = None if not crawler else crawler.spider
        return cls(robotstxt_body, spider)

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        """Whether ``user_agent`` (a product token or a full User-Agent) may fetch ``url``."""
        return self.rules.allowed(_url(url), _agent(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        """The Crawl-delay of the group that applies to ``user_agent``, in seconds, or None
        (Scrapy's interface has it since 2.18; older Scrapy never asks)."""
        return self.rules.crawl_delay(_agent(user_agent))


def _agent(user_agent: str | bytes) -> str:
    """A User-Agent as text: UTF-8, as Scrapy's parsers decode it (``to_unicode``); a
    header that is not UTF-8 is read as Latin-1, as HTTP reads header octets, not refused."""
    if isinstance(user_agent, str):
        return user_agent
    try:
        return user_agent.decode("utf-8")
    except UnicodeDecodeError:
        return user_agent.decode("latin-1")


def _url(url: str | bytes) -> str:
    """A URL as text: UTF-8, as Scrapy's parsers decode it; octets that are not UTF-8 are
    percent-encoded, the octets a robots.txt matcher compares (``%FF`` for 0xFF)."""
    if isinstance(url, str):
        return url
    try:
        return url.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(chr(octet) if octet < 0x80 else f"%{octet:02X}" for octet in url)
