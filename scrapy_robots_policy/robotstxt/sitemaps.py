"""Sitemap lines: every value, in file order, wherever it stands in the file."""

from __future__ import annotations

import re

from .lines import BLANKS, SITEMAP_LINE, scan

_HIGH_OCTET = re.compile(rb"[\x80-\xff]")
_BLANKS = BLANKS.encode()


def sitemap_urls(data: bytes) -> tuple[str, ...]:
    """The non-empty Sitemap values of a prepared file."""
    found = []
    for m in scan(data, b"site", SITEMAP_LINE):
        value = m.group(1).rstrip(_BLANKS)
        if value:
            found.append(_as_text(value))
    return tuple(found)


def _as_text(value: bytes) -> str:
    """A Sitemap value as text; octets that are not UTF-8 are percent-encoded."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return _HIGH_OCTET.sub(lambda m: b"%%%02X" % m.group()[0], value).decode("ascii")
