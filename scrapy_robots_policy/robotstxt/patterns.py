"""Both sides of a comparison: percent-encoding, the path of a URL, the pattern compiler
and the one tail matcher.

Matching never uses a regular expression: ``*`` is handled by greedy leftmost
``str.find`` of the literal pieces, which is linear-ish in the URL and pattern lengths.
Percent-encoding follows RFC 9309 sections 2.2.2 and 2.2.3, where Google's parser
compares octets as written (see ``normalize_path``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import repeat
from operator import contains, methodcaller

from .lines import utf8

# Percent-encoding is the same for a rule and for a URL. What it rewrites: an escape, a
# non-ASCII octet, and, between them, every other "%": it starts no escape, it is a literal
# percent sign, "%25" (RFC 9309 normal form; Google compares the octets as written). But
# for a "%" with at most one hex digit ending a literal piece, before a "*", a "$" (or
# their escapes, the same characters in a URL) or the end: ``_REWRITTEN`` finds it too,
# and it is kept as written. It starts an escape a path continues, as for Google ("/%"
# matches "/%C3%A9", "/a%2*" matches "/a%2Fb"), and a URL spelled like the rule ("/%a",
# "/x%*", "/100%") matches it. (A hex digit is tried first: a "%" alone is most often
# followed by another, and fails there at once.)
_PIECE_END = rb"(?=[*$]|%2[Aa4]|\Z)"
_REWRITTEN = re.compile(
    rb"(%(?:[0-9A-Fa-f](?:[0-9A-Fa-f]|" + _PIECE_END + rb")|" + _PIECE_END + rb")|[\x80-\xff])"
)
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Characters a URI cannot hold as they are (RFC 3986 2, neither reserved nor unreserved):
# a crawler's URLs carry them escaped (Scrapy's "/a%20b"), a robots.txt line often not
# ("Disallow: /sitecore modules/"). Both sides compare them as the character, so either
# spelling of one matches the other without a check of every URL for them.
_UNSAFE = frozenset(b' "<>\\^`{|}')
_DECODED = _UNRESERVED | _UNSAFE
# Google's GetPathParamsQuery: an optional "//", a scheme if "://" comes before any of
# "/?;", the authority up to the first of "/?;", then the path up to a fragment.
_URL_PATH = re.compile(r"(?://)?(?:[^/?;#]*?://)?[^/?;#]*([^#]*)")
_STARS = re.compile(r"\*{2,}")

# --- percent-encoding and paths -----------------------------------------------------------


def _canonical(found: bytes) -> bytes:
    """The normal form of one ``_REWRITTEN`` match."""
    if len(found) < 3:
        # A non-ASCII octet, or the start of an escape, as written.
        return found if found[0] == 0x25 else b"%%%02X" % found[0]
    octet = int(found[1:], 16)
    if octet in _DECODED:
        # RFC 9309 2.2.2 and RFC 3986 2.3: %XX of an unreserved character is that
        # character. Google's parser compares "%62" and "b" as different; we do not.
        # The same for the characters a URI cannot hold raw (see ``_UNSAFE``). ("*",
        # "$" and "%" are neither: no escape ever turns into a pattern symbol.)
        return bytes((octet,))
    return found.upper()


# Every match ``_REWRITTEN`` can make, rewritten: 484 spellings of an escape, 23 starts of
# one, 128 octets.
_HEX = [bytes((digit,)) for digit in b"0123456789ABCDEFabcdef"]
_CANONICAL = {
    found: _canonical(found)
    for found in [bytes((octet,)) for octet in range(0x80, 0x100)]
    + [b"%" + digits for digits in [b"", *_HEX, *(a + b for a in _HEX for b in _HEX)]]
}
_LITERAL_PERCENTS = methodcaller("replace", b"%", b"%25")


def _escape_octets(raw: bytes) -> str:
    """%XX for non-ASCII octets, upper-case hex, unreserved escapes decoded, a "%" that
    starts no escape as "%25": the one percent-encoding of rules and URLs.

    Split, rewritten and joined at C speed: a file can hold 500 KiB of "%", and a
    function called per "%" cost a crawler's first question a third of a second.
    """
    parts = _REWRITTEN.split(raw)
    parts[0::2] = map(_LITERAL_PERCENTS, parts[0::2])
    parts[1::2] = map(_CANONICAL.__getitem__, parts[1::2])
    return b"".join(parts).decode("ascii")


def normalize_pattern(raw: bytes) -> str:
    """Canonical form of an allow/disallow value, as octets from the file.

    Percent-encoded as ``normalize_path`` does, by the same function, so that a rule and
    a URL spelled alike match; "*" and a final "$" keep their pattern meaning, and a "$"
    anywhere else is a literal, written "%24" (RFC 9309 2.2.3). A "%" ending a literal
    piece with at most one hex digit starts an escape: "/%" matches "/%C3%A9", "/a%2*"
    matches "/a%2Fb", though not an escape compared as its character ("/a%20b" is
    "/a b").
    """
    text = _escape_octets(raw) if not raw.isascii() or b"%" in raw else raw.decode("ascii")
    if "$" in text[:-1]:
        text = text[:-1].replace("$", "%24") + text[-1]
    return text


def normalize_path(path: str) -> str:
    """Canonical form of a URL's path and query, the other side of every comparison.

    Non-ASCII characters become %XX of their UTF-8 octets, %xx hex is upper-cased, %XX of
    an unreserved character (A-Z a-z 0-9 - . _ ~) is decoded (RFC 9309 2.2.2; Google's
    parser compares "%62" and "b" as different), and so is %XX of a character a URI
    cannot hold raw (space " < > \\ ^ ` { | }: "%20" is " "); a "%" that starts no
    escape becomes "%25" (but for one with at most one hex digit before a "*", a "$" or
    the end, kept as written, as in a rule: see ``_REWRITTEN``), and the two characters
    special in patterns become "%2A" and "%24", so that a pattern can name them
    literally (RFC 9309 2.2.3: "/foo-%24" matches "/foo-$").
    ``normalize_path("/caf%c3%a9/%7Euser$") == "/caf%C3%A9/~user%24"``.
    """
    if path.isascii() and "%" not in path and "*" not in path and "$" not in path:
        return path
    text = _escape_octets(utf8(path))
    return text.replace("*", "%2A").replace("$", "%24")


def split_url(url: str) -> tuple[str, int]:
    """(path, params and query of ``url`` without fragment, where that path starts).

    Same cases as Google's GetPathParamsQuery: an absolute URL, a bare path, or
    "host/path"; "//host/path" is scheme-relative; no path at all means "/". The path
    always starts with "/"; the position is -1 when the URL has none.
    """
    m = _URL_PATH.match(url)
    path = m.group(1)  # type: ignore[union-attr]
    if not path:
        return "/", -1
    start = m.start(1)  # type: ignore[union-attr]
    return (path, start) if path[0] == "/" else ("/" + path, start)


# --- compiling and matching one pattern ---------------------------------------------------

# How the part of a pattern after its literal prefix is matched.
PLAIN = 0  # "/fish": nothing after the prefix
EXACT = 1  # "/fish$": the path is the prefix
FIND = 2  # "/fish*.php": one "*", then a literal anywhere after the prefix
ENDS = 3  # "/*.php$": one "*", then a literal ending the path
GLOB = 4  # several "*"
GLOB_ENDS = 5  # several "*", and a final "$"


class CompiledRule:
    """One allow or disallow rule as the matcher tries it: its pattern cut into the
    literal prefix it is filed under and what ``tail_matches`` needs after it.

    Slotted, not a tuple: a crawl keeps one per rule of every group it asked about, and
    a slotted object is smaller than a 7-tuple and as fast to read. The pattern itself
    is not kept: a matcher reads it again from the rule's line when a decision reports
    it (a string per wildcard rule was a twelfth of a crawl's memory).
    """

    __slots__ = ("allow", "kind", "last", "line", "middles", "prefix", "priority")

    def __init__(
        self,
        priority: int,
        allow: bool,
        line: int,
        kind: int,
        last: str,
        middles: tuple[str, ...],
        prefix: str,
    ) -> None:
        #: The pattern's length, as in Google's parser: the longest match wins.
        self.priority = priority
        self.allow = allow
        #: The first line writing the rule; 0: no line (a rule the engine adds).
        self.line = line
        #: How the text after ``prefix`` is matched: PLAIN, EXACT, FIND, ENDS, GLOB...
        self.kind = kind
        #: The literal piece after the last "*" ("" for PLAIN and EXACT).
        self.last = last
        #: The literal pieces between the first and the last "*".
        self.middles = middles
        #: The literal text before the first "*" (or the final "$").
        self.prefix = prefix

    @property
    def form(self) -> tuple[int, str, tuple[str, ...], str]:
        """What the rule matches, whatever its answer and line: equal forms match alike."""
        return self.kind, self.last, self.middles, self.prefix

    def matches_after(self, path: str, start: int) -> bool:
        """``tail_matches`` of this rule's pieces, its prefix found at ``path[:start]``."""
        return tail_matches(path, start, self.kind, self.last, self.middles)

    def __repr__(self) -> str:
        return (
            f"CompiledRule({self.priority}, {self.allow}, {self.line}, {self.kind}, "
            f"{self.last!r}, {self.middles!r}, {self.prefix!r})"
        )


def compile_pattern(pattern: str) -> tuple[str, int, str, tuple[str, ...]]:
    """(literal prefix, kind, last literal piece, literal pieces between the "*"s)."""
    anchored = pattern.endswith("$")  # "$" is special only as the last character
    body = pattern[:-1] if anchored else pattern
    if "*" not in body:
        return body, EXACT if anchored else PLAIN, "", ()
    if "**" in body:
        body = _STARS.sub("*", body)  # "**" matches what "*" does: no empty pieces
    pieces = body.split("*")
    if len(pieces) > 2:
        return pieces[0], GLOB_ENDS if anchored else GLOB, pieces[-1], tuple(pieces[1:-1])
    return pieces[0], ENDS if anchored else FIND, pieces[-1], ()


_REMOVE_ANCHOR = methodcaller("removesuffix", "$")
# Prefixes, kinds, last pieces and middles, an item per pattern.
Columns = tuple[list[str], Iterable[int], list[str], Iterable[tuple[str, ...]]]


def compile_alike(patterns: list[str]) -> Columns | None:
    """``compile_pattern`` of each of some patterns, as columns, when each has as many
    "*" as the others, none doubled (else None), as in a group of 40,000 ``/*q<i>`` or
    20,000 ``/*a*b<i>`` read on a first question: they are cut all at once, their text
    cut at every "*" and between patterns giving each pattern's pieces in turn."""
    count = len(patterns)
    joined = "\n".join(patterns)  # no pattern holds a "\n"
    stars, left = divmod(joined.count("*"), count)
    if not stars or left or "**" in joined:
        return None
    cut = joined.replace("*", "\n").split("\n")
    step = stars + 1
    if stars == 1:
        # As many "*" as patterns, and one in each.
        if not all(map(contains, patterns, repeat("*"))):
            return None
        middles: Iterable[tuple[str, ...]] = repeat((), count)
        kinds = (FIND, ENDS)
    else:
        # Each pattern is its own pieces joined again (a "*" more here, one less there
        # would shift them).
        pieces = [cut[i::step] for i in range(step)]
        if list(map("*".join, zip(*pieces, strict=True))) != patterns:
            return None
        middles = zip(*pieces[1:stars], strict=True)
        kinds = (GLOB, GLOB_ENDS)
    prefixes, rests = cut[0::step], cut[stars::step]
    if "$" not in joined:
        return prefixes, repeat(kinds[0], count), rests, middles
    anchored = [kinds[rest[-1:] == "$"] for rest in rests]
    return prefixes, anchored, list(map(_REMOVE_ANCHOR, rests)), middles


def tail_matches(path: str, start: int, kind: int, last: str, middles: tuple[str, ...]) -> bool:
    """Match what follows a literal prefix already found at ``path[:start]``.

    Greedy leftmost placement of each literal piece is enough for "*" globbing, and each
    ``str.find`` is linear, so no input can make this backtrack.
    """
    if kind == PLAIN:
        return True
    if kind == EXACT:
        return len(path) == start
    for piece in middles:
        found = path.find(piece, start)
        if found < 0:
            return False
        start = found + len(piece)
    if kind in (FIND, GLOB):
        return path.find(last, start) >= 0
    return len(path) - len(last) >= start and path.endswith(last)


def pattern_matches(path: str, pattern: str) -> bool:
    """Whether a normalised robots.txt ``pattern`` matches a normalised URL ``path``.

    Anchored at the start; "*" matches any run of characters, a final "$" anchors the
    end. ``pattern_matches("/a/x.php", "/*.php$") is True``.
    """
    prefix, kind, last, middles = compile_pattern(pattern)
    return path.startswith(prefix) and tail_matches(path, len(prefix), kind, last, middles)
