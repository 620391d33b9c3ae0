"""Scrapy's download slots, where a request really leaves for the server.

A downloader middleware runs before the download slot's own delay, so a turn granted
there can still be pushed back (or bunched) by the slot. The moment a request leaves is
``Downloader._process_queue``, which asks the slot's public ``download_delay()`` how long
to keep its first queued request after the slot's ``lastseen``. So each slot is given a
subclass of Scrapy's ``Slot`` (:func:`paced_slot_class`) whose ``download_delay()`` is
the larger of Scrapy's own (AutoThrottle's, ``DOWNLOAD_DELAY`` with its jitter) and what
the pacing rule still owes the origin of that first request. Requests wait in the slot's
queue, Scrapy's own place for waiting: they count in ``slot.active``, which Scrapy's
``DownloaderAwarePriorityQueue`` reads to serve the other origins first.

What this module reads or changes of Scrapy beyond its documented API, and why; each is
tested on the oldest and newest supported Scrapy (2.13, 2.19):

- the class of a live ``Slot`` (``__class__`` assignment, no new state: Scrapy's ``Slot``
  has no hook for its delay, and Scrapy creates slots in a private method);
- ``Slot.queue``, ``active``, ``concurrency`` and ``lastseen``: which request leaves next,
  whether the slot may send it, and when the slot last sent one;
- the clock ``_process_queue`` measures ``lastseen`` with (``time.time`` up to 2.13,
  ``time.monotonic`` later), read from Scrapy's module;
- a closing crawl refuses held requests by failing their queue entry's Deferred, which
  Scrapy's ``_enqueue_request`` awaits: otherwise they would wait out their pause.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy.core import downloader as _downloader
from scrapy.core.downloader import Downloader, Slot

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

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


def downloader_of(crawler: Crawler) -> Downloader | None:
    """The crawl's real downloader; ``None`` for a stand-in (a MagicMock crawler in a
    user's unit tests), which has no slot to pace."""
    downloader: Any = getattr(crawler.engine, "downloader", None)
    # type(), not isinstance(): a mock with spec=Downloader passes isinstance().
    if not issubclass(type(downloader), Downloader):
        return None
    return downloader  # type: ignore[no-any-return]
