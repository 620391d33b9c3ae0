"""``unavailable_after`` dates: which spellings of a moment are read, and as what.

RFC 822, RFC 850, asctime or ISO 8601 (extended or basic), always timezone-aware, UTC
when no zone is given.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_tz

WEEKDAY = re.compile(
    r"(?:mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?", re.IGNORECASE
)
_LEADING_WEEKDAY = re.compile(WEEKDAY.pattern + r"\b,?\s*", re.IGNORECASE)
_ISO_8601 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?",
    re.IGNORECASE,
)
#: ISO 8601's basic format, the same fields without separators (``20200921T150000Z``).
#: The standard has a representation be all basic or all extended, so mixes do not match;
#: a time needs its ``T``. Groups as in _ISO_8601, so _iso_date reads both.
_ISO_8601_BASIC = re.compile(
    r"(\d{4})(\d{2})(\d{2})"
    r"(?:T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*(Z|[+-]\d{2}(?:\d{2})?)?",
    re.IGNORECASE,
)
_MAX_DATE_CHARS = 100  # longer than any date format we accept; keeps parsing cheap


def parse_date(text: str | None) -> datetime | None:
    """``unavailable_after`` dates: RFC 822, RFC 850, asctime or ISO 8601, aware, UTC default."""
    if not text:
        return None
    text = text.strip()
    if len(text) > _MAX_DATE_CHARS or not text.isascii():
        # Every accepted format is ASCII; and int() would read other scripts' digits
        # ("\u0662\u0660\u0662\u0660" as 2020), as no date-writing server meant.
        return None
    try:
        iso = _ISO_8601.fullmatch(text) or _ISO_8601_BASIC.fullmatch(text)
        if iso:
            return _iso_date(iso)
        rest = _LEADING_WEEKDAY.sub("", text, count=1) if WEEKDAY.match(text) else text
        parts = parsedate_tz(rest)
        if parts is None:  # a date without a time of day means its midnight
            parts = parsedate_tz(rest + " 00:00:00")
        if parts is None:
            return None
        offset = parts[9] or 0  # no zone, or one the email module does not know: UTC
        moment = datetime(*parts[:6], tzinfo=timezone(timedelta(seconds=offset)))
        return moment.astimezone(timezone.utc)
    except (ValueError, OverflowError, IndexError):
        return None


def _iso_date(match: re.Match[str]) -> datetime:
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    tz = timezone.utc
    if zone and zone.upper() != "Z":
        digits = zone[1:].replace(":", "")
        delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        tz = timezone(-delta if zone[0] == "-" else delta)
    moment = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                      int(second or 0), micro, tzinfo=tz)
    return moment.astimezone(timezone.utc)
