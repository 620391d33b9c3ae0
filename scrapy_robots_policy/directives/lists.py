"""One directive list, an X-Robots-Tag value or a robots meta content, as read: how much
of it (the read limits) and how it splits into ``name: value`` pieces.

What is read per response is bounded, whatever the site sends: a hostile page must not
cost more memory than the page itself, and what was left unread is described in
:attr:`RobotsDirectives.cut`.
"""

from __future__ import annotations

from collections.abc import Iterator

from scrapy_robots_policy.directives.dates import WEEKDAY

# Bounds on what one response costs. Real directive lists are a few dozen characters; a
# 16 KB header of one-letter items used to become 5,000 retained Directive tuples.
#: Characters read of one X-Robots-Tag value, robots meta content or Robots-Tag field
#: (and of the usage headers). draft-illyes-repext-03 section 3.1.1 makes a parser read at
#: least 8 KiB of a Robots-Tag field value: 8,192 characters are at least that many bytes.
#: The cut ends at the last comma before it: a directive the cut falls in is dropped
#: whole, never read half.
MAX_VALUE_CHARS = 8192
#: Bytes of a header value decoded: room for MAX_VALUE_CHARS + 1 characters of UTF-8, so
#: a longer value is still seen to be longer, without decoding all of it.
_MAX_VALUE_BYTES = 4 * (MAX_VALUE_CHARS + 1)
#: X-Robots-Tag values, and robots meta tags (for ``robots`` or us), read per response.
MAX_VALUES = 32


def header_text(value: str | bytes) -> str:
    """A header value as text: UTF-8, undecodable bytes as U+FFFD; only as much of a long
    one as read_value may read."""
    if isinstance(value, bytes):
        return value[:_MAX_VALUE_BYTES].decode("utf-8", errors="replace")
    return str(value)


def read_value(value: str | bytes, what: str, cut: list[str]) -> str:
    """The part of one header value or meta content that is read (see MAX_VALUE_CHARS).

    ``noindex, `` followed by 16 KB of anything is still noindex; ``noindex, nofo|llow``
    cut at ``|`` keeps ``noindex`` only.
    """
    text = header_text(value)
    if len(text) <= MAX_VALUE_CHARS:
        return text
    cut.append(f"{what} longer than {MAX_VALUE_CHARS} characters: the rest not read")
    head = text[:MAX_VALUE_CHARS]
    return head if text[MAX_VALUE_CHARS] == "," else head.rpartition(",")[0]


def split_list(value: str) -> Iterator[str]:
    """Split a comma-separated directive list into its stripped, non-empty pieces.

    RFC 822 and RFC 850 dates carry a comma after the weekday (``unavailable_after:
    Saturday, 01-Jul-23 15:00:00 GMT``); a weekday alone is joined with the next piece.
    """
    pieces = value.split(",")
    index = 0
    while index < len(pieces):
        piece = pieces[index].strip()
        index += 1
        if not piece:
            continue
        tail = piece.rpartition(":")[2].strip()
        if index < len(pieces) and "unavailable_after" in piece.lower() and WEEKDAY.fullmatch(
                tail):
            piece = f"{piece}, {pieces[index].strip()}"
            index += 1
        yield piece


def name_value(piece: str) -> tuple[str, str | None]:
    head, colon, rest = piece.partition(":")
    return head.strip().lower(), (rest.strip() if colon else None)
