"""Which user agent the robots rules are read for: one answer for robots.txt, meta tags
and ``scrapy check`` contracts, so the three can never disagree about who is crawling.

The crawler's name in that user agent is ``robotstxt.product_token``, the one definition.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy_robots_policy.robotstxt import product_token
from scrapy_robots_policy.scrapy.crawlstate import crawl_state
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

# The logger name it had before the move to scrapy/: users' log filters name it.
logger = logging.getLogger("scrapy_robots_policy.useragent")

#: What ``product_token`` answers for a browser's User-Agent that names no crawler.
BROWSER = "mozilla"


class UserAgentChoice:
    """``ROBOTSTXT_USER_AGENT``, else the User-Agent the request carries, else ``USER_AGENT``.

    The robots.txt middleware sees requests before DefaultHeadersMiddleware and
    UserAgentMiddleware set their headers, so for a request with no User-Agent yet this
    predicts what those will set: ``DEFAULT_REQUEST_HEADERS``, then the spider's
    ``user_agent`` attribute, then ``USER_AGENT``.
    """

    def __init__(self, settings: RobotsPolicySettings) -> None:
        self.configured = settings.robotstxt_user_agent
        self._from_default_headers = settings.default_headers_user_agent
        self._fallback = self._from_default_headers or settings.user_agent
        self._spider: Any = None
        # Until a browser's User-Agent has been reported (once), the last one checked.
        self._unreported = True
        self._checked: str | None = None

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> UserAgentChoice:
        """The crawl's one choice, kept on the crawler (:mod:`.crawlstate`): both
        middlewares and the contracts share it, so a warning is logged once."""
        state = crawl_state(crawler)
        if not isinstance(state.user_agents, cls):
            state.user_agents = cls(RobotsPolicySettings.of(crawler))
        choice: UserAgentChoice = state.user_agents
        return choice

    def use_spider(self, spider: Any) -> None:
        """Take the spider's ``user_agent`` attribute into account, as UserAgentMiddleware does."""
        self._spider = spider
        agent = getattr(spider, "user_agent", None)
        if agent and not self._from_default_headers:
            self._fallback = str(agent)

    def for_request(self, request: Request | None) -> str:
        """The user agent (a full User-Agent string or a product token) for ``request``."""
        if self.configured:
            agent = self.configured
        else:
            headers = request.headers if request is not None else None
            sent = headers.get(b"User-Agent") if headers else None  # most often empty: cheap
            agent = sent.decode("latin-1") if sent else self._fallback
        if self._unreported and agent != self._checked:
            self._check(agent)
        return agent

    def _check(self, agent: str) -> None:
        """Warn when the rules would be read for a browser, not for this crawler."""
        self._checked = agent
        if product_token(agent) != BROWSER:
            return
        self._unreported = False
        logger.warning(
            "The user agent %(agent)r is a browser's and names no crawler (no "
            "'(compatible; NAME/...)' part): robots.txt groups, robots meta tags and "
            "X-Robots-Tag are matched for %(token)r, not for your crawler. Set "
            "ROBOTSTXT_USER_AGENT to your crawler's name.",
            {"agent": agent, "token": BROWSER}, extra={"spider": self._spider})
