"""What one directive sets, and which of two values is the more restrictive.

A change to how a directive's value is read, or to which value wins, touches one function
here.
"""

from __future__ import annotations

import re
from typing import Any

from scrapy_robots_policy.directives.dates import parse_date
from scrapy_robots_policy.directives.vocabulary import FLAGS

_IMAGE_PREVIEW_ORDER = {"none": 0, "standard": 1, "large": 2}
_INT = re.compile(r"[+-]?\d{1,18}")


def _parse_int(value: str | None) -> int | None:
    """A non-negative count, or -1 for "no limit"; anything else is not a valid value."""
    if value is None or not _INT.fullmatch(value.strip()):
        return None
    number = int(value)
    return number if number >= -1 else None


def effect_of(name: str, value: str | None) -> dict[str, Any] | None:
    """What one directive sets on :class:`RobotsDirectives`; None when its value is invalid.

    Unknown directives set nothing but are valid: they stay in ``sources`` for user code.
    """
    if name in FLAGS:
        if name == "none":
            return {"noindex": True, "nofollow": True}
        if name in ("all", "index", "follow"):
            return {}
        return {name: True}
    if name == "max-snippet":
        number = _parse_int(value)
        if number is None:
            return None
        # max-snippet:0 is nosnippet by definition; user code checking nosnippet must see it.
        return {"max_snippet": number, "nosnippet": True} if number == 0 else {
            "max_snippet": number}
    if name == "max-video-preview":
        number = _parse_int(value)
        return None if number is None else {"max_video_preview": number}
    if name == "max-image-preview":
        setting = (value or "").strip().lower()
        return {"max_image_preview": setting} if setting in _IMAGE_PREVIEW_ORDER else None
    if name == "unavailable_after":
        moment = parse_date(value)
        return None if moment is None else {"unavailable_after": moment}
    return {}


def _stricter_count(a: int | None, b: int | None) -> int | None:
    """The more restrictive of two limits: the smallest non-negative one, -1 means none."""
    if a is None or a == -1:
        return b if b is not None else a
    if b is None or b == -1:
        return a
    return min(a, b)


def stricter_value(name: str, a: Any, b: Any) -> Any:
    """The more restrictive of two values of the attribute ``name``; None or False is unset."""
    if a is None or a is False:
        return b if b is not None else a
    if b is None or b is False:
        return a
    if name in ("max_snippet", "max_video_preview"):
        return _stricter_count(a, b)
    if name == "max_image_preview":
        return min(a, b, key=_IMAGE_PREVIEW_ORDER.__getitem__)
    if name == "unavailable_after":
        return min(a, b)
    return a or b
