"""What robots.txt said about one request, and why: the deciding line, or the outage.

The downloader middleware puts it in the reason of its refusals, and hands it to a
check-only request (``scrapy check``'s ``@robotstxt`` contract), so that a disallowed URL
can be checked without being refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from scrapy_robots_policy.fetch.origin import Origin, robots_url
from scrapy_robots_policy.fetch.policy import CachedAnswer

#: Request meta key: decide as usual but never refuse; the verdict goes to VERDICT_META.
CHECK_ONLY_META = "robots_policy_check_only"
#: Request meta key where a check-only request finds its :class:`Verdict`.
VERDICT_META = "robots_policy_verdict"


@dataclass(frozen=True)
class Verdict:
    """What robots.txt said about one request, and why (the deciding line, or the outage)."""

    allowed: bool
    robots_url: str
    user_agent: str
    line: int | None = None
    rule: str | None = None
    unreachable: str | None = None  # why the robots.txt could not be had, if it could not

    @classmethod
    def of(cls, origin: Origin, entry: CachedAnswer, url: str, user_agent: str,
           also_obey: tuple[str, ...] = ()) -> Verdict:
        """The verdict of ``entry`` (the robots.txt of ``origin``) on ``url``.

        ``also_obey`` (``ROBOTS_POLICY_ALSO_OBEY``) names usage tokens such as
        ``Google-Extended`` whose groups are obeyed too: the most restrictive answer wins,
        and a refusal names the token whose line decided.
        """
        decision = entry.rules.decide(url, user_agent)
        if entry.unreachable and not decision.allowed:
            return cls(False, robots_url(origin), user_agent, unreachable=entry.summary)
        if decision.allowed:
            for token in also_obey:
                named = entry.rules.decide_named(url, token)
                if named is not None and not named.allowed:
                    decision, user_agent = named, token
                    break
        return cls(decision.allowed, robots_url(origin), user_agent, decision.line,
                   getattr(decision, "rule", None))

    @property
    def reason(self) -> str:
        """``http://h/robots.txt line 3: Disallow: /x (user agent 'Bot')``, or the outage."""
        if self.unreachable is not None:
            return f"{self.robots_url} unreachable ({self.unreachable})"
        where = f" line {self.line}: {self.rule}" if self.line is not None else (
            ": no rule matched")
        return f"{self.robots_url}{where} (user agent {self.user_agent!r})"
