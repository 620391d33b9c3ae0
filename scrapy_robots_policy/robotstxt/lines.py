"""The one tokenizer: the octets Google's line reader sees, and the grammar of a line.

Every scanner of the engine is built here from one grammar (leading blanks, a key
recognised by its prefix, a separator, a value), so there is one definition of what a
line is. A scanner's matches are the line events its consumer handles: user-agent lines
(group assembly, explain), rule lines (where a group's run of user-agent lines ends),
every line of a group (the rules builder), sitemap lines and usage lines.

Scanners work on bytes, after line breaks were normalised to b"\\n" (Google works on raw
octets; invalid UTF-8 can never raise), except ``GROUP_LINE``, which reads a group decoded
as Latin-1 (one character per octet) so that rule values come out as str without a decode
per rule. "Whitespace" is ASCII only, as in absl::StripAsciiWhitespace.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: RFC 9309 section 2.5: crawlers must parse at least the first 500 KiB; the rest is ignored.
MAX_BYTES = 512_000
#: Google-specific: its line buffer keeps 2083 * 8 - 1 bytes of a line and drops the rest.
MAX_LINE = 2083 * 8 - 1

_BOM = b"\xef\xbb\xbf"
_NUL_TO_EOL = re.compile(rb"\x00[^\n]*")

# --- the grammar ------------------------------------------------------------------------
# Written as str and in lower case: scanners of the lower-cased text use it as is, the
# others inside (?i:...).

_BLANKS = r"[ \t\v\f]*"
# A key is recognised by its prefix (Google: StartsWithIgnoreCase) and ends at the
# separator: everything before the first colon; or, without a colon, Google accepts
# whitespace as the separator when the line holds exactly two words.
_SEPARATOR = (
    r"(?:[^:#\n]*:"
    r"|[^ \t:#\n]*[ \t]+(?=[\v\f]*[^\s:#][^ \t:#\n]*[ \t\v\f]*(?:#|$)))"
)
# A key spelled with a space is only a key in the colon form: without a colon, "user
# agent foo" has three words and "user agent" is the key "user".
_COLON_ONLY = r"(?=[^:#\n]*:)"
# The value: after the blanks, up to a comment (in the two-word form, the second word).
# Its consumer strips the blanks that may end it (``value.rstrip(BLANKS)``): a regular
# expression leaving them out costs more.
_VALUE = _BLANKS + r"([^#\n]*)"
#: What ``_BLANKS`` matches: the whitespace a line can hold ("\r" and "\n" cannot occur;
#: str.strip() would also take "\x85" and "\xa0").
BLANKS = " \t\v\f"

# Spelled out: "user-?agent" makes parsing 3% slower.
_USER_AGENT = rf"(?:user-agent|useragent|user agent{_COLON_ONLY})"
_ALLOW = "allow"
_DISALLOW = "di(?:sallow|ssallow|ssalow|salow|asllow|sallaw)"
# Not a rule for Google, an "unknown" key that neither opens nor closes a group. Also read
# as "crawldelay" and "crawl delay": the site's intent is plain.
_CRAWL_DELAY = rf"(?:crawl-?delay|crawl delay{_COLON_ONLY})"
_SITEMAP = "(?:sitemap|site-map)"


def _bytes(pattern: str) -> re.Pattern[bytes]:
    return re.compile(pattern.encode("ascii"), re.ASCII | re.MULTILINE)


# User-agent lines and rule lines are searched in the lower-cased text with a "\n" put in
# front (see ``lowered``): every line then follows a "\n", a literal prefix the regular
# expression engine skips to at C speed, and keys need no case-insensitive matching.
# The value of a user-agent line captures "*" for the global group (Google: "*" alone or
# followed by whitespace), else Google's cut of the first name (ExtractUserAgent: the
# leading run of [a-zA-Z_-]) and, when the value holds more names before any comment
# ("Agent2 Agent3"), the first character of the second one (only the colon form can have
# several). The match runs to the end of the line.
USER_AGENT_LINE = _bytes(
    rf"\n{_BLANKS}{_USER_AGENT}{_SEPARATOR}{_BLANKS}"
    r"(?:(?P<star>\*)(?![^ \t\v\f#\n])"
    r"|(?P<cut>[a-z_-]*)[^\s#]*(?:[ \t\v\f]+(?P<more>[^\s#]))?)[^\n]*"
)
# A rule line, even with an empty value, ends the run of user-agent lines of a group.
RULE_LINE = _bytes(rf"\n{_BLANKS}(?:{_ALLOW}|{_DISALLOW}){_SEPARATOR}")
# Every line of a group, one match each: (allow key, crawl-delay key, value) for a rule
# or a Crawl-delay, else three empty strings. The look-ahead at the first letters of the
# keys lets other lines fail before the case-insensitive alternatives are tried.
GROUP_LINE = re.compile(
    rf"^{_BLANKS}(?:(?=[aAdDcC])(?i:({_ALLOW})|{_DISALLOW}|({_CRAWL_DELAY}))"
    rf"{_SEPARATOR}{_VALUE})?[^\n]*",
    re.ASCII | re.MULTILINE,
)
# The value of every allow (or disallow) line of a group, trailing blanks left out, one
# match per line: other lines give "". Read at C speed for groups whose values are their
# own patterns (see ``rules``).
_TRIMMED_VALUE = _BLANKS + r"((?:[^#\n]*[^\s#])?)"
ALLOW_VALUE = re.compile(
    rf"^{_BLANKS}(?:(?i:{_ALLOW}){_SEPARATOR}{_TRIMMED_VALUE})?[^\n]*", re.ASCII | re.MULTILINE
)
DISALLOW_VALUE = re.compile(
    rf"^{_BLANKS}(?:(?i:{_DISALLOW}){_SEPARATOR}{_TRIMMED_VALUE})?[^\n]*",
    re.ASCII | re.MULTILINE,
)
# The same values found line by line, for a group where such lines are few among many
# others (a line of 250,000 empty ones, each an item of ``ALLOW_VALUE``'s list): a match
# starts at the "\n" before its line (the group's text is read with one put in front).
ALLOW_LINE = re.compile(
    rf"\n{_BLANKS}(?i:{_ALLOW}){_SEPARATOR}{_TRIMMED_VALUE}", re.ASCII | re.MULTILINE
)
DISALLOW_LINE = re.compile(
    rf"\n{_BLANKS}(?i:{_DISALLOW}){_SEPARATOR}{_TRIMMED_VALUE}", re.ASCII | re.MULTILINE
)
CRAWL_DELAY_VALUE = re.compile(
    rf"^{_BLANKS}(?:(?i:{_CRAWL_DELAY}){_SEPARATOR}{_TRIMMED_VALUE})?[^\n]*",
    re.ASCII | re.MULTILINE,
)
SITEMAP_LINE = _bytes(rf"{_BLANKS}(?i:{_SITEMAP}){_SEPARATOR}{_VALUE}")
# Usage lines (see ``usage``): the key as written (either name, by its prefix) and the value.
USAGE_LINE = _bytes(rf"{_BLANKS}(?i:(content-signal|content-usage)){_SEPARATOR}{_VALUE}")


# --- the octets -------------------------------------------------------------------------


def utf8(text: str) -> bytes:
    """The octets of ``text``, including those of bytes decoded with surrogateescape."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def prepare(content: bytes | bytearray | memoryview | str) -> bytes:
    """The octets Google's line reader would see, with every line break turned into "\\n"."""
    if isinstance(content, str):
        content = utf8(content)
    elif not isinstance(content, bytes):
        content = bytes(content)
    if len(content) > MAX_BYTES:
        # Drop the partial last line too: half a rule ("Disallow: /" of "/private") would
        # mean something its author never wrote.
        content = content[:MAX_BYTES]
        cut = max(content.rfind(b"\n"), content.rfind(b"\r"))
        content = content[: cut + 1]
    if content[:1] == b"\xef":
        # Google skips a UTF-8 byte order mark, and also a partial one.
        skip = 1
        while skip < 3 and content[skip : skip + 1] == _BOM[skip : skip + 1]:
            skip += 1
        content = content[skip:]
    if b"\r" in content:
        content = content.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"\0" in content:
        # Google's line reader works on C strings: a NUL ends the line's content.
        content = _NUL_TO_EOL.sub(b"", content)
    if len(content) > MAX_LINE:
        pos = 0
        size = len(content)
        while size - pos > MAX_LINE:
            newline = content.rfind(b"\n", pos, pos + MAX_LINE + 1)
            if newline < 0:
                content = b"\n".join(line[:MAX_LINE] for line in content.split(b"\n"))
                break
            pos = newline + 1
    return content


def lowered(data: bytes) -> bytes:
    """The text searched for keys: lower-cased, after a "\\n" (offsets shift by one).

    In it, a line starting at offset i of ``data`` follows the "\\n" at i.
    """
    return b"\n" + data.lower()


# --- line events ------------------------------------------------------------------------


def scan(data: bytes, needle: bytes, line_re: re.Pattern[bytes]) -> Iterator[re.Match[bytes]]:
    """The lines matching ``line_re`` (at their start) that contain ``needle``.

    ``bytes.find`` of a keyword the line must contain (in the lower-cased text) skips the
    other lines at C speed; the regular expression runs only at candidate line starts.
    """
    low = data.lower()
    found = low.find(needle)
    while found >= 0:
        m = line_re.match(data, data.rfind(b"\n", 0, found) + 1)
        if m is not None:
            yield m
        line_end = data.find(b"\n", found)
        if line_end < 0:
            return
        found = low.find(needle, line_end)
