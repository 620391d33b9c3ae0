"""``@usage_allowed PURPOSE ...`` / ``@usage_refused PURPOSE ...``: what the sample page's
usage signals say of each purpose, whatever ``ROBOTS_POLICY_PURPOSES`` declares.

The sample request is marked check-only with the contract's purposes: the middlewares
decide them exactly as in a crawl (the origin's robots.txt lines and tdmrep.json, then
the page's headers and meta tags) but refuse and drop nothing, and leave the decisions
in ``response.meta``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy_robots_policy.fetch.verdict import CHECK_ONLY_META
from scrapy_robots_policy.scrapy.contracts.robots import SpiderContract
from scrapy_robots_policy.usage import PURPOSES
from scrapy_robots_policy.usage.policy import CHECK_PURPOSES_META, USAGE_META, UsageReading

if TYPE_CHECKING:
    from scrapy.http import Response


class _UsageContract(SpiderContract):
    expected: bool

    def adjust_request_args(self, args: dict[str, Any]) -> dict[str, Any]:
        meta = dict(args.get("meta") or {})
        meta[CHECK_ONLY_META] = True
        meta[CHECK_PURPOSES_META] = tuple(self._purposes())
        meta.setdefault("handle_httpstatus_all", True)
        args["meta"] = meta
        return args

    def _purposes(self) -> list[str]:
        return [word for arg in self.args for word in str(arg).replace(",", " ").lower().split()]

    def pre_process(self, response: Response) -> None:
        purposes = self._purposes()
        unknown = [purpose for purpose in purposes if purpose not in PURPOSES]
        if not purposes or unknown:
            raise self._fail(f"name purposes among {', '.join(PURPOSES)}"
                             + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
        reading = response.meta.get(USAGE_META)
        if not isinstance(reading, UsageReading):
            raise self._fail("no usage decision: write @meta before this contract (@meta "
                             "replaces the whole request meta); is "
                             "'scrapy_robots_policy.Addon' in ADDONS?")
        wrong = [decision for purpose in purposes
                 if (decision := reading.decision(purpose)) is not None
                 and decision.allowed != self.expected]
        if wrong:
            raise self._fail(f"on {response.url}: " + "; ".join(d.reason for d in wrong))


class UsageAllowedContract(_UsageContract):
    """``@usage_allowed ai-train``: no signal of the page or its origin refuses it."""

    name = "usage_allowed"
    expected = True


class UsageRefusedContract(_UsageContract):
    """``@usage_refused ai-train``: a signal of the page or its origin refuses it."""

    name = "usage_refused"
    expected = False
