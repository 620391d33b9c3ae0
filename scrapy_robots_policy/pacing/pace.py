"""The pacing rule: the earliest moment a request may leave for its origin.

An origin's next request leaves no sooner than

- its *pace* after the previous one: the larger of its Crawl-delay (with
  ``ROBOTS_POLICY_CRAWL_DELAY``, capped) and, when the cluster shares it, ``DOWNLOAD_DELAY``;
- the end of a *pause* the site asked for: a status of ``ROBOTS_POLICY_SITE_BACKOFF_STATUSES``
  pauses the origin for its ``Retry-After``, or, without a usable one, for a back-off that
  starts at :data:`FIRST_BACKOFF` and doubles with each such answer in a row (a 2xx or 3xx
  ends the row), never longer than ``ROBOTS_POLICY_SITE_BACKOFF_MAX``.

Scrapy's own throttles (AutoThrottle, ``DOWNLOAD_DELAY`` and its jitter) may only add to
this. Everything a log line or a stat needs is in the answers, so the glue decides nothing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from scrapy_robots_policy.pacing.retry_after import read_retry_after

#: The first pause of a row of back-off answers without a usable ``Retry-After``, seconds.
FIRST_BACKOFF = 1.0
#: How much sooner than its pace a request may leave without counting as early: what a
#: timer's resolution and float arithmetic may take.
TOLERANCE = 0.001


@dataclass(frozen=True)
class PaceSettings:
    """The settings the rule reads (``RobotsPolicySettings.pace`` builds them)."""

    crawl_delay: bool = False  # ROBOTS_POLICY_CRAWL_DELAY
    max_crawl_delay: float = 60.0  # ROBOTS_POLICY_MAX_CRAWL_DELAY
    download_delay: float = 0.0  # DOWNLOAD_DELAY, when shared by the cluster; else 0
    backoff: bool = True  # ROBOTS_POLICY_SITE_BACKOFF
    backoff_statuses: frozenset[int] = frozenset({429, 503})
    backoff_max: float = 300.0  # ROBOTS_POLICY_SITE_BACKOFF_MAX
    max_pauses: int = 5  # ROBOTS_POLICY_SITE_BACKOFF_MAX_PAUSES: in a row, then given up
    max_pause_time: float = 600.0  # ROBOTS_POLICY_SITE_BACKOFF_MAX_PAUSE_TIME: likewise
    max_origins: int = 10_000  # ROBOTS_POLICY_MAX_ORIGINS: states kept before pruning


class CrawlDelay(NamedTuple):
    """An origin's Crawl-delay as applied."""

    seconds: float  # applied, capped; 0 for none
    declared: float  # as the file says (0 for none or unusable)
    changed: bool  # differs from what the origin had: worth one log line


class Pause(NamedTuple):
    """An origin paused by a "slow down" answer."""

    seconds: float  # from now
    status: int
    retry_after: str | None  # as sent
    asked: float | None  # what Retry-After asked for, in seconds; None: the back-off's
    capped: bool  # cut to ROBOTS_POLICY_SITE_BACKOFF_MAX
    warn_cap: bool  # a capped Retry-After, the first of the origin: worth a WARNING
    problem: str | None  # why a sent Retry-After was not used
    tell_problem: bool  # the first such problem of the origin: worth a log line
    started: bool  # a new pause (False: the origin was paused already)


@dataclass(slots=True)
class _OriginState:
    crawl_delay: float = 0.0
    paused_until: float = -math.inf
    streak: int = 0  # back-off answers in a row
    last_sent: float = -math.inf
    told: set[str] = field(default_factory=set)  # what was reported once per origin


class Pacer:
    """Per-origin pace and pauses, on an injected monotonic clock."""

    def __init__(self, settings: PaceSettings, clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self._clock = clock
        self._wall_clock = wall_clock  # HTTP-dates in Retry-After
        self._states: dict[object, _OriginState] = {}
        self._in_a_row: set[object] = set()  # origins whose last answers asked for pauses

    def crawl_delay(self, origin: object, declared: float | None) -> CrawlDelay:
        """Take ``declared`` (the robots.txt's Crawl-delay for the crawler) as the origin's."""
        s = self.settings
        usable = declared if declared is not None and 0 < declared < math.inf else 0.0
        seconds = min(usable, max(s.max_crawl_delay, 0.0)) if s.crawl_delay else 0.0
        state = self._state(origin)
        changed = seconds != state.crawl_delay
        state.crawl_delay = seconds
        return CrawlDelay(seconds, usable, changed)

    def governs(self, origin: object) -> bool:
        """Whether ``origin`` has a pace or a pause now (most have neither: no more to ask)."""
        if self.settings.download_delay:
            return True
        state = self._states.get(origin)
        return state is not None and (state.crawl_delay > 0
                                      or state.paused_until > self._clock())

    def concerns(self, status: int) -> bool:
        """Whether an answer with ``status`` may change anything (a cheap first look)."""
        return status in self.settings.backoff_statuses or bool(self._in_a_row)

    def pace(self, origin: object) -> float:
        """The least time between two requests to ``origin``."""
        state = self._states.get(origin)
        crawl_delay = state.crawl_delay if state is not None else 0.0
        return max(crawl_delay, self.settings.download_delay)

    def wait(self, origin: object) -> float:
        """Seconds before a request may leave for ``origin``: 0 when it may go now."""
        state = self._states.get(origin)
        if state is None:
            return 0.0
        now = self._clock()
        due = max(state.paused_until,
                  state.last_sent + max(state.crawl_delay, self.settings.download_delay))
        return max(due - now, 0.0)

    def sent(self, origin: object) -> float:
        """A request leaves for ``origin`` now; how much sooner than its pace (0: on pace)."""
        state = self._state(origin)
        now = self._clock()
        early = state.last_sent + self.pace(origin) - now
        early = max(early, state.paused_until - now)
        state.last_sent = now
        return early if early > TOLERANCE else 0.0

    def answered(self, origin: object, status: int, retry_after: str | None) -> Pause | None:
        """An answer of the origin: a :class:`Pause` if it asks to slow down."""
        s = self.settings
        if not s.backoff:
            return None
        if status not in s.backoff_statuses:
            if 200 <= status < 400 and origin in self._in_a_row:
                self._in_a_row.discard(origin)
                self._states[origin].streak = 0
            return None
        state = self._state(origin)
        now = self._clock()
        started = state.paused_until <= now
        if started:
            state.streak += 1
            self._in_a_row.add(origin)
        asked = read_retry_after(retry_after, self._wall_clock())
        problem = asked.problem
        requested = asked.seconds if asked.seconds is not None and asked.seconds > 0 else None
        if requested is None:
            if problem is None and retry_after is not None and retry_after.strip():
                problem = f"names no future time: {retry_after.strip()!r}"
            seconds = FIRST_BACKOFF * 2.0 ** min(max(state.streak - 1, 0), 60)
        else:
            seconds = requested
        capped = seconds > s.backoff_max
        if capped:
            seconds = max(s.backoff_max, 0.0)
        warn_cap = capped and requested is not None and _first(state, "capped")
        tell_problem = problem is not None and _first(state, "problem")
        state.paused_until = max(state.paused_until, now + seconds)
        return Pause(seconds, status, retry_after, requested, capped, warn_cap, problem,
                     tell_problem, started)

    def paused(self, origin: object) -> bool:
        """Whether ``origin`` is in a pause now."""
        state = self._states.get(origin)
        return state is not None and state.paused_until > self._clock()

    def pause(self, origin: object, seconds: float) -> bool:
        """Hold ``origin`` for ``seconds`` from now (a pause another process observed);
        whether that starts or lengthens its pause."""
        state = self._state(origin)
        until = self._clock() + min(max(seconds, 0.0), self.settings.backoff_max)
        if until <= state.paused_until:
            return False
        state.paused_until = until
        return True

    def _state(self, origin: object) -> _OriginState:
        state = self._states.get(origin)
        if state is None:
            if len(self._states) >= self.settings.max_origins:
                self._forget_settled()
            state = self._states[origin] = _OriginState()
        return state

    def _forget_settled(self) -> None:
        """Drop the origins that owe nothing now: their Crawl-delay is set again by their
        next allowed request, before it may leave."""
        now = self._clock()
        download_delay = self.settings.download_delay
        self._states = {
            origin: state for origin, state in self._states.items()
            if state.paused_until > now or origin in self._in_a_row
            or state.last_sent + max(state.crawl_delay, download_delay) > now}


def _first(state: _OriginState, what: str) -> bool:
    """Whether ``what`` is reported for the first time for this origin (and note it)."""
    if what in state.told:
        return False
    state.told.add(what)
    return True
