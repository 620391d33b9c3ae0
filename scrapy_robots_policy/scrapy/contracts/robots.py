"""``scrapy check`` contracts: ``@robotstxt allowed|disallowed`` and ``@meta_robots TOKEN ...``.

They let a spider's docstrings state what robots rules say about its sample pages, so a
site that starts forbidding a section, or marks its pages ``noindex``, turns
``scrapy check`` red before a crawl silently loses the pages or their items.

A contract that does not hold raises :exc:`~scrapy.exceptions.ContractFail`, which
``scrapy check`` reports as a FAIL with our message (which robots.txt line, which
directive from which header or meta tag); everything else it would report as an ERROR
with a traceback, which tells the user nothing about robots rules. So even a misspelt
contract argument is a FAIL saying what was expected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy.contracts import Contract
from scrapy.exceptions import ContractFail

from scrapy_robots_policy.directives import (
    RobotsDirectives,
    header_values_for_others,
    robots_tag_for_others,
)
from scrapy_robots_policy.directives.expectations import KNOWN, describe, parse_tokens, unmet
from scrapy_robots_policy.fetch.verdict import CHECK_ONLY_META, VERDICT_META
from scrapy_robots_policy.robotstxt import product_token
from scrapy_robots_policy.scrapy.internals import SCRAPY_HTML
from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from scrapy_robots_policy.scrapy.spider import META_KEY
from scrapy_robots_policy.scrapy.useragent import UserAgentChoice

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response


class SpiderContract(Contract):
    """Keeps the spider, whose crawler settings say which user agent the rules are for."""

    def __init__(self, method: Callable[..., Any], *args: Any) -> None:
        super().__init__(method, *args)
        self._spider = getattr(method, "__self__", None)

    def _settings(self) -> RobotsPolicySettings | None:
        crawler: Crawler | None = getattr(self._spider, "crawler", None)
        return RobotsPolicySettings.of(crawler) if crawler is not None else None

    def _user_agent(self, response: Response) -> str:
        """The user agent the middlewares match rules for (see UserAgentChoice)."""
        crawler = getattr(self._spider, "crawler", None)
        if crawler is None:
            return ""
        choice = UserAgentChoice.for_crawler(crawler)  # the middlewares' own
        choice.use_spider(self._spider)
        return choice.for_request(getattr(response, "request", None))

    def _fail(self, message: str) -> ContractFail:
        contract = " ".join([f"@{self.name}", *(str(arg) for arg in self.args)])
        return ContractFail(f"{contract}: {message}")


class RobotsTxtContract(SpiderContract):
    """``@robotstxt allowed`` / ``@robotstxt disallowed``: what the URL's robots.txt says.

    The sample request is marked check-only: RobotsPolicyDownloaderMiddleware decides it
    exactly as in a crawl (same robots.txt fetch, same user agent) but lets it through
    with its verdict in ``meta``, so that ``disallowed`` can be checked at all. All HTTP
    statuses reach the callback (``handle_httpstatus_all``): the verdict does not depend
    on whether the page itself exists. Put ``@meta`` before ``@robotstxt``, since
    ``@meta`` replaces the whole meta dict.
    """

    name = "robotstxt"

    def adjust_request_args(self, args: dict[str, Any]) -> dict[str, Any]:
        meta = dict(args.get("meta") or {})
        meta[CHECK_ONLY_META] = True
        meta.setdefault("handle_httpstatus_all", True)
        args["meta"] = meta
        return args

    def pre_process(self, response: Response) -> None:
        words = [str(arg).lower() for arg in self.args if arg]
        if len(words) != 1 or words[0] not in ("allowed", "disallowed"):
            raise self._fail("expected one argument, 'allowed' or 'disallowed'")
        verdict = response.meta.get(VERDICT_META)
        if verdict is None:
            raise self._fail(self._no_verdict(response))
        expected = words[0] == "allowed"
        if verdict.allowed != expected:
            state = "allowed" if verdict.allowed else "disallowed"
            raise self._fail(f"{response.url} is {state} by {verdict.reason}")

    def _no_verdict(self, response: Response) -> str:
        """Why the middleware left no verdict: say what to change."""
        meta = response.meta
        if not meta.get(CHECK_ONLY_META):
            return ("the request lost its check-only meta key: write @meta before "
                    "@robotstxt (@meta replaces the whole request meta)")
        if meta.get("dont_obey_robotstxt"):
            return "the request sets dont_obey_robotstxt: no robots.txt decision"
        settings = self._settings()
        if settings is not None and not settings.obey_robotstxt:
            return "ROBOTSTXT_OBEY is off: no robots.txt decision"
        return ("RobotsPolicyDownloaderMiddleware gave no decision: is "
                "'scrapy_robots_policy.Addon' in ADDONS (or the middleware in "
                "DOWNLOADER_MIDDLEWARES), and is the URL an http(s) URL?")


class MetaRobotsContract(SpiderContract):
    """``@meta_robots TOKEN ...``: the page's effective directives include every TOKEN.

    Directives are those that apply to the spider's user agent (``robots`` and its own
    name, from ``Robots-Tag`` and ``X-Robots-Tag`` headers and meta tags), as
    RobotsPolicySpiderMiddleware
    sees them. ``index`` asserts the page is indexable (no noindex, not past
    ``unavailable_after``), ``follow`` the absence of nofollow, ``all`` the absence of any
    restriction; ``none`` means noindex and nofollow; ``max-snippet:20`` and the like
    assert the effective value. Tokens unknown to this package (``noai``) are looked up
    among the page's other directives, so a typo fails saying it is not a known directive.
    """

    name = "meta_robots"

    def pre_process(self, response: Response) -> None:
        tokens = parse_tokens(self.args)
        if not tokens:
            raise self._fail(f"name at least one directive: {', '.join(KNOWN)}")
        user_agent = self._user_agent(response)
        directives = response.meta.get(META_KEY)
        if not isinstance(directives, RobotsDirectives):
            directives = RobotsDirectives.from_response(response, user_agent, SCRAPY_HTML)
        missing = [why for token in tokens if (why := unmet(token, directives)) is not None]
        if missing:
            raise self._fail(
                f"{'; '.join(missing)}. Found for {product_token(user_agent) or 'robots'!r} "
                f"on {response.url}: {describe(directives)}{_ignored(response, user_agent)}")


def _ignored(response: Response, user_agent: str) -> str:
    """Robots-Tag members and X-Robots-Tag values that apply to other crawlers only: the
    usual surprise."""
    try:
        headers = response.headers
        values = [v.decode("latin-1") for v in headers.getlist(b"X-Robots-Tag")]
        others = robots_tag_for_others(headers.getlist(b"Robots-Tag"), user_agent)
    except Exception:  # a contract's message must not fail on odd headers
        return ""
    others.extend(f"X-Robots-Tag: {v}" for v in header_values_for_others(values, user_agent))
    if not others:
        return ""
    return "; not for this user agent: " + ", ".join(others)
