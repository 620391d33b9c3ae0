"""RobotsPolicyDownloaderMiddleware: a request is downloaded only if its robots.txt allows it.

Thin by design: the origin of a request comes from :mod:`.origin`, what a fetch means and
how long it holds from :mod:`.policy`, where answers live from :mod:`.cache`, what a rule
says from :mod:`.robotstxt`. This module only moves Scrapy objects between them: it
fetches robots.txt through the engine (so proxies, headers and other middlewares apply),
holds requests while their origin's robots.txt is being fetched or retried, and refuses
the disallowed ones with :exc:`~scrapy.exceptions.IgnoreRequest`.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.core import engine as _engine
from scrapy.core.engine import ExecutionEngine
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import CancelledError, Deferred

from scrapy_robots_policy.cache import RobotsCache
from scrapy_robots_policy.cache.choose import make_cache
from scrapy_robots_policy.crawldelay import CrawlDelay
from scrapy_robots_policy.download import RobotsDownload
from scrapy_robots_policy.origin import Origin, origin_of, robots_url
from scrapy_robots_policy.policy import (
    Answer,
    Entry,
    Lookup,
    Policy,
    PolicySettings,
)
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.settings import RobotsPolicySettings
from scrapy_robots_policy.useragent import UserAgentChoice
from scrapy_robots_policy.verdict import CHECK_ONLY_META, VERDICT_META, Verdict

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Why requests still waiting for a robots.txt are refused when the crawl closes.
_CLOSING = "the crawl is closing"
#: How often a retry wait checks whether the engine started closing, in seconds.
_CLOSING_POLL = 0.25
#: The class of the engine's private slot (Scrapy 2.13 to 2.19), read to tell whether a
#: real engine is closing; see RobotsPolicyDownloaderMiddleware._engine_closing.
_ENGINE_SLOT: type | None = getattr(_engine, "_Slot", None)
#: Size of the memo of origins by scheme and netloc (cleared when full).
_ORIGINS_MEMO = 4096
_UNKNOWN = object()
#: Sent with each parsed robots.txt, like Scrapy's middleware does (Scrapy 2.18+ only).
_ROBOTS_PARSED: object | None = getattr(signals, "robots_parsed", None)


@dataclass
class _Round:
    """One origin's fetch in progress (with its retries) and the requests waiting for it."""

    waiters: list[Deferred[Entry]] = field(default_factory=list)
    task: Deferred[None] | None = None  # held: the event loop keeps only weak references


def policy_settings(settings: BaseSettings) -> PolicySettings:
    """The :class:`PolicySettings` that the ``ROBOTS_POLICY_*`` settings describe."""
    d = PolicySettings()
    return PolicySettings(
        ttl=settings.getfloat("ROBOTS_POLICY_CACHE_TTL", d.ttl),
        min_ttl=settings.getfloat("ROBOTS_POLICY_MIN_TTL", d.min_ttl),
        max_ttl=settings.getfloat("ROBOTS_POLICY_MAX_TTL", d.max_ttl),
        stale_limit=settings.getfloat("ROBOTS_POLICY_STALE_LIMIT", d.stale_limit),
        patience=settings.getfloat("ROBOTS_POLICY_RETRY_PATIENCE", d.patience),
        backoff=settings.getfloat("ROBOTS_POLICY_RETRY_BACKOFF", d.backoff),
        backoff_max=settings.getfloat("ROBOTS_POLICY_RETRY_BACKOFF_MAX", d.backoff_max),
        max_size=settings.getint("ROBOTS_POLICY_MAX_SIZE", d.max_size),
        max_redirects=settings.getint("ROBOTS_POLICY_MAX_REDIRECTS", d.max_redirects),
    )


class RobotsPolicyDownloaderMiddleware:
    """Obey robots.txt as Google and RFC 9309 do; a drop-in for Scrapy's RobotsTxtMiddleware.

    Enabled by ``ROBOTSTXT_OBEY``; see the README for the ``ROBOTS_POLICY_*`` settings.
    """

    #: Priority of robots.txt requests, as in Scrapy's own middleware.
    DOWNLOAD_PRIORITY: int = 1000

    def __init__(self, crawler: Crawler) -> None:
        settings = crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self.crawler = crawler
        self._stats: StatsCollector = crawler.stats  # type: ignore[assignment]
        self._policy = Policy(policy_settings(settings))
        self._cache: RobotsCache = make_cache(crawler, RobotsPolicySettings.of(crawler),
                                              self._policy)
        self._crawl_delay = (CrawlDelay(crawler, RobotsPolicySettings.of(crawler))
                             if settings.getbool("ROBOTS_POLICY_CRAWL_DELAY", False) else None)
        self._user_agents = UserAgentChoice.for_crawler(crawler)
        self._download = RobotsDownload(crawler, RobotsPolicySettings.of(crawler),
                                        self.DOWNLOAD_PRIORITY)
        self._rounds: dict[Origin, _Round] = {}
        self._origins: dict[tuple[str, str], Origin | None] = {}
        self._sleeps: set[Deferred[Any]] = set()
        self._closed = False
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    # -- requests ---------------------------------------------------------------------------

    def process_request(self, request: Request, spider: Any = None
                        ) -> Coroutine[Any, Any, None] | None:
        """Pass or refuse ``request``; when its robots.txt is not known yet, wait for it.

        Not a coroutine function on purpose: a request whose answer is cached is decided
        synchronously, without the cost of a coroutine; only waiting returns one.
        """
        if request.meta.get("dont_obey_robotstxt"):
            return None
        origin = self._origin_of(request)
        if origin is None:  # data:, file:, or nothing a robots.txt could govern
            return None
        entry = self._cache.get(origin)
        lookup = self._policy.lookup(entry)
        if lookup is Lookup.FETCH:
            if _is_robots_txt(request):
                return None
            return self._wait_and_judge(origin, request)
        if lookup is Lookup.USE_AND_REFRESH and origin not in self._rounds:
            self._start_round(origin, request)  # the stale copy answers meanwhile
        assert entry is not None
        self._judge(origin, entry, request)
        return None

    def _origin_of(self, request: Request) -> Origin | None:
        # Memoised by scheme and netloc (all an origin depends on), from the parse that
        # Scrapy caches per request: normalising is most of this middleware's cost.
        parsed = urlparse_cached(request)
        key = (parsed.scheme, parsed.netloc)
        origin = self._origins.get(key, _UNKNOWN)  # type: ignore[arg-type]
        if origin is _UNKNOWN:
            origin = origin_of(request.url)
            if len(self._origins) >= _ORIGINS_MEMO:
                self._origins.clear()
            self._origins[key] = origin
        return origin  # type: ignore[return-value]

    async def _wait_and_judge(self, origin: Origin, request: Request) -> None:
        waiter: Deferred[Entry] = Deferred()
        current = self._rounds.get(origin)
        if current is None:
            self._start_round(origin, request, waiter)
        else:
            current.waiters.append(waiter)
        entry = await maybe_deferred_to_future(waiter)
        self._judge(origin, entry, request)

    def _judge(self, origin: Origin, entry: Entry, request: Request) -> None:
        user_agent = self._user_agents.for_request(request)
        if request.meta.get(CHECK_ONLY_META):
            request.meta[VERDICT_META] = Verdict.of(origin, entry, request.url, user_agent)
            return
        if entry.rules.allowed(request.url, user_agent):
            if self._crawl_delay is not None:
                self._crawl_delay.apply(origin, entry.rules, user_agent, request)
            return
        if _is_robots_txt(request):  # checked here only, off the path of allowed requests
            return
        self._stats.inc_value("robotstxt/forbidden")
        if entry.unreachable:
            self._stats.inc_value("robotstxt/forbidden/closing" if entry.summary == _CLOSING
                                  else "robotstxt/forbidden/unreachable")
            logger.debug("Forbidden by robots.txt: %(request)s (robots.txt of %(origin)s "
                         "unreachable: %(why)s)",
                         {"request": request, "origin": origin, "why": entry.summary},
                         extra={"spider": self.crawler.spider})
            raise IgnoreRequest("Forbidden by robots.txt: "
                                + Verdict.of(origin, entry, request.url, user_agent).reason)
        self._stats.inc_value("robotstxt/forbidden/rule")
        decision = entry.rules.decide(request.url, user_agent)
        rule = getattr(decision, "rule", None)
        logger.debug("Forbidden by robots.txt: %(request)s (%(origin)s/robots.txt line "
                     "%(line)s%(rule)s, user agent %(agent)r)",
                     {"request": request, "origin": origin, "line": decision.line,
                      "rule": f": {rule}" if rule else "", "agent": user_agent},
                     extra={"spider": self.crawler.spider})
        raise IgnoreRequest("Forbidden by robots.txt: "
                            + Verdict.of(origin, entry, request.url, user_agent).reason)

    # -- fetching robots.txt ------------------------------------------------------------------

    def _start_round(self, origin: Origin, request: Request,
                     waiter: Deferred[Entry] | None = None) -> None:
        # The waiter is registered first: a round may end before this method returns.
        current = self._rounds[origin] = _Round([waiter] if waiter else [])
        current.task = deferred_from_coro(self._run_round(origin, request))

    async def _run_round(self, origin: Origin, request: Request) -> None:
        """Fetch (and retry) the robots.txt of ``origin`` until the policy settles it."""
        entry: Entry | None = None
        try:
            entry = await self._cache.claim(origin)  # fetched by another process?
            if entry is None:
                entry = await self._settle(origin, request)
        except Exception:
            logger.exception("Error fetching the robots.txt of %(origin)s",
                             {"origin": origin}, extra={"spider": self.crawler.spider})
        finally:
            current = self._rounds.pop(origin, None)
            if entry is None:
                # Not settled (the crawl is closing, or a bug): refuse what is waiting now,
                # and let the next request try again.
                closing = self._engine_closing()
                entry = Entry(RobotsTxt.disallow_all(), _CLOSING if closing else "not fetched",
                              0.0, None)
                if closing and current and current.waiters:
                    logger.info("robots.txt of %(origin)s not settled: %(why)s; refusing "
                                "%(waiting)d waiting requests",
                                {"origin": origin, "why": _CLOSING,
                                 "waiting": len(current.waiters)},
                                extra={"spider": self.crawler.spider})
            else:
                self._cache.put(origin, entry)
            for waiter in current.waiters if current else ():
                waiter.callback(entry)

    async def _settle(self, origin: Origin, request: Request) -> Entry | None:
        previous = self._cache.get(origin)
        started = self._policy.now()
        attempt = 0
        while not self._engine_closing():
            attempt += 1
            answer, chain = await self._fetch(origin)
            step = self._policy.settle(previous, answer, started, attempt)
            waiting = len(self._rounds[origin].waiters) if origin in self._rounds else 0
            if step.done:
                assert step.entry is not None
                self._log_outcome(origin, answer, chain, step.entry, previous, waiting)
                if answer.definitive and _ROBOTS_PARSED is not None:
                    # As Scrapy's middleware does: its handlers may be coroutines.
                    await self.crawler.signals.send_catch_log_async(
                        signal=_ROBOTS_PARSED, robotparser=answer.rules, request=request)
                return step.entry
            self._stats.inc_value("robotstxt/retry_count")
            logger.info("robots.txt of %(origin)s: %(why)s, retrying in %(wait).3g s "
                        "(%(waiting)d requests waiting)",
                        {"origin": origin, "why": answer.summary, "wait": step.retry_in,
                         "waiting": waiting}, extra={"spider": self.crawler.spider})
            await self._sleep(step.retry_in)
        return None

    def _log_outcome(self, origin: Origin, answer: Answer, chain: list[str], entry: Entry,
                     previous: Entry | None, waiting: int) -> None:
        args = {"origin": origin, "why": answer.summary, "waiting": waiting,
                "via": f" (via {' -> '.join(chain[1:])})" if len(chain) > 1 else ""}
        extra = {"spider": self.crawler.spider}
        if entry.unreachable:
            self._stats.inc_value("robotstxt/unreachable_count")
            logger.warning("robots.txt of %(origin)s unreachable: %(why)s%(via)s; refusing "
                           "%(waiting)d waiting requests and those of the next %(hold).3g s",
                           {**args, "hold": entry.expires_at - self._policy.now()},
                           extra=extra)
        elif not answer.definitive:
            self._stats.inc_value("robotstxt/stale_served_count")
            logger.info("robots.txt of %(origin)s: refresh failed (%(why)s%(via)s), keeping "
                        "the copy fetched %(age).0f s ago", {**args, "age": self._policy.now()
                                                             - (entry.fetched_at or 0.0)},
                        extra=extra)
        elif answer.not_fetched:
            self._stats.inc_value("robotstxt/not_fetched")
            logger.warning("robots.txt of %(origin)s: %(why)s%(via)s", args, extra=extra)
        else:
            if answer.unparsable:
                self._stats.inc_value("robotstxt/unparsable_count")
            logger.info("robots.txt of %(origin)s: %(why)s%(via)s", args, extra=extra)

    async def _fetch(self, origin: Origin) -> tuple[Answer, list[str]]:
        """One fetch of the robots.txt of ``origin``, following redirects ourselves.

        Redirects are followed here, not by RedirectMiddleware, to count hops and detect
        loops, and so that ``allowed_domains`` never blocks a robots.txt on another host.
        """
        chain = [robots_url(origin)]
        while True:
            result = self._policy.read(chain, await self._download.fetched(chain[-1]))
            if isinstance(result, Answer):
                return result, chain
            chain.append(result)

    async def _sleep(self, seconds: float) -> None:
        from twisted.internet import reactor
        from twisted.internet.task import deferLater

        # In slices, so that a closing crawl does not wait out the retry schedule.
        end = reactor.seconds() + seconds  # type: ignore[attr-defined]
        while not self._engine_closing():
            left = end - reactor.seconds()  # type: ignore[attr-defined]
            if left <= 0:
                return
            sleep = deferLater(reactor, min(left, _CLOSING_POLL),  # type: ignore[arg-type]
                               lambda: None)
            self._sleeps.add(sleep)
            try:
                await maybe_deferred_to_future(sleep)
            except CancelledError:
                return
            finally:
                self._sleeps.discard(sleep)

    # -- signals ----------------------------------------------------------------------------

    def _engine_closing(self) -> bool:
        """Whether the crawl is closing (CLOSESPIDER_*, Ctrl-C, an idle spider, an error).

        Closing refuses the requests waiting for a robots.txt, so it is decided from
        evidence only: the ``spider_closed`` signal, or Scrapy's own engine saying so.
        Scrapy has no public signal or API for "closing has started" (``close_spider``
        sends ``spider_closed`` only once every request in progress, those waiting here
        among them, is done; ``engine.running`` stays true meanwhile), so the engine's
        private slot is read, and only on a real engine whose slot has the real types:
        never on a stand-in (a ``MagicMock`` crawler in a user's unit tests, where every
        attribute is a truthy mock), which is taken as running.
        """
        if self._closed:
            return True
        engine = self.crawler.engine
        # type(), not isinstance(): a mock with spec=ExecutionEngine passes isinstance().
        if not issubclass(type(engine), ExecutionEngine):
            return False
        # Scrapy 2.13 to 2.19; an engine without it (a future Scrapy) is taken as running:
        # spider_closed still ends the waiting, where "closing" would refuse every request.
        slot = getattr(engine, "_slot", _UNKNOWN)
        if slot is None:  # the spider is not open (any more)
            return True
        if _ENGINE_SLOT is None or type(slot) is not _ENGINE_SLOT:
            return False
        return issubclass(type(getattr(slot, "closing", None)), Deferred)

    def _spider_opened(self, spider: Any) -> None:
        self._user_agents.use_spider(spider)

    def _spider_closed(self, spider: Any) -> None:
        self._closed = True
        self._stats.set_value("robotstxt/cached_origins", len(self._cache))
        self._stats.set_value("robotstxt/cache_evictions", self._cache.evictions)
        for sleep in list(self._sleeps):
            sleep.cancel()


def _is_robots_txt(request: Request) -> bool:
    """RFC 9309 2.2.2: the origin's /robots.txt itself is implicitly allowed (that URI
    exactly: ``/robots.txt?x`` is another resource, which the rules govern)."""
    parsed = urlparse_cached(request)
    return parsed.path == "/robots.txt" and not parsed.query and not parsed.params
