"""Every use of Scrapy's non-public state, in one place, each with its reason.

Scrapy has no public API for what these read or change; each is tested on the oldest and
the newest supported Scrapy (2.13 and 2.19: tests/scrapy/test_internals.py, which CI runs
on both), and each falls back to "unknown" where a future Scrapy lacks it, never to a
refusal.

The engine (:func:`engine_closing`, for :mod:`.closing`):

- ``ExecutionEngine._slot`` and the class ``scrapy.core.engine._Slot``, whose ``closing``
  is a Deferred once closing has started: Scrapy sends ``spider_closed`` only after every
  request in progress is done (those waiting for a robots.txt among them), and
  ``engine.running`` stays true meanwhile, so nothing public says "closing has started".

``scrapy check``'s contracts (:func:`contracts_table`, for :mod:`.addon`):

- ``ContractsManager.contracts``, the name -> contract table kept on the class: ``scrapy
  check`` builds its manager from the project settings before any spider is loaded, so an
  add-on enabled in a spider's ``custom_settings`` registers its contracts there.

The download slots, where a request really leaves for the server (for :mod:`.pacing`):

A downloader middleware runs before the download slot's own delay, so a turn granted
there can still be pushed back (or bunched) by the slot. The moment a request leaves is
``Downloader._process_queue``, which asks the slot's public ``download_delay()`` how long
to keep its first queued request after the slot's ``lastseen``. So each slot is given a
subclass of Scrapy's ``Slot`` (:func:`paced_slot_class`) whose ``download_delay()`` is
the larger of Scrapy's own (AutoThrottle's, ``DOWNLOAD_DELAY`` with its jitter) and what
the pacing rule still owes the origin of that first request. Requests wait in the slot's
queue, Scrapy's own place for waiting: they count in ``slot.active``, which Scrapy's
``DownloaderAwarePriorityQueue`` reads to serve the other origins first.

- ``Downloader.slots``, the live slots by key (AutoThrottle reads it too, undocumented);
- the class of a live ``Slot`` (``__class__`` assignment, no new state: Scrapy's ``Slot``
  has no hook for its delay, and Scrapy creates slots in a private method);
- ``Slot.queue``, ``active``, ``concurrency`` and ``lastseen``: which request leaves next,
  whether the slot may send it, and when the slot last sent one;
- the clock ``_process_queue`` measures ``lastseen`` with (``time.time`` up to 2.13,
  ``time.monotonic`` later), read from Scrapy's module;
- a closing crawl refuses held requests by failing their queue entry's Deferred, which
  Scrapy's ``_enqueue_request`` awaits: otherwise they would wait out their pause.

Refusing a request before the scheduler (for :mod:`.early`), as the downloader would:

- ``ExecutionEngine.scraper`` and ``Scraper.enqueue_scrape(failure, request)``, where the
  engine hands a download failure to the spider (:func:`hand_to_errback`): the request's
  errback is called and what it returns is handled exactly as for a refusal at download
  time, by Scrapy itself (items to the pipelines, requests to the scheduler, on the
  Scrapys that do so; Scrapy 2.13.0 drops them there too); the spider stays open until
  that is done;
- ``ExecutionEngine._slot.scheduler.df.request_seen`` (:func:`seen_by_scheduler`): a
  refused request was enqueued before, so its duplicates were filtered by the scheduler,
  never refused twice; the refusal asks the same filter first, which records the
  request as seen exactly as the scheduler's ``enqueue_request`` would have.

A response's HTML, for the spider middleware's reading of meta tags (:data:`SCRAPY_HTML`):

- ``TextResponse._cached_selector``, the selector ``response.selector`` built and keeps
  on the response: when a spider (or another middleware) already parsed the page, its
  tree is read rather than the page parsed again; nothing public says whether it exists
  without building it;
- ``TextResponse._cached_ubody``, the decoded text ``response.text`` keeps: the
  middleware decodes a page it parses for its meta tags and puts it back to "not
  decoded" if it was not, so that a crawl that never reads the text does not keep it (a
  page's size again, up to four times it) for the response's life. (Scrapy's own
  MetaRefreshMiddleware, on by default, decodes every HTML page before: then the text
  is Scrapy's, and stays.)

Stand-ins (a ``MagicMock`` crawler in a user's unit tests, where every attribute is a
truthy mock) are never read: only objects whose type is Scrapy's own are.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy.contracts import ContractsManager
from scrapy.core import downloader as _downloader
from scrapy.core import engine as _engine
from scrapy.core.downloader import Downloader, Slot
from scrapy.core.engine import ExecutionEngine
from scrapy.core.scraper import Scraper
from scrapy.http import TextResponse
from scrapy.selector import Selector
from twisted.internet.defer import Deferred

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request
    from twisted.python.failure import Failure

#: The class of the engine's private slot (Scrapy 2.13 to 2.19).
ENGINE_SLOT: type | None = getattr(_engine, "_Slot", None)
_UNKNOWN = object()


def engine_closing(engine: Any) -> bool:
    """Whether Scrapy's own engine says the crawl is closing (or the spider is not open).

    False for a stand-in engine, and for an engine whose private slot is not the known
    one (a future Scrapy): ``spider_closed`` still ends the waiting there, where
    "closing" would refuse every request.
    """
    # type(), not isinstance(): a mock with spec=ExecutionEngine passes isinstance().
    if not issubclass(type(engine), ExecutionEngine):
        return False
    slot = getattr(engine, "_slot", _UNKNOWN)
    if slot is None:  # the spider is not open (any more)
        return True
    if ENGINE_SLOT is None or type(slot) is not ENGINE_SLOT:
        return False
    return issubclass(type(getattr(slot, "closing", None)), Deferred)


def contracts_table() -> dict[str, Any] | None:
    """``ContractsManager``'s class-level name -> contract table (Scrapy 2.13 to 2.19), or
    ``None`` for a Scrapy that keeps it per instance."""
    table = vars(ContractsManager).get("contracts")
    return table if isinstance(table, dict) else None


#: The clock of ``Slot.lastseen``: what ``Downloader._process_queue`` reads.
SLOT_CLOCK: Callable[[], float] = getattr(_downloader, "monotonic", time.time)

#: ``delay(slot, own)``: the slot's delay, given Scrapy's own (``own``).
DelayRule = Callable[[Slot, float], float]


def paced_slot_class(delay: DelayRule) -> type[Slot]:
    """A ``Slot`` subclass whose delay is ``delay(slot, Scrapy's own delay)``."""

    class PacedSlot(Slot):
        __slots__ = ()  # the layout of Scrapy's Slot, so live slots can take this class

        def download_delay(self) -> float:
            return delay(self, Slot.download_delay(self))

    return PacedSlot


def adopt(slot: Slot, paced: type[Slot]) -> None:
    """Give a live slot of Scrapy's the paced class (once)."""
    if type(slot) is Slot:
        slot.__class__ = paced


def first_queued(slot: Slot) -> Request | None:
    """The request the slot sends next, if any waits."""
    if slot.queue:
        request: Request = slot.queue[0][0]
        return request
    return None


def can_send(slot: Slot) -> bool:
    """Whether the slot's concurrency allows one more request now. Counted from
    ``slot.active`` (queued, leaving and transferring alike): a request just sent is
    only added to ``slot.transferring`` once its download task starts, a loop turn later
    (Scrapy 2.14+), so ``free_transfer_slots()`` would allow a burst."""
    return len(slot.active) - len(slot.queue) < slot.concurrency


def queued(slot: Slot) -> int:
    """How many requests wait in the slot's queue."""
    return len(slot.queue)


def counts_stale(slot: Slot) -> bool:
    """Whether Scrapy's own count still has room that :func:`can_send` does not."""
    return slot.free_transfer_slots() > 0


def since_last_sent(slot: Slot) -> float:
    """Seconds since the slot last sent a request (a large number if never)."""
    return SLOT_CLOCK() - slot.lastseen


def refuse_queued(slot: Slot, exception: Exception) -> list[Request]:
    """Fail every request waiting in the slot's queue with ``exception``; which ones."""
    refused = []
    while slot.queue:
        request, deferred = slot.queue.popleft()
        deferred.errback(exception)
        refused.append(request)
    return refused


def slot_of(downloader: Downloader, request: Request) -> Slot | None:
    """The live slot ``request`` was queued in (its ``download_slot`` meta key, set by
    Scrapy when it queues the request), if any."""
    return downloader.slots.get(request.meta.get(downloader.DOWNLOAD_SLOT, ""))


def downloader_of(crawler: Crawler) -> Downloader | None:
    """The crawl's real downloader; ``None`` for a stand-in (a MagicMock crawler in a
    user's unit tests), which has no slot to pace."""
    downloader: Any = getattr(crawler.engine, "downloader", None)
    # type(), not isinstance(): a mock with spec=Downloader passes isinstance().
    if not issubclass(type(downloader), Downloader):
        return None
    return downloader  # type: ignore[no-any-return]


def scraper_of(crawler: Crawler) -> Scraper | None:
    """The crawl's real scraper, while its spider is open; ``None`` for a stand-in, or when
    no spider is open (nothing could then call an errback)."""
    scraper: Any = getattr(crawler.engine, "scraper", None)
    # type(), not isinstance(): a mock with spec=Scraper passes isinstance().
    if not issubclass(type(scraper), Scraper) or getattr(scraper, "slot", None) is None:
        return None
    return scraper  # type: ignore[no-any-return]


def hand_to_errback(scraper: Scraper, failure: Failure, request: Request) -> Deferred[Any]:
    """Give ``failure`` to ``request``'s errback as Scrapy gives a download failure: through
    the scraper, which also handles what the errback returns."""
    deferred: Deferred[Any] = scraper.enqueue_scrape(failure, request)
    return deferred


def seen_by_scheduler(crawler: Crawler, request: Request) -> bool:
    """Whether the scheduler's duplicate filter has seen ``request`` before, recording it
    as seen (as ``enqueue_request`` does). False when there is no such filter to ask
    (a stand-in engine, a scheduler without ``df``, a future Scrapy)."""
    engine = crawler.engine
    if not issubclass(type(engine), ExecutionEngine):
        return False
    slot = getattr(engine, "_slot", None)
    if ENGINE_SLOT is None or type(slot) is not ENGINE_SLOT:
        return False
    request_seen = getattr(getattr(getattr(slot, "scheduler", None), "df", None),
                           "request_seen", None)
    return bool(request_seen(request)) if callable(request_seen) else False


class ScrapyHtmlAccess:
    """A response's HTML (see the module's docstring): the tree already built if any,
    else the text, without keeping it on the response."""

    def tree(self, response: Any) -> Selector | None:
        if not issubclass(type(response), TextResponse):
            return None
        tree = getattr(response, "_cached_selector", None)
        return tree if isinstance(tree, Selector) else None

    def text(self, response: Any) -> str:
        decoded_before = getattr(response, "_cached_ubody", _UNKNOWN)
        text: str = response.text
        if decoded_before is None:  # decoded for us alone: Scrapy decodes again if asked
            response._cached_ubody = None
        return text


SCRAPY_HTML = ScrapyHtmlAccess()
