"""What was decided of one request before its download: decided once, then carried along.

The downloader middleware builds one :class:`RequestDecision` for a request whenever
anything will read it (a refusal, the compliance record, the usage signals,
``ROBOTS_POLICY_ALSO_OBEY``, a ``scrapy check`` sample) and leaves it in
``request.meta[DECISION_META]``, which is the response's meta too. The refusal's log line,
stats and exception, the usage gate, the spider middleware and the compliance record read
robots.txt's :class:`~scrapy_robots_policy.fetch.verdict.Verdict` (which line decided) and
the origin's usage reading from it: none of them asks robots.txt again. An allowed request
that nothing reads costs no object at all: the middleware asks the engine its cheap yes
or no (``RobotsTxt.allowed``), and stops there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_robots_policy.fetch.verdict import Verdict

if TYPE_CHECKING:
    from scrapy_robots_policy.fetch.origin import Origin
    from scrapy_robots_policy.fetch.policy import CachedAnswer
    from scrapy_robots_policy.usage.policy import UsageReading

#: Request (and so response) meta key of the request's :class:`RequestDecision`.
DECISION_META = "robots_policy_decision"


class RequestDecision:
    """robots.txt's verdict on one request, computed at most once, and (purposes declared)
    the usage reading of its origin, once the usage gate has made it."""

    __slots__ = ("_verdict", "also_obey", "check_only", "entry", "origin", "url", "usage",
                 "user_agent")

    def __init__(self, origin: Origin, entry: CachedAnswer, url: str, user_agent: str,
                 also_obey: tuple[str, ...] = (), *, check_only: bool = False) -> None:
        self.origin = origin
        self.entry = entry  # the robots.txt answer that decides (the cached one, shared)
        self.url = url
        self.user_agent = user_agent  # the crawler's, which the rules are read for
        self.also_obey = also_obey
        #: A ``scrapy check`` sample: decided, but let through whatever robots.txt says.
        self.check_only = check_only
        #: The origin's usage reading, set by the usage gate (purposes declared).
        self.usage: UsageReading | None = None
        self._verdict: Verdict | None = None

    @property
    def verdict(self) -> Verdict:
        """What robots.txt says of the request and which line decided, asked on first use."""
        verdict = self._verdict
        if verdict is None:
            verdict = self._verdict = Verdict.of(self.origin, self.entry, self.url,
                                                 self.user_agent, self.also_obey)
        return verdict

    def __repr__(self) -> str:  # never decides: a repr of meta must not cost a decision
        said = self._verdict.reason if self._verdict is not None else "not asked yet"
        return f"<RequestDecision {self.url}: {said}>"
