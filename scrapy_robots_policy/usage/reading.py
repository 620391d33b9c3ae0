"""What one reader found: the signals, and what it ignored (never an exception)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .purposes import Signal


@dataclass(frozen=True, slots=True)
class Reading:
    """Signals read from one source, and the problems met reading it: values that do not
    parse or were too long, which the caller logs at DEBUG and counts."""

    signals: tuple[Signal, ...] = ()
    problems: tuple[str, ...] = ()

    @classmethod
    def joined(cls, readings: Iterable[Reading]) -> Reading:
        """Several readings as one, in order."""
        signals: list[Signal] = []
        problems: list[str] = []
        for reading in readings:
            signals.extend(reading.signals)
            problems.extend(reading.problems)
        return cls(tuple(signals), tuple(problems))


NOTHING = Reading()
