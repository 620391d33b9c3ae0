"""Fetching one origin's robots.txt, as a state machine that does no I/O.

It is told what came back (a status with headers and body, or an error, as a
:class:`~.policy.Fetched`) and answers the next step: :class:`Download` this URL,
:class:`Wait` this many seconds, or :class:`Settled` with the entry to cache. What an
answer means and how long to wait are :class:`~.policy.Policy`'s; the clock is the
policy's. The downloader middleware drives it through Scrapy's engine (:mod:`.rounds`),
the command line through urllib, the tests through nothing at all, so there is one
redirect loop and one retry loop in the code base.

>>> machine = RobotsFetch(Policy(), "http://example.com/robots.txt")
>>> machine.start()
Download(url='http://example.com/robots.txt')
>>> machine.received(Fetched(301, location="/moved.txt"))
Download(url='http://example.com/moved.txt')
>>> machine.received(Fetched(404)).entry.summary
'404: allow all'
"""

from __future__ import annotations

from dataclasses import dataclass

from scrapy_robots_policy.fetch.policy import Answer, CachedAnswer, Fetched, Policy


@dataclass(frozen=True)
class Download:
    """Fetch ``url`` (the robots.txt, or the next hop of its redirects), then call
    :meth:`RobotsFetch.received` with what came back."""

    url: str


@dataclass(frozen=True)
class Wait:
    """The robots.txt is unreachable for now: wait ``seconds``, then call
    :meth:`RobotsFetch.start` again. ``answer`` says why (for the log)."""

    seconds: float
    answer: Answer
    chain: tuple[str, ...]


@dataclass(frozen=True)
class Settled:
    """The round is over: cache ``entry``. ``answer`` is the last fetch's outcome and
    ``chain`` the URLs it went through (the robots.txt URL first)."""

    entry: CachedAnswer
    answer: Answer
    chain: tuple[str, ...]

    @property
    def outcome(self) -> str:
        """What happened, for stats and the log: ``unreachable`` (refused from now on),
        ``stale`` (a failed refresh; the last good copy serves), ``not_fetched`` (another
        middleware refused to fetch: allow all), or ``fetched``."""
        if self.entry.unreachable:
            return "unreachable"
        if not self.answer.definitive:
            return "stale"
        return "not_fetched" if self.answer.not_fetched else "fetched"


NextStep = Download | Wait | Settled


class RobotsFetch:
    """One round of fetching an origin's robots.txt: redirects, retries, the outcome.

    ``previous`` is the entry cached for the origin before this round (a stale copy being
    refreshed), ``None`` when there is none: it decides whether a failure waits and
    retries (requests are held) or keeps serving the old copy.
    """

    def __init__(self, policy: Policy, url: str, previous: CachedAnswer | None = None) -> None:
        self.policy = policy
        self.url = url
        self.previous = previous
        self.started = policy.now()
        self.attempt = 0
        self._chain = [url]

    def start(self) -> Download:
        """The first fetch of an attempt (the round's first, or the one after a Wait)."""
        self.attempt += 1
        self._chain = [self.url]
        return Download(self.url)

    def received(self, fetched: Fetched) -> NextStep:
        """What to do after the answer to the last :class:`Download`."""
        result = self.policy.read(self._chain, fetched)
        if isinstance(result, str):
            self._chain.append(result)
            return Download(result)
        chain = tuple(self._chain)
        step = self.policy.settle(self.previous, result, self.started, self.attempt)
        if step.retry_in is not None:
            return Wait(step.retry_in, result, chain)
        assert step.entry is not None  # a step that is done has an entry
        return Settled(step.entry, result, chain)
