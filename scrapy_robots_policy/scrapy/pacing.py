"""The pacing rule applied to a crawl: requests leave their download slot on their origin's pace.

:class:`~scrapy_robots_policy.pacing.Pacer` decides; this module only feeds it (each
allowed request's Crawl-delay, each answer's status and ``Retry-After``) and asks it, at
the moment a slot would send its next request (:mod:`.internals`), how long that request must
still wait. With ``ROBOTS_POLICY_REDIS_URL`` a request of a paced origin that is otherwise
free to leave also takes its turn from Redis (:class:`~.turns.ClusterTurns`), and a pause
one process observed is shared with the others.

Held requests are counted once each, and refused at once when the crawl closes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.task import LoopingCall

from scrapy_robots_policy.fetch.origin import Origin, Origins
from scrapy_robots_policy.pacing import Pacer, Pause
from scrapy_robots_policy.scrapy.closing import CrawlClosing
from scrapy_robots_policy.scrapy.download import is_document_request
from scrapy_robots_policy.scrapy.internals import (
    adopt,
    can_send,
    counts_stale,
    downloader_of,
    first_queued,
    paced_slot_class,
    queued,
    refuse_queued,
    since_last_sent,
    slot_of,
)
from scrapy_robots_policy.scrapy.names import NameResolutions

if TYPE_CHECKING:
    from scrapy.core.downloader import Slot
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from scrapy_robots_policy.cache import RobotsCache
    from scrapy_robots_policy.robotstxt import RobotsTxt
    from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
    from scrapy_robots_policy.scrapy.turns import ClusterTurns

logger = logging.getLogger(__name__)

#: How often held requests check whether the crawl is closing, in seconds.
CLOSING_POLL = 0.25
#: The delay that lets a slot send its next request now, and only that one before it
#: asks again: a delay already past. Scrapy sends all it can at once for a delay of 0, and
#: a positive delay just under the time since the slot's last send cannot be chosen
#: exactly (Scrapy read that time a moment earlier): it would cost a turn of the event
#: loop per request.
SEND_ONE_NOW = -0.001
#: How soon a full slot asks again while Scrapy has not yet counted a request it sent.
SETTLING = 0.001
#: How often a slot asks again while the host of its next request is being resolved.
RESOLVING_POLL = 0.005


class SlotPacing:
    """Holds each request in its download slot until its origin's pace allows it."""

    def __init__(self, crawler: Crawler, settings: RobotsPolicySettings,
                 turns: ClusterTurns | None = None) -> None:
        self._crawler = crawler
        assert crawler.stats is not None
        self._stats = crawler.stats
        self._pacer = Pacer(settings.pace)
        self._crawl_delay = settings.pace.crawl_delay
        self._turns = turns
        self._names = NameResolutions(crawler)
        self._origins = Origins()
        self._closing = CrawlClosing(crawler)
        self._paced = paced_slot_class(self._slot_delay)
        self._held: dict[Request, str] = {}  # request: why it waits (counted once)
        self._holding: dict[int, Slot] = {}  # the slots holding requests, by id
        self._closing_watch: LoopingCall | None = None
        crawler.signals.connect(self._reached, signal=signals.request_reached_downloader)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)
        if settings.pace.backoff:
            crawler.signals.connect(self._downloaded, signal=signals.response_downloaded)
        if turns is not None:
            turns.on_pause(self._paused_elsewhere)

    def crawl_delay(self, origin: Origin, rules: RobotsTxt, user_agent: str) -> None:
        """Take the Crawl-delay of an allowed request's robots.txt for its origin."""
        if not self._crawl_delay:
            return
        delay = self._pacer.crawl_delay(origin, rules.crawl_delay(user_agent))
        if not delay.changed:
            return
        extra = {"spider": self._crawler.spider}
        if delay.declared > delay.seconds:
            logger.warning("Crawl-delay of %(delay)s s in the robots.txt of %(origin)s "
                           "capped to %(cap)s s (ROBOTS_POLICY_MAX_CRAWL_DELAY)",
                           {"delay": delay.declared, "origin": origin, "cap": delay.seconds},
                           extra=extra)
        if delay.seconds:
            logger.info("Crawl-delay of %(delay)s s applied to the requests to %(origin)s",
                        {"delay": delay.seconds, "origin": origin}, extra=extra)

    def _origin(self, request: Request) -> Origin | None:
        parsed = urlparse_cached(request)
        return self._origins.of(request.url, parsed.scheme, parsed.netloc)

    def _reached(self, request: Request, spider: Any = None) -> None:
        """Each request's slot, as it is queued there, takes the paced delay."""
        downloader = downloader_of(self._crawler)
        if downloader is not None:
            slot = slot_of(downloader, request)
            if slot is not None:
                adopt(slot, self._paced)
                origin = self._origin(request)
                if origin is not None and self._pacer.wait(origin) > 0:
                    self._hold(slot, request, self._why_held(origin))

    def _slot_delay(self, slot: Slot, own: float) -> float:
        """The delay of ``slot`` after its last send: Scrapy's own (``own``), or longer
        while the origin of its next request is owed time (or, shared, waits its turn)."""
        request = first_queued(slot)
        if request is None:
            return own
        if not can_send(slot):
            # Full. While Scrapy has not counted a request sent a moment ago it would send
            # a burst past the slot's concurrency: ask again in a moment. Else it asks
            # again when a download ends.
            return since_last_sent(slot) + SETTLING if counts_stale(slot) else own
        origin = self._origin(request)
        if origin is None or not self._pacer.governs(origin):
            # Nothing owed: Scrapy's own delay. Never 0, which sends all that is queued at
            # once: a request of a paced origin (another port of the host) may be next.
            return own or SEND_ONE_NOW
        since = since_last_sent(slot)
        wait = self._pacer.wait(origin)
        resolved = self._names.ready(request)  # started now, it overlaps the waits
        # Scrapy's own delay is kept before a cluster turn is booked, not after: drawn
        # anew at each look (its jitter), it would hold a booked request past its turn.
        booked = self._turns is not None and self._turns.booked(request)
        if wait > 0 or (own > since and not booked):
            if wait > 0:
                self._hold(slot, request, self._why_held(origin))
            return since + max(wait, own - since)
        if not resolved:
            self._watch(slot)
            return since + RESOLVING_POLL
        if self._turns is not None:
            pace = self._pacer.pace(origin)
            if pace > 0:
                wait = self._turns.wait(origin, request, pace)
                if wait > 0:
                    self._hold(slot, request, "turn")
                    return since + wait
        self._leaving(origin, request)
        return SEND_ONE_NOW

    def _leaving(self, origin: Origin, request: Request) -> None:
        """``request`` leaves now: the pacer notes it, and an early one is counted."""
        self._held.pop(request, None)
        early = self._pacer.sent(origin)
        if early:
            self._stats.inc_value("robotstxt/crawl_delay/late")
            logger.warning("%(request)s left %(early).3f s sooner than the pace of %(origin)s",
                           {"request": request, "early": early, "origin": origin},
                           extra={"spider": self._crawler.spider})

    def _why_held(self, origin: Origin) -> str:
        return "pause" if self._pacer.paused(origin) else "pace"

    def _count_held(self, why: str) -> None:
        """Count a request held (once): for a pause, or for the pace ("pace", "turn")."""
        self._stats.inc_value("robots_policy/backoff/requests_held" if why == "pause"
                              else "robotstxt/crawl_delay/held")

    def _hold(self, slot: Slot, request: Request, why: str) -> None:
        if request not in self._held:
            self._count_held(why)
        self._held[request] = why
        self._watch(slot)

    def _watch(self, slot: Slot) -> None:
        """Refuse what ``slot`` holds if the crawl closes meanwhile."""
        self._holding[id(slot)] = slot
        if self._closing_watch is None:
            self._closing_watch = LoopingCall(self._check_closing)
            self._closing_watch.start(CLOSING_POLL, now=False)

    def _downloaded(self, response: Response, request: Request, spider: Any = None) -> None:
        """An answer of the site: a 429 or 503 (by default) pauses its origin. Runs before
        any downloader middleware sees the response, so before a retry is scheduled."""
        if not self._pacer.concerns(response.status):
            return
        origin = self._origin(request)
        if origin is None or is_document_request(request):  # robots.txt retries itself
            return
        retry_after = response.headers.get(b"Retry-After")
        pause = self._pacer.answered(origin, response.status, None if retry_after is None
                                     else retry_after.decode("latin-1"))
        if pause is not None:
            self._report(origin, pause)
            if self._turns is not None:
                self._turns.share_pause(origin, pause.seconds)

    def _report(self, origin: Origin, pause: Pause) -> None:
        extra = {"spider": self._crawler.spider}
        if pause.problem is not None:
            self._stats.inc_value("robots_policy/backoff/unusable_retry_after")
        if pause.tell_problem:
            logger.info("Retry-After from %(origin)s not used (%(problem)s): backing off "
                        "instead", {"origin": origin, "problem": pause.problem}, extra=extra)
        if pause.capped:
            self._stats.inc_value("robots_policy/backoff/capped")
        if pause.warn_cap:
            logger.warning("Retry-After of %(asked).0f s from %(origin)s capped to %(cap)s s "
                           "(ROBOTS_POLICY_SITE_BACKOFF_MAX)", {
                               "asked": pause.asked, "origin": origin, "cap": pause.seconds},
                           extra=extra)
        if not pause.started:
            return
        self._stats.inc_value("robots_policy/backoff/pauses")
        self._stats.inc_value(f"robots_policy/backoff/pauses/{pause.status}")
        logger.info("%(origin)s answered %(status)s%(retry_after)s: no request to it for "
                    "%(seconds).3g s", {
                        "origin": origin, "status": pause.status, "seconds": pause.seconds,
                        "retry_after": "" if pause.retry_after is None
                        else f" (Retry-After: {pause.retry_after})"}, extra=extra)

    def _paused_elsewhere(self, origin: Origin, seconds: float) -> None:
        """Another process paused ``origin``: it is paused here too."""
        if self._pacer.pause(origin, seconds):
            self._stats.inc_value("robots_policy/backoff/shared_pauses")

    def _check_closing(self) -> None:
        """While requests are held: refuse them at once if the crawl is closing."""
        if self._closing.started():
            self._refuse_held()
        else:
            self._holding = {key: slot for key, slot in self._holding.items()
                             if queued(slot)}
        if not self._holding:
            self._stop_watch()

    def _refuse_held(self) -> None:
        refused: dict[str, int] = {}
        for slot in self._holding.values():
            for request in refuse_queued(slot, IgnoreRequest(
                    "the crawl closed while the request waited for its origin's pace")):
                why = self._held.pop(request, None)
                if why is None:  # queued behind a held request: held too
                    origin = self._origin(request)
                    why = self._why_held(origin) if origin is not None else "pace"
                    self._count_held(why)
                self._stats.inc_value("robots_policy/backoff/closing" if why == "pause"
                                      else "robotstxt/crawl_delay/closing")
                refused[why] = refused.get(why, 0) + 1
        self._holding.clear()
        if self._turns is not None:
            self._turns.forget()
        if refused:
            logger.info("The crawl is closing: refused %(count)d requests held for their "
                        "origin's pace (%(why)s)", {
                            "count": sum(refused.values()),
                            "why": ", ".join(f"{n} {why}" for why, n in refused.items())},
                        extra={"spider": self._crawler.spider})

    def _stop_watch(self) -> None:
        if self._closing_watch is not None:
            if self._closing_watch.running:
                self._closing_watch.stop()
            self._closing_watch = None

    def _spider_closed(self, spider: Any = None) -> None:
        self._stop_watch()



def make_pacing(crawler: Crawler, settings: RobotsPolicySettings, cache: RobotsCache,
                ) -> SlotPacing:
    """Pacing for one process, or for the cluster when the cache is shared through Redis."""
    from scrapy_robots_policy.cache.memory import MemoryCache

    turns = None
    # Only a cache shared through Redis means the optional redis package is installed.
    if type(cache) is not MemoryCache:
        from scrapy_robots_policy.scrapy.redis_cache import RedisCache
        from scrapy_robots_policy.scrapy.turns import ClusterTurns

        assert isinstance(cache, RedisCache)  # the only other backend of make_cache
        turns = ClusterTurns(crawler, cache)
    return SlotPacing(crawler, settings, turns)

