"""What one reader found: the signals, and what it ignored (never an exception)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .purposes import Signal


@dataclass(frozen=True, slots=True)
class IgnoredLabel:
    """A label a site wrote that names no purpose here, so is not read: unknown labels are
    ignored (draft-ietf-aipref-vocab-08 section 6.4), those of earlier revisions included.
    Not an error of the site's, but what it said and was not obeyed: the caller logs it
    at INFO (once per origin) and counts it."""

    label: str  # as written: 'ai', 'train-genai', 'use'
    evidence: str  # where: 'robots.txt line 3: "Content-Usage: ai=n"'
    why: str  # 'AI Training in draft-ietf-aipref-vocab-01, not a label of -08'
    #: A label the tables name (an earlier revision's, a known extension): counted under
    #: its own name; any other under "other", so that a site cannot mint stat keys.
    known: bool = False

    @property
    def stat_name(self) -> str:
        return self.label if self.known else "other"


@dataclass(frozen=True, slots=True)
class Reading:
    """Signals read from one source, the problems met reading it (values that do not
    parse or were too long, which the caller logs at DEBUG and counts), and the labels it
    ignored."""

    signals: tuple[Signal, ...] = ()
    problems: tuple[str, ...] = ()
    ignored: tuple[IgnoredLabel, ...] = ()

    @classmethod
    def joined(cls, readings: Iterable[Reading]) -> Reading:
        """Several readings as one, in order."""
        signals: list[Signal] = []
        problems: list[str] = []
        ignored: list[IgnoredLabel] = []
        for reading in readings:
            signals.extend(reading.signals)
            problems.extend(reading.problems)
            ignored.extend(reading.ignored)
        return cls(tuple(signals), tuple(problems), tuple(ignored))


NOTHING = Reading()
