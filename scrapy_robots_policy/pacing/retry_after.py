"""``Retry-After`` (RFC 9110, section 10.2.3): delay-seconds or an HTTP-date, read once for
robots.txt retries and for site back-off alike.

Only ASCII digits count (``Retry-After: ²`` and Arabic-Indic digits name no time), and a
value that names no future moment says why, so the caller can log it.
"""

from __future__ import annotations

import math
import re
from email.utils import parsedate_to_datetime
from typing import NamedTuple

_DELAY_SECONDS = re.compile(r"[0-9]+")
#: Longer than any HTTP-date; a longer value is not parsed at all.
_MAX_DATE_CHARS = 64
#: Delay-seconds past this many digits are read as this many: already centuries.
_MAX_DIGITS = 12


class RetryAfter(NamedTuple):
    """What a ``Retry-After`` value asks for: ``seconds`` from now, or why it asks nothing."""

    seconds: float | None  # None: no usable value; 0 for a date in the past
    problem: str | None = None  # why a value that was sent names no future time


def read_retry_after(value: str | None, now: float) -> RetryAfter:
    """Seconds to wait per ``value`` at wall-clock time ``now``.

    >>> read_retry_after("120", 0.0)
    RetryAfter(seconds=120.0, problem=None)
    >>> read_retry_after("Thu, 01 Jan 1970 00:01:00 GMT", 0.0).seconds
    60.0
    >>> read_retry_after("soon", 0.0).problem
    "not delay-seconds nor an HTTP-date: 'soon'"
    """
    if value is None or not value.strip():
        return RetryAfter(None)
    text = value.strip()
    if _DELAY_SECONDS.fullmatch(text):
        return RetryAfter(float(text[:_MAX_DIGITS]))
    if text.isascii() and len(text) <= _MAX_DATE_CHARS:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            when = None
        if when is not None and when.tzinfo is not None:
            seconds = when.timestamp() - now
            if math.isfinite(seconds):
                past = None if seconds > 0 else f"a date in the past: {text!r}"
                return RetryAfter(max(seconds, 0.0), past)
    return RetryAfter(None, f"not delay-seconds nor an HTTP-date: {text[:_MAX_DATE_CHARS]!r}")
