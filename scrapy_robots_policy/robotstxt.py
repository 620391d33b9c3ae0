"""robots.txt parsing and matching: RFC 9309 as Google's reference parser implements it.

Pure Python, no Scrapy import. Built for a crawler that parses one file per origin and
then asks about every request, so the work is split in three:

* ``RobotsTxt.parse`` only finds the user-agent lines (``bytes.find`` over the lowered
  text, a regular expression matched at those few line starts) and records which spans
  of the file form each group. Rule lines are not touched.
* The first question for a user agent reads the rule lines of the groups that apply to it
  (and only those), normalises their patterns and builds a ``_Matcher``, cached on the
  parsed object per agent.
* A question is then a path extraction, a percent-encoding check and a walk over a sorted
  list of literal prefixes (``bisect``), so a group of 20,000 rules costs about as much
  as a group of ten.

Matching never uses a regular expression: ``*`` is handled by greedy leftmost
``str.find`` of the literal pieces, which is linear-ish in the URL and pattern lengths.

Where Google's parser and RFC 9309 disagree, Google wins, except for percent-encoding,
where RFC 9309 section 2.2.2 is followed (see ``normalize_path``).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Decision", "Explanation", "RobotsTxt", "Rule", "normalize_path", "pattern_matches"]

#: RFC 9309 section 2.5: crawlers must parse at least the first 500 KiB; the rest is ignored.
MAX_BYTES = 512_000
#: Google-specific: its line buffer keeps 2083 * 8 - 1 bytes of a line and drops the rest.
MAX_LINE = 2083 * 8 - 1

_BOM = b"\xef\xbb\xbf"

# Every regular expression works on bytes (Google works on raw octets; invalid UTF-8 can
# never raise) after line breaks were normalised to b"\n". "Whitespace" is ASCII only,
# as in absl::StripAsciiWhitespace. A key is everything before the first colon and is
# recognised by its prefix, case-insensitively (Google: StartsWithIgnoreCase). Without a
# colon, Google accepts whitespace as the separator when the line holds exactly two words.
_COLON_OR_TWO_WORDS = (
    rb"(?:[^:#\n]*:([^#\n]*)"
    rb"|[^ \t:#\n]*[ \t]+([\v\f]*[^\s:#][^ \t:#\n]*)[ \t\v\f]*(?:#[^\n]*)?$)"
)
# "user agent" (with a space) is only a user-agent key in the colon form: without a
# colon, "user agent foo" has three words and "user agent" is the key "user".
_UA_LINE = re.compile(
    rb"[ \t\v\f]*(?:(?i:user-agent|useragent|user agent)[^:#\n]*:([^#\n]*)"
    rb"|(?i:user-agent|useragent)[^ \t:#\n]*[ \t]+([\v\f]*[^\s:#][^ \t:#\n]*)"
    rb"[ \t\v\f]*(?:#[^\n]*)?$)",
    re.ASCII | re.MULTILINE,
)
_RULE_KEYS = rb"(?i:(allow)|(disallow|dissallow|dissalow|disalow|diasllow|disallaw))"
# A rule line, even with an empty value, ends the run of user-agent lines of a group.
_RULE_LINE = re.compile(rb"^[ \t\v\f]*" + _RULE_KEYS + _COLON_OR_TWO_WORDS, re.ASCII | re.MULTILINE)
# Lines read from the groups that apply to an agent: rules, and Crawl-delay (not a rule
# for Google, an "unknown" key that neither opens nor closes a group).
_GROUP_LINE = re.compile(
    rb"^[ \t\v\f]*(?:" + _RULE_KEYS + rb"|(?i:(crawl-delay)))" + _COLON_OR_TWO_WORDS,
    re.ASCII | re.MULTILINE,
)
_SITEMAP_LINE = re.compile(
    rb"[ \t\v\f]*(?i:sitemap|site-map)" + _COLON_OR_TWO_WORDS, re.ASCII | re.MULTILINE
)
# Google's ExtractUserAgent: the product token is the leading run of [a-zA-Z_-].
_TOKEN = re.compile(r"[A-Za-z_-]*")
_TOKEN_BYTES = re.compile(rb"[A-Za-z_-]*")
# A path ends where a fragment starts; the authority ends at the first of "/?;".
_AUTHORITY = re.compile(r"(?:[^/?;]*?://)?[^/?;]*")
_NUL_TO_EOL = re.compile(rb"\x00[^\n]*")
_ESCAPES = re.compile(rb"%([0-9A-Fa-f]{2})?|[\x80-\xff]")
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_MAX_CACHED_AGENTS = 64


@dataclass(frozen=True, slots=True)
class Rule:
    """One allow or disallow line of a group, its pattern normalised."""

    allow: bool
    pattern: str
    line: int | None

    def __str__(self) -> str:
        return f"{'Allow' if self.allow else 'Disallow'}: {self.pattern}"


@dataclass(frozen=True, slots=True)
class Decision:
    """The answer for one URL: allowed or not, and the rule that decided (None: no rule)."""

    allowed: bool
    line: int | None = None
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a URL got its answer: the group chosen and every rule of it that matched."""

    agent: str
    group: str  # "specific" (a group names the agent), "*", or "none"
    group_lines: tuple[int, ...]  # the user-agent lines of the chosen group(s)
    matches: tuple[Rule, ...]  # matching rules, in file order
    decision: Decision


# ---------------------------------------------------------------------------------------
# Percent-encoding and paths


def _escape_repl(m: re.Match[bytes]) -> bytes:
    hexpair = m.group(1)
    if hexpair is None:
        char = m.group()
        # A "%" not followed by two hex digits can only be a literal percent sign.
        return b"%25" if char == b"%" else b"%%%02X" % char[0]
    octet = int(hexpair, 16)
    if octet in _UNRESERVED:
        # RFC 9309 2.2.2 and RFC 3986 2.3: %XX of an unreserved character is that
        # character. Google's parser compares "%62" and "b" as different; we do not.
        return bytes((octet,))
    return b"%" + hexpair.upper()


def _normalize_bytes(raw: bytes) -> str:
    """Canonical ASCII form of a path or pattern given as octets."""
    if raw.isascii() and b"%" not in raw:
        return raw.decode("ascii")
    return _ESCAPES.sub(_escape_repl, raw).decode("ascii")


def normalize_path(path: str) -> str:
    """Canonical form used on both sides of a comparison.

    Non-ASCII characters become %XX of their UTF-8 octets, %xx hex is upper-cased, %XX of
    an unreserved character (A-Z a-z 0-9 - . _ ~) is decoded, and a "%" that starts no
    escape becomes "%25". ``normalize_path("/caf%c3%a9/%7Euser") == "/caf%C3%A9/~user"``.
    """
    if path.isascii() and "%" not in path:
        return path
    return _normalize_bytes(_utf8(path))


def _path_of(url: str) -> str:
    """Path, params and query of ``url``, fragment dropped, always starting with "/".

    Same cases as Google's GetPathParamsQuery: an absolute URL, a bare path, or
    "host/path"; "//host/path" is scheme-relative; no path at all means "/".
    """
    if url[:1] == "/" and url[1:2] != "/":
        end = url.find("#")
        return url if end < 0 else url[:end]
    start = 2 if url[:2] == "//" else 0
    path_start = _AUTHORITY.match(url, start).end()  # type: ignore[union-attr]
    if path_start >= len(url):
        return "/"
    end = url.find("#", start)
    if 0 <= end < path_start:
        return "/"
    path = url[path_start:] if end < 0 else url[path_start:end]
    return path if path[0] == "/" else "/" + path


def product_token(user_agent: str) -> str:
    """The product token of a User-Agent string, lower-cased: "MyBot/1.2 (+x)" -> "mybot"."""
    return _TOKEN.match(user_agent.lstrip()).group().lower()  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------
# Matching one pattern


def _compile(pattern: str) -> tuple[str, tuple[str, ...] | None, bool]:
    """(literal prefix, pieces after the prefix or None if plain, anchored at the end)."""
    anchored = pattern.endswith("$")  # "$" is special only as the last character
    body = pattern[:-1] if anchored else pattern
    if "*" not in body and not anchored:
        return body, None, False
    pieces = body.split("*")
    return pieces[0], tuple(pieces[1:]), anchored


def _glob(path: str, start: int, pieces: tuple[str, ...], anchored: bool) -> bool:
    """Match ``pieces`` (split on "*") against ``path[start:]``; path[:start] already matched.

    Greedy leftmost placement of each literal piece is enough for "*" globbing, and each
    ``str.find`` is linear, so no input can make this backtrack.
    """
    if not pieces:  # pattern "literal$"
        return len(path) == start
    last = pieces[-1]
    pos = start
    for piece in pieces[:-1]:
        if piece:
            found = path.find(piece, pos)
            if found < 0:
                return False
            pos = found + len(piece)
    if anchored:
        return path.endswith(last) and len(path) - len(last) >= pos
    return not last or path.find(last, pos) >= 0


def pattern_matches(path: str, pattern: str) -> bool:
    """Whether a normalised robots.txt ``pattern`` matches a normalised URL ``path``.

    Anchored at the start; "*" matches any run of characters, a final "$" anchors the
    end. ``pattern_matches("/a/x.php", "/*.php$") is True``.
    """
    prefix, pieces, anchored = _compile(pattern)
    if not path.startswith(prefix):
        return False
    return pieces is None or _glob(path, len(prefix), pieces, anchored)


# ---------------------------------------------------------------------------------------
# The rules of the group(s) that apply to one agent


class _Matcher:
    """Longest match wins, allow wins ties, the earliest line wins among equals.

    Rules are indexed by their literal prefix (the text before the first "*" or the
    final "$"). The prefixes are sorted; for each one ``parent`` is the longest other
    prefix that is a prefix of it. Every prefix of a path in the sorted list is an
    ancestor of the last entry not greater than the path, so a query bisects once and
    walks up that chain, pruned by the best priority still reachable.
    """

    __slots__ = ("_entries", "_keys", "_parents", "_reach", "crawl_delay", "rules")

    def __init__(self, rules: list[Rule], crawl_delay: float | None = None) -> None:
        self.rules = tuple(rules)  # file order, for explanations
        self.crawl_delay = crawl_delay
        by_prefix: dict[str, list[tuple[int, bool, int, tuple[str, ...] | None, bool, Rule]]] = {}
        for rule in rules:
            prefix, pieces, anchored = _compile(rule.pattern)
            entry = (len(rule.pattern), rule.allow, rule.line or 0, pieces, anchored, rule)
            by_prefix.setdefault(prefix, []).append(entry)
        keys = sorted(by_prefix)
        parents: list[int] = []
        reach: list[int] = []
        entries = []
        stack: list[int] = []
        for index, key in enumerate(keys):
            while stack and not key.startswith(keys[stack[-1]]):
                stack.pop()
            parent = stack[-1] if stack else -1
            # Best first: longest pattern, then allow, then earliest line.
            group = sorted(by_prefix[key], key=lambda e: (-e[0], not e[1], e[2]))
            top = group[0][0]
            parents.append(parent)
            reach.append(max(top, reach[parent]) if parent >= 0 else top)
            entries.append(tuple(group))
            stack.append(index)
        self._keys = keys
        self._parents = parents
        self._reach = reach
        self._entries = entries

    def best(self, path: str) -> Rule | None:
        """The deciding rule for a normalised path, or None when no rule matches."""
        keys = self._keys
        index = bisect_right(keys, path) - 1
        if index < 0:
            return None
        parents = self._parents
        reach = self._reach
        best = None
        best_prio = 0
        while index >= 0:
            if best is not None and reach[index] < best_prio:
                break
            key = keys[index]
            if path.startswith(key):
                for entry in self._entries[index]:
                    prio = entry[0]
                    if best is not None and prio < best_prio:
                        break
                    pieces = entry[3]
                    if pieces is None or _glob(path, len(key), pieces, entry[4]):
                        if (
                            best is None
                            or prio > best_prio
                            or (entry[1] and not best[1])
                            or (entry[1] == best[1] and entry[2] < best[2])
                        ):
                            best = entry
                            best_prio = prio
                        break
            index = parents[index]
        return None if best is None else best[5]

    def allowed(self, path: str) -> bool:
        best = self.best(path)
        return best is None or best.allow


_NO_RULES = _Matcher([])
_DISALLOW_EVERYTHING = _Matcher([Rule(False, "/", None)])


# ---------------------------------------------------------------------------------------
# Reading the file


def _prepare(content: bytes | str) -> bytes:
    """The octets Google's line reader would see, with every line break turned into "\\n"."""
    if isinstance(content, str):
        content = _utf8(content)
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


def _words_value(m: re.Match[bytes]) -> bytes:
    """The stripped value of a line matched with _COLON_OR_TWO_WORDS (groups -2 and -1)."""
    value = m.group(m.re.groups - 1)
    if value is None:
        value = m.group(m.re.groups)
    return value.strip()


def _scan(
    data: bytes,
    lowered: bytes,
    needle: bytes,
    line_re: re.Pattern[bytes],
    start: int = 0,
    stop: int = -1,
) -> Iterator[tuple[re.Match[bytes], int]]:
    """(match, end of line) for the lines matching ``line_re`` that contain ``needle``.

    ``bytes.find`` of a keyword the line must contain skips the other lines at C speed;
    the regular expression then runs only at the start of the few candidate lines.
    """
    if stop < 0:
        stop = len(data)
    found = lowered.find(needle, start, stop)
    while found >= 0:
        line_start = data.rfind(b"\n", 0, found) + 1
        line_end = data.find(b"\n", found, stop)
        if line_end < 0:
            line_end = stop
        m = line_re.match(data, line_start, line_end)
        if m is not None:
            yield m, line_end
        found = lowered.find(needle, line_end, stop)


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8", "surrogateescape")  # bytes decoded with surrogateescape
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


_HIGH_OCTET = re.compile(rb"[\x80-\xff]")


def _sitemap_url(value: bytes) -> str:
    """A Sitemap value as text; octets that are not UTF-8 are percent-encoded."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return _HIGH_OCTET.sub(lambda m: b"%%%02X" % m.group()[0], value).decode("ascii")


class RobotsTxt:
    """A parsed robots.txt. Build with ``RobotsTxt.parse``; query with ``allowed``/``decide``."""

    __slots__ = ("_agents", "_data", "_fallback", "_groups", "_matchers", "_sitemaps", "_star")

    def __init__(
        self,
        data: bytes = b"",
        groups: list[tuple[int, int, int]] | None = None,
        agents: dict[str, list[int]] | None = None,
        star: list[int] | None = None,
        fallback: _Matcher = _NO_RULES,
    ) -> None:
        self._data = data
        self._groups = groups or []  # (start of first user-agent line, body start, end)
        self._agents = agents or {}  # product token -> indexes of the groups naming it
        self._star = star or []  # indexes of the groups naming "*"
        self._fallback = fallback  # what applies when no group does
        self._matchers: dict[str | None, _Matcher] = {}
        self._sitemaps: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, content: bytes | str) -> RobotsTxt:
        """Parse a robots.txt body. Never raises: whatever is not a valid line is skipped."""
        data = _prepare(content)
        groups: list[tuple[int, int, int]] = []
        agents: dict[str, list[int]] = {}
        star: list[int] = []
        group_start = body_start = -1
        for m, line_end in _scan(data, data.lower(), b"agent", _UA_LINE):
            value = m.group(1)
            if value is None:
                value = m.group(2)
                if not value.strip():
                    continue  # "user-agent \v": one word after stripping, not a line
            value = value.strip()
            line_start = m.start()
            if body_start < 0 or _RULE_LINE.search(data, body_start, line_start):
                # A user-agent line after a rule line starts a new group; sitemap and
                # unknown lines do not close the user-agent run (Google, RFC 9309 2.1).
                if body_start >= 0:
                    groups.append((group_start, body_start, line_start))
                group_start = line_start
            body_start = line_end + 1
            index = len(groups)
            # Google-specific: "*" followed by whitespace and anything is still "*".
            if value[:1] == b"*" and (len(value) == 1 or value[1:2].isspace()):
                if not star or star[-1] != index:
                    star.append(index)
                continue
            token = _TOKEN_BYTES.match(value).group().lower().decode("ascii")  # type: ignore[union-attr]
            if token:
                named = agents.setdefault(token, [])
                if not named or named[-1] != index:
                    named.append(index)
        if body_start >= 0:
            groups.append((group_start, min(body_start, len(data)), len(data)))
        return cls(data, groups, agents, star)

    @classmethod
    def allow_all(cls) -> RobotsTxt:
        """What a 4xx answer means: no robots.txt, every URL allowed."""
        return _ALLOW_ALL

    @classmethod
    def disallow_all(cls) -> RobotsTxt:
        """What an unreachable robots.txt (5xx, network error) means: nothing allowed."""
        return _DISALLOW_ALL

    # -- questions ---------------------------------------------------------------------

    def allowed(self, url: str, user_agent: str) -> bool:
        """Whether ``user_agent`` (a product token or a full User-Agent) may fetch ``url``."""
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        best = matcher.best(normalize_path(_path_of(url)))
        return best is None or best.allow

    def decide(self, url: str, user_agent: str) -> Decision:
        """Like ``allowed``, with the line and rule that decided (None when no rule did)."""
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        best = matcher.best(normalize_path(_path_of(url)))
        if best is None:
            return Decision(True)
        return Decision(best.allow, best.line, str(best))

    def explain(self, url: str, user_agent: str) -> Explanation:
        """The group chosen for ``user_agent`` and every rule of it matching ``url``."""
        token = product_token(user_agent)
        indexes = self._agents.get(token) if token else None
        kind = "specific" if indexes else ("*" if self._star else "none")
        if not indexes:
            indexes = self._star
        data = self._data
        lowered = data.lower()
        lines = []
        for index in indexes:
            start, body, _ = self._groups[index]
            lines.extend(
                data.count(b"\n", 0, m.start()) + 1
                for m, _ in _scan(data, lowered, b"agent", _UA_LINE, start, body)
            )
        path = normalize_path(_path_of(url))
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        matches = tuple(rule for rule in matcher.rules if _rule_matches(path, rule))
        return Explanation(token, kind, tuple(lines), matches, self.decide(url, user_agent))

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """Every Sitemap value, in file order, wherever it stands in the file."""
        if self._sitemaps is None:
            found = []
            for m, _ in _scan(self._data, self._data.lower(), b"site", _SITEMAP_LINE):
                value = _words_value(m)
                if value:
                    found.append(_sitemap_url(value))
            self._sitemaps = tuple(found)
        return self._sitemaps

    def crawl_delay(self, user_agent: str) -> float | None:
        """Crawl-delay of the group that applies to ``user_agent``, in seconds, or None."""
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        return matcher.crawl_delay

    # -- building matchers ---------------------------------------------------------------

    def _matcher_for(self, user_agent: str) -> _Matcher:
        token = product_token(user_agent)
        key: str | None = token if token and token in self._agents else None
        matcher = self._matchers.get(key) if key is not None else self._matchers.get("*")
        if matcher is None:
            if key is not None:
                matcher = self._build(self._agents[key])
            elif self._star:
                matcher = self._build(self._star)
            else:
                matcher = self._fallback
            self._matchers[key if key is not None else "*"] = matcher
        if len(self._matchers) < _MAX_CACHED_AGENTS:
            self._matchers[user_agent] = matcher
        return matcher

    def _build(self, indexes: list[int]) -> _Matcher:
        """Read the rule lines of the given groups (merged, in file order)."""
        data = self._data
        rules: list[Rule] = []
        delay: float | None = None
        pos, line = 0, 1
        for index in indexes:
            start, _, end = self._groups[index]
            for m in _GROUP_LINE.finditer(data, start, end):
                line += data.count(b"\n", pos, m.start())
                pos = m.start()
                value = _words_value(m)
                if m.group(3) is not None:
                    if delay is None:
                        delay = _parse_delay(value)
                    continue
                if not value:
                    continue  # an empty rule matches nothing (Google: priority 0)
                allow = m.group(1) is not None
                pattern = _normalize_bytes(value)
                rules.append(Rule(allow, pattern, line))
                if allow:
                    slash = pattern.rfind("/")
                    if slash >= 0 and pattern.startswith("/index.htm", slash):
                        # Google-specific: allowing ".../index.htm(l)" also allows the
                        # directory itself, ".../" exactly.
                        rules.append(Rule(True, pattern[: slash + 1] + "$", line))
        return _Matcher(rules, delay) if rules or delay is not None else _NO_RULES


def _rule_matches(path: str, rule: Rule) -> bool:
    return pattern_matches(path, rule.pattern)


def _parse_delay(value: bytes) -> float | None:
    try:
        delay = float(value)
    except ValueError:
        return None
    return delay if math.isfinite(delay) and delay >= 0 else None


_ALLOW_ALL = RobotsTxt()
_DISALLOW_ALL = RobotsTxt(fallback=_DISALLOW_EVERYTHING)
