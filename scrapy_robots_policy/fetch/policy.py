"""What a robots.txt fetch means: rules, how long they hold, and when to try again.

Every decision of SPEC.md section 2 lives here, free of Scrapy and of the wall clock (the
clock is injected), so each rule can be tested with a fake clock and changed in one place:

- :meth:`Policy.read`: one HTTP answer (or network error) -> follow a redirect, or an
  :class:`Answer` (the rules and how long they hold);
- :meth:`Policy.lookup`: a cached :class:`CachedAnswer` -> use it, use it while refreshing it in the
  background, or fetch (and make the requests wait);
- :meth:`Policy.settle`: an :class:`Answer` -> the :class:`CachedAnswer` to cache, or how long to
  wait before retrying while requests wait.
"""

from __future__ import annotations

import enum
import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import urljoin, urlsplit

from scrapy_robots_policy.fetch.document import ROBOTS_TXT, Document
from scrapy_robots_policy.pacing.retry_after import read_retry_after
from scrapy_robots_policy.robotstxt import RobotsTxt

DAY = 86400.0
#: Shortest wait between two fetches of one robots.txt, whatever the backoff setting and
#: Retry-After say: a server answering "503, Retry-After: 0" forever gets at most ten
#: fetches a second, and a 0 backoff setting cannot make a busy loop.
_MIN_RETRY_WAIT = 0.1
#: The summary of the answer given to requests still waiting for a file when the crawl
#: closes (disallow all, as unreachable); refusals count it apart.
CLOSING = "the crawl is closing"


@dataclass(frozen=True)
class PolicySettings:
    """The knobs of :class:`Policy`; defaults are those of the ``ROBOTS_POLICY_*`` settings."""

    ttl: float = DAY  # how long a fetched answer holds without Cache-Control
    min_ttl: float = 60.0  # Cache-Control: max-age is honoured within [min_ttl, max_ttl]
    max_ttl: float = 7 * DAY
    stale_limit: float = 30 * DAY  # how long a good copy may serve while refreshes fail
    patience: float = 20.0  # how long requests wait for an unreachable robots.txt
    backoff: float = 1.0  # first wait before retrying an unreachable robots.txt
    backoff_max: float = 60.0  # longest wait between two retries (Retry-After excepted)
    max_size: int = 512_000  # bytes of robots.txt that are read (SPEC.md section 3)
    max_redirects: int = 5  # redirect hops followed (SPEC.md section 2)


@dataclass(frozen=True)
class Fetched:
    """One answer to one robots.txt request, reduced to what the policy needs.

    ``status`` is ``None`` when no usable HTTP answer came (``error`` then names why:
    a timeout, a DNS failure, a reset, a truncated body).
    """

    status: int | None
    body: bytes = b""
    location: str | None = None
    cache_control: str | None = None
    retry_after: str | None = None
    error: str | None = None
    truncated: bool = False  # the size cap stopped the download (not an error)
    #: Why the crawler itself decided not to fetch (another middleware's IgnoreRequest):
    #: not an outage of the site, so nothing is retried.
    not_fetched: str | None = None


@dataclass(frozen=True)
class Answer:
    """What a robots.txt fetch (redirects followed) says about its origin."""

    rules: RobotsTxt
    #: True for a definitive answer (2xx, 4xx, redirects exhausted), False when the file
    #: was unavailable (5xx, 429, network error): then ``rules`` forbid everything.
    definitive: bool
    summary: str  # for the log: "200, 1234 bytes", "404: allow all", "503"
    status: int | None = None
    ttl: float | None = None  # from Cache-Control, within bounds; None -> default
    retry_after: float | None = None  # seconds, from Retry-After
    #: A 2xx body in which no line is a robots.txt line (an HTML page, binary data): read
    #: as allow all, as Google does, but worth a stat and a word in the log.
    unparsable: bool = False
    #: No request left the crawler (see :attr:`Fetched.not_fetched`): allow all.
    not_fetched: bool = False
    body: bytes | None = None  # the (capped) 2xx body ``rules`` come from


@dataclass(frozen=True)
class CachedAnswer:
    """What is cached for one origin."""

    rules: RobotsTxt
    summary: str
    expires_at: float  # refresh after this moment
    #: When ``rules`` were fetched as a definitive answer; ``None`` when they are the
    #: "unreachable" verdict given after the requests' patience ran out.
    fetched_at: float | None
    failures: int = 0  # consecutive failed fetches since the last definitive answer
    #: The capped body ``rules`` were parsed from (``None`` for allow all / disallow all),
    #: so that other processes can share the entry and parse it themselves. Usually the
    #: very bytes object the parsed rules keep: no extra memory.
    body: bytes | None = None
    #: The HTTP status of the answer ``rules`` come from (a failed refresh keeps the good
    #: copy's), ``None`` when none came (a network error, another middleware's refusal):
    #: a spider's own request for the file is answered with it (and ``body``).
    status: int | None = None

    @property
    def unreachable(self) -> bool:
        return self.fetched_at is None

    @cached_property
    def sha256(self) -> str | None:
        """The hex sha256 of ``body``, for compliance records: hashed once per entry."""
        return None if self.body is None else hashlib.sha256(self.body).hexdigest()


class Lookup(enum.Enum):
    USE = "use"  # fresh: decide with it
    USE_AND_REFRESH = "use and refresh"  # expired but a good copy: decide, refresh meanwhile
    FETCH = "fetch"  # nothing usable: fetch, requests wait for the answer


@dataclass(frozen=True)
class Step:
    """After a fetch: cache ``entry`` (when not ``None``), then retry in ``retry_in`` s."""

    entry: CachedAnswer | None
    retry_in: float | None = None

    @property
    def done(self) -> bool:
        return self.retry_in is None


# ASCII digits only: str.isdigit() and a Unicode \d accept '²' or '٣', which float() rejects
# or reads as a number no server meant.
_MAX_AGE = re.compile(r"(?:^|[,\s])max-age\s*=\s*\"?([0-9]+)", re.IGNORECASE)
_NO_STORE = re.compile(r"(?:^|[,\s])(?:no-store|no-cache)(?:$|[,\s=])", re.IGNORECASE)


class Policy:
    """The fetch outcomes of SPEC.md section 2 and the cache rules, with an injected clock."""

    def __init__(self, settings: PolicySettings | None = None,
                 now: Callable[[], float] | None = None, document: Document = ROBOTS_TXT
                 ) -> None:
        self.settings = settings or PolicySettings()
        self.now: Callable[[], float] = now or time.time
        self.document = document

    # -- one answer -----------------------------------------------------------------------

    def read(self, chain: Sequence[str], fetched: Fetched) -> str | Answer:
        """The next URL to fetch (a redirect to follow), or the answer for the origin.

        ``chain`` holds the URLs fetched so far, the one ``fetched`` answered last.
        """
        status = fetched.status
        if fetched.not_fetched is not None:
            # A local decision (an HTTP cache told to ignore what it lacks, a filter), not
            # an outage: retrying would ask the same middleware again. Cached like a 404.
            return Answer(RobotsTxt.allow_all(), True,
                          f"not fetched ({fetched.not_fetched}): allow all", not_fetched=True)
        if status is None:
            return self._unavailable(fetched.error or "network error", None, fetched)
        if 200 <= status < 300:
            body = fetched.body[: self.settings.max_size]
            cut = ", cut" if fetched.truncated or len(fetched.body) > len(body) else ""
            if not self.document.rules:  # a body for its own reader (CachedAnswer.body)
                return Answer(RobotsTxt.allow_all(), True, f"{status}, {len(body)} bytes{cut}",
                              status, self.ttl(fetched.cache_control), body=body)
            rules = RobotsTxt.parse(body)
            unparsable = _unparsable(rules, body)
            return Answer(rules, True, f"{status}, {len(body)} bytes{cut}"
                          + (", no robots.txt line in it: allow all" if unparsable else ""),
                          status, self.ttl(fetched.cache_control), unparsable=unparsable,
                          body=body)
        if 300 <= status < 400:
            target, why = self._redirect_target(chain, fetched)
            if target is not None:
                if target in chain:
                    why = "redirect loop"
                elif len(chain) > self.settings.max_redirects:
                    why = f"more than {self.settings.max_redirects} redirects"
                else:
                    return target
            # Google stops after 5 hops and treats the file as missing (SPEC.md section 2).
            return Answer(RobotsTxt.allow_all(), True, f"{status}, {why}: allow all", status)
        if 400 <= status < 500 and status != 429:
            # 4xx (401 and 403 included) mean "no robots.txt": everything is allowed, and
            # the body of an error page is never read as rules.
            return Answer(RobotsTxt.allow_all(), True, f"{status}: allow all", status,
                          self.ttl(fetched.cache_control))
        # 5xx, 429 ("come back later") and statuses outside HTTP (a malformed answer).
        return self._unavailable(str(status), status, fetched)

    @staticmethod
    def _redirect_target(chain: Sequence[str], fetched: Fetched) -> tuple[str | None, str]:
        location = (fetched.location or "").strip()
        if not location:
            return None, "redirect without Location"
        try:
            target = urljoin(chain[-1], location)
            parts = urlsplit(target)
            scheme = parts.scheme.lower()
            parts.port  # noqa: B018 (raises on a port that is not a number in 0..65535)
        except ValueError:
            return None, f"unusable redirect to {location[:100]!r}"
        # Only web schemes: a robots.txt must never lead to reading a local file.
        if scheme not in ("http", "https"):
            return None, f"redirect to {scheme or 'nowhere'}:"
        return target, ""

    def _unavailable(self, why: str, status: int | None, fetched: Fetched) -> Answer:
        return Answer(RobotsTxt.disallow_all(), False, why, status,
                      retry_after=self.retry_after(fetched.retry_after))

    # -- cache ----------------------------------------------------------------------------

    def lookup(self, entry: CachedAnswer | None) -> Lookup:
        """Whether a cached entry can answer a request now."""
        if entry is None:
            return Lookup.FETCH
        now = self.now()
        if now < entry.expires_at:
            return Lookup.USE
        if entry.fetched_at is not None and now - entry.fetched_at <= self.settings.stale_limit:
            return Lookup.USE_AND_REFRESH
        return Lookup.FETCH

    def settle(self, previous: CachedAnswer | None, answer: Answer, waiting_since: float,
               attempt: int = 1) -> Step:
        """What to cache after ``answer``, and whether to retry while requests wait.

        ``previous`` is the entry cached before this fetch, ``waiting_since`` when the
        current round of fetching (while requests wait) began, ``attempt`` the number of
        this fetch in the round (1 for the first).
        """
        s = self.settings
        now = self.now()
        if answer.definitive:
            ttl = s.ttl if answer.ttl is None else answer.ttl
            return Step(CachedAnswer(answer.rules, answer.summary, now + ttl, now,
                                     body=answer.body, status=answer.status))

        failures = (previous.failures if previous else 0) + attempt
        # Retry-After may lengthen the wait, never shorten it below the backoff schedule:
        # "Retry-After: 0" (or a past date) means "try again now", which must neither
        # refuse at once nor turn into a fetch per request or a tight loop.
        wait = max(self.backoff(failures, answer.status), _MIN_RETRY_WAIT)
        server_wait = answer.retry_after is not None and answer.retry_after > wait
        if server_wait:
            wait = answer.retry_after  # type: ignore[assignment]
        if (previous is not None and previous.fetched_at is not None
                and now - previous.fetched_at <= s.stale_limit):
            # A failed refresh keeps the last good copy (Google: up to 30 days), and is
            # retried later without holding any request.
            expires = min(now + wait, previous.fetched_at + s.stale_limit)
            return Step(CachedAnswer(previous.rules, previous.summary, expires, previous.fetched_at,
                              failures, previous.body, previous.status))

        deadline = waiting_since + s.patience
        if not server_wait:
            wait = min(wait, deadline - now)  # use the patience to its end, then give up
        if wait > 0 and now + wait <= deadline:
            return Step(None, wait)
        # Patience ran out: refuse requests for a while (honouring Retry-After), then a
        # later request starts a new round.
        hold = max(self.backoff(failures + 1, answer.status), _MIN_RETRY_WAIT,
                   answer.retry_after or 0.0)
        unreachable = CachedAnswer(RobotsTxt.disallow_all(), answer.summary, now + hold, None,
                            failures, status=answer.status)
        return Step(unreachable)

    # -- header values and schedules -------------------------------------------------------

    def ttl(self, cache_control: str | None) -> float | None:
        """Seconds an answer holds per ``Cache-Control`` (within bounds); ``None``: default.

        >>> Policy().ttl("public, max-age=3600")
        3600.0
        """
        if not cache_control:
            return None
        s = self.settings
        match = _MAX_AGE.search(cache_control)
        if match:
            seconds = float(match.group(1)[:12])  # absurdly long numbers are just "long"
        elif _NO_STORE.search(cache_control):
            seconds = 0.0
        else:
            return None
        return min(max(seconds, s.min_ttl), s.max_ttl)

    def retry_after(self, value: str | None) -> float | None:
        """Seconds to wait per a ``Retry-After`` value (delay-seconds or HTTP-date).

        >>> Policy(now=lambda: 0.0).retry_after("Thu, 01 Jan 1970 00:01:00 GMT")
        60.0
        """
        seconds = read_retry_after(value, self.now()).seconds
        return None if seconds is None else min(seconds, self.settings.max_ttl)

    def backoff(self, failures: int, status: int | None = None) -> float:
        """Wait before the next try after ``failures`` consecutive failures: doubling, capped.

        >>> [Policy().backoff(n) for n in (1, 2, 3)]
        [1.0, 2.0, 4.0]
        """
        s = self.settings
        wait = min(s.backoff * 2.0 ** min(max(failures - 1, 0), 60), s.backoff_max)
        # A 503 announces a short, deliberate outage: it is retried more often (Google).
        return wait / 2 if status == 503 else wait


def _unparsable(rules: RobotsTxt, body: bytes) -> bool:
    """Whether a body has content but not one user-agent, rule or sitemap line."""
    if rules.group_count or rules.sitemaps:
        return False
    return any(line.strip() and not line.lstrip().startswith(b"#")
               for line in body.splitlines())
