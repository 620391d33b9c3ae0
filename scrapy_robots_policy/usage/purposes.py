"""What a crawl says its content is for, and how the sites' usage signals decide on it.

Sites state what content may be used for in several vocabularies (Content-Signal,
the IETF aipref Content-Usage, TDMRep, noai). Each reader maps its own vocabulary onto
:data:`PURPOSES` and returns :class:`Signal` objects with their provenance; this module
decides on them, the same way whatever the source: a purpose is refused when any signal
that applies refuses it, since each source is the site's own statement and a crawler
honours all of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: The purposes a crawl can declare (``ROBOTS_POLICY_PURPOSES``); README maps each source.
PURPOSES = ("search", "ai-input", "ai-train", "tdm")

# Where a signal was read: stat suffixes and the names in the compliance record.
CONTENT_SIGNAL = "content-signal"  # robots.txt Content-Signal line
CONTENT_USAGE = "content-usage"  # robots.txt Content-Usage line
USAGE_HEADER = "content-usage-header"  # Content-Usage response header
TDMREP_JSON = "tdmrep.json"  # /.well-known/tdmrep.json of the origin
TDM_HEADER = "tdm-header"  # tdm-reservation / tdm-policy response headers
TDM_META = "tdm-meta"  # <meta name="tdm-reservation">
NOAI = "noai"  # noai / noimageai in robots meta tags or X-Robots-Tag


@dataclass(frozen=True, slots=True)
class Signal:
    """One statement of a site about one purpose, and where it was read."""

    purpose: str  # one of PURPOSES
    allowed: bool
    source: str  # one of the source names above
    evidence: str  # what a user reads in a log line: 'robots.txt line 3: Content-Signal: ...'


@dataclass(frozen=True, slots=True)
class UsageDecision:
    """Whether content may be used for ``purpose``, and the signal that decided."""

    purpose: str
    allowed: bool
    signal: Signal | None  # None: no signal spoke of this purpose, so it is allowed

    @property
    def reason(self) -> str:
        said = self.signal.evidence if self.signal else "no signal"
        return f"{self.purpose} {'allowed' if self.allowed else 'refused'} ({said})"


def decide(signals: Iterable[Signal], purposes: Iterable[str]) -> tuple[UsageDecision, ...]:
    """One decision per purpose: refused by the first refusing signal, else allowed (by the
    first allowing one, if any)."""
    said = list(signals)
    decisions = []
    for purpose in purposes:
        about = [signal for signal in said if signal.purpose == purpose]
        refusal = next((signal for signal in about if not signal.allowed), None)
        if refusal is not None:
            decisions.append(UsageDecision(purpose, False, refusal))
        else:
            decisions.append(UsageDecision(purpose, True, about[0] if about else None))
    return tuple(decisions)


def refused(decisions: Iterable[UsageDecision]) -> UsageDecision | None:
    """The first decision that refuses its purpose, if any."""
    return next((decision for decision in decisions if not decision.allowed), None)
