"""Which declared purposes a request's origin and a page's own signals refuse.

Pure (no Scrapy): :class:`UsagePolicy` reads the usage signals of each source through
:mod:`scrapy_robots_policy.usage` and decides per purpose with :func:`.decide`. The origin's reading
(robots.txt lines, tdmrep.json) is made before a request is sent and can refuse it; the
page's (Content-Usage and TDMRep headers, TDMRep meta tags, noai) is added to it once
the response is in, and can drop its items. It is given plain values (a page's usage
headers as a dict of lists of text, never a response). Adapters: ``scrapy/usagegate.py``
(downloader), ``scrapy/spider.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from scrapy_robots_policy.usage import (
    Reading,
    Signal,
    TdmRep,
    UsageDecision,
    decide,
    header_signals,
    noai_signals,
    refused,
    robots_signals,
    tdm_meta,
    tdm_signals,
)
from scrapy_robots_policy.usage.purposes import TDMREP_JSON
from scrapy_robots_policy.usage.reading import NOTHING, IgnoredLabel
from scrapy_robots_policy.usage.tdmrep import RESERVED_PURPOSES

if TYPE_CHECKING:
    from scrapy_robots_policy.directives import RobotsDirectives
    from scrapy_robots_policy.fetch.policy import CachedAnswer

#: Response meta key of the page's :class:`UsageReading`, for spider code and contracts.
USAGE_META = "robots_policy_usage"
#: Request meta key: purposes to decide on for this request only (``@usage_*`` contracts),
#: never refusing; the decisions are left in ``USAGE_META``.
CHECK_PURPOSES_META = "robots_policy_check_purposes"


#: Response headers that carry usage signals (the keys of ``for_page``'s ``headers``, in
#: lower case).
USAGE_HEADERS = ("Content-Usage", "TDM-Reservation", "TDM-Policy", "Content-Type")


class UsageSettings(Protocol):
    """What :class:`UsagePolicy` reads of the crawl's settings (``RobotsPolicySettings``
    of the Scrapy adapter has both)."""

    @property
    def purposes(self) -> tuple[str, ...]: ...

    @property
    def enforce_usage(self) -> bool: ...


@dataclass(frozen=True)
class UsageReading:
    """The signals that apply, and the decision per purpose they give."""

    purposes: tuple[str, ...]
    signals: tuple[Signal, ...]
    decisions: tuple[UsageDecision, ...]
    problems: tuple[str, ...] = ()
    #: The origin's tdmrep.json, which TDMRep weighs with the page's headers and meta tags.
    tdmrep: TdmRep | None = None
    #: Labels the sources used that name no purpose here (vocab-08 section 6.4).
    ignored: tuple[IgnoredLabel, ...] = ()
    #: The origin's tdmrep.json as fetched (when, which body), for the compliance record.
    tdmrep_file: CachedAnswer | None = None

    @classmethod
    def of(cls, purposes: tuple[str, ...], reading: Reading, tdmrep: TdmRep | None = None,
           tdmrep_file: CachedAnswer | None = None) -> UsageReading:
        return cls(purposes, reading.signals, decide(reading.signals, purposes),
                   reading.problems, tdmrep, reading.ignored, tdmrep_file)

    @property
    def reading(self) -> Reading:
        """What was read, without the decisions."""
        return Reading(self.signals, self.problems, self.ignored)

    @property
    def refusal(self) -> UsageDecision | None:
        """The first refused purpose, if any."""
        return refused(self.decisions)

    def decision(self, purpose: str) -> UsageDecision | None:
        return next((d for d in self.decisions if d.purpose == purpose), None)


class UsagePolicy:
    """Reads and decides the usage signals for the purposes a crawl declares."""

    def __init__(self, settings: UsageSettings) -> None:
        self.purposes = settings.purposes
        self.enforce = settings.enforce_usage
        # tdmrep.json bodies parsed, by the identity of their cached entry: one parse per
        # fetch, however many requests of the origin ask.
        self._parsed: dict[int, tuple[CachedAnswer, TdmRep]] = {}

    def purposes_for(self, meta: Mapping[str, object]) -> tuple[str, ...]:
        """What to decide on for one request: its contract's purposes, else the crawl's."""
        checked = meta.get(CHECK_PURPOSES_META)
        if isinstance(checked, (tuple, list)) and checked:
            return tuple(str(purpose) for purpose in checked)
        return self.purposes

    @staticmethod
    def needs_tdmrep(purposes: Sequence[str]) -> bool:
        """Whether tdmrep.json must be fetched: only when TDMRep speaks of a purpose."""
        return any(purpose in RESERVED_PURPOSES for purpose in purposes)

    def for_robots(self, robots: CachedAnswer, url: str, user_agent: str,
                   purposes: tuple[str, ...]) -> UsageReading:
        """What robots.txt alone says of ``url``: enough to refuse before tdmrep.json."""
        return UsageReading.of(purposes, robots_signals(robots.rules, url, user_agent))

    def with_tdmrep(self, reading: UsageReading, tdmrep: CachedAnswer, url: str) -> UsageReading:
        """``reading`` with what the origin's tdmrep.json says of ``url``: before the
        request, the file is all TDMRep has. Unreachable (5xx, network errors): refused,
        as robots.txt is."""
        if tdmrep.unreachable:
            found = Reading(tuple(
                Signal(purpose, False, TDMREP_JSON,
                       f"tdmrep.json unreachable ({tdmrep.summary})")
                for purpose in RESERVED_PURPOSES))
            parsed = None
        else:
            parsed = self._tdmrep(tdmrep)
            found = NOTHING if parsed is None else Reading.joined(
                [Reading(problems=parsed.problems), parsed.signals(url)])
        joined = Reading.joined([reading.reading, found])
        return UsageReading.of(reading.purposes, joined, parsed, tdmrep)

    def for_page(self, origin: UsageReading | None, url: str,
                 headers: Mapping[str, Sequence[str]], directives: RobotsDirectives,
                 purposes: tuple[str, ...]) -> UsageReading:
        """The page-level reading: the origin's robots.txt signals, TDMRep weighed across
        the file, the headers and the meta tags (the report's priority), the Content-Usage
        header and noai (noimageai too when the response is an image)."""
        said = header_signals(headers.get("content-usage", ()),
                              headers.get("tdm-reservation", ()), headers.get("tdm-policy", ()))
        tdm = tdm_signals(origin.tdmrep if origin else None, url, said.tdm,
                          tdm_meta(directives.usage_meta))
        # The file's own signals are weighed again above, unless it was unreachable (then
        # they stand while the page itself says nothing of TDM).
        unreadable_file = origin is not None and origin.tdmrep is None and not tdm.signals
        kept = [signal for signal in (origin.signals if origin else ())
                if signal.source != TDMREP_JSON or unreadable_file]
        images = any(value.strip().lower().startswith("image/")
                     for value in headers.get("content-type", ()))
        page = Reading.joined([tdm, said.content_usage,
                               noai_signals(directives, images=images)])
        return UsageReading.of(purposes, Reading((*kept, *page.signals), page.problems,
                                                 page.ignored),
                               tdmrep_file=origin.tdmrep_file if origin else None)

    def _tdmrep(self, entry: CachedAnswer) -> TdmRep | None:
        if entry.body is None:  # 4xx, redirects given up: no file, nothing declared
            return None
        known = self._parsed.get(id(entry))
        if known is None or known[0] is not entry:
            if len(self._parsed) >= _PARSED_MAX:
                self._parsed.clear()
            known = self._parsed[id(entry)] = (entry, TdmRep.parse(entry.body))
        return known[1]


_PARSED_MAX = 1024
