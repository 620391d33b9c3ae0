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
  as a group of ten. Rules sharing one prefix by the hundred (``/*q1`` ... ``/*q40000``)
  are indexed again by a rare gram of their literal pieces (``_Crowd``).

Matching never uses a regular expression: ``*`` is handled by greedy leftmost
``str.find`` of the literal pieces, which is linear-ish in the URL and pattern lengths.

Where Google's parser and RFC 9309 disagree, Google wins, except for percent-encoding,
where RFC 9309 sections 2.2.2 and 2.2.3 are followed (see ``normalize_path``), and for
the 500 KiB limit, which Google's open-source parser does not apply. Which crawler a
user-agent line names goes beyond Google's rule (see ``_name_fits``): names with digits
or dots, the cut of the crawler's name, several names on one line. No path is special
here: "/robots.txt" is matched like any other, as Google does; RFC 9309's "the
/robots.txt URI is implicitly allowed" is for the code that fetches it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .lines import BLANKS, MAX_BYTES, MAX_LINE
from .lines import GROUP_LINE as _GROUP_LINES
from .lines import RULE_LINE as _RULE_LINE
from .lines import SITEMAP_LINE as _SITEMAP_LINE
from .lines import USER_AGENT_LINE as _UA_LINE
from .lines import lowered as _lowered
from .lines import prepare as _prepare
from .lines import scan as _scan
from .lines import utf8 as _utf8
from .matcher import DISALLOW_EVERYTHING as _DISALLOW_EVERYTHING
from .matcher import NO_RULES as _NO_RULES
from .matcher import Decision, Rule
from .matcher import Matcher as _Matcher
from .matcher import as_decision as _as_decision
from .patterns import PLAIN as _PLAIN
from .patterns import Entry as _Entry
from .patterns import compile_rule, normalize_path, normalize_pattern, pattern_matches
from .patterns import split_url as _split_url

__all__ = [
    "MAX_BYTES",
    "MAX_LINE",
    "Decision",
    "Explanation",
    "RobotsTxt",
    "Rule",
    "normalize_path",
    "normalize_pattern",
    "pattern_matches",
    "product_token",
]


# A crawler's product token: its User-Agent up to the first "/", whitespace, ";", "(" or ")".
_TOKEN = re.compile(r"[^/\s;()]*")
# A browser-style User-Agent, "Mozilla/5.0 (compatible; MyBot/1.0; +https://x)", names the
# crawler as the first item after "compatible;": one word, then "/", ";" or ")" ("MSIE 9.0"
# names a browser, not a crawler).
_COMPATIBLE = re.compile(r"[(;]\s*compatible\s*;\s*([^/\s;()]+)\s*(?:[/;)]|$)", re.IGNORECASE)
# Google's ExtractUserAgent cut of a user-agent value: its leading run of [a-zA-Z_-]
# (``_UA_LINE`` captures it for the first name of a line; this is the same cut of the
# other names and of a crawler's token).
_GOOGLE_CUT = re.compile(rb"[a-z_-]*")
# What follows Google's cut in the whole first name of a user-agent value: up to
# whitespace, "/" or a comment ("MJ12bot/1.0" -> "mj12bot").
_NAME_REST = re.compile(rb"[^\s/#]*")
_MAX_CACHED_AGENTS = 64
# The key of ``RobotsTxt._agents`` listing the groups with a user-agent line of several
# names; no name's cut holds a space.
_SEVERAL = b" "


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a URL got its answer: the group chosen and every rule of it that matched."""

    agent: str
    group: str  # "specific" (a group names the agent), "*", or "none"
    group_lines: tuple[int, ...]  # the user-agent lines of the chosen group(s)
    matches: tuple[Rule, ...]  # matching rules, in file order
    decision: Decision


def product_token(user_agent: str) -> str:
    """The crawler's name in a User-Agent string, lower-cased: "MyBot/1.2 (+x)" -> "mybot".

    The one definition used for robots.txt groups, meta tags, X-Robots-Tag and contracts.
    The name is kept whole, digits and dots included ("MJ12bot/1.0" -> "mj12bot",
    "archive.org_bot" stays whole): meta tags and X-Robots-Tag compare it whole; a
    robots.txt user-agent line names it in the three ways of ``_name_fits`` ("mj12bot",
    "mj12bot/1.0" and "mj", Google's cut of it, all do). A browser-style "Mozilla/5.0
    (compatible; MyBot/1.0; ...)" names its crawler after "compatible;" -> "mybot";
    without such an item the answer is "mozilla", a browser's name (``useragent.py`` warns
    about it). "*" is no crawler's name (it means every crawler): "".
    """
    token = _TOKEN.match(user_agent.lstrip()).group().lower()  # type: ignore[union-attr]
    if token == "mozilla":
        named = _COMPATIBLE.search(user_agent)
        if named is not None:
            return named.group(1).lower()
    elif token == "*":
        return ""
    return token


def _names(lowered: bytes, m: re.Match[bytes], token: bytes | None) -> bool:
    """Whether a ``_UA_LINE`` match in ``lowered`` names ``token`` (None: is a "*" line).

    A line names the token when one of its names does (``_name_fits``): the value up to a
    comment, split on whitespace ("User-agent: Agent2 Agent3" names both), unless it
    starts with a "*" name, the global group only. Google's rule, the first name's cut
    equal to the token, is tried first; names are only read whole when it fails.
    """
    cut = m.group(2)
    if token is None or cut is None:
        return token is None and m.group(1) is not None
    if cut == token:
        return True
    rest = _NAME_REST.match(lowered, m.end(2)).group()  # type: ignore[union-attr]
    if _name_fits(cut + rest, len(cut), token):
        return True
    more = m.start(3)
    if more < 0:
        return False
    for word in lowered[more : m.end()].partition(b"#")[0].split():
        name = word.partition(b"/")[0]
        if _name_fits(name, _GOOGLE_CUT.match(name).end(), token):  # type: ignore[union-attr]
            return True
    return False


def _name_fits(name: bytes, cut: int, token: bytes) -> bool:
    """Whether one name of a user-agent line (lower-cased, up to "/") names ``token``.

    ``cut`` is the length of the name's leading run of [a-z_-], Google's cut. Three ways,
    the table of README "Which user agent": Google's cut of the name is the token
    ("googlebot/1.2", "googlebot*", even "googlebot2" name "googlebot"); the name is the
    token ("mj12bot", "archive.org_bot", which Google's rule never lets obey a group); the
    name is Google's cut of the token ("hedwig-news" names "hedwig-news2", "mj" names
    "mj12bot"). For a token of [a-z_-] only the last two say nothing the first does not:
    for such crawlers our answers differ from Google's only on lines of several names,
    where Google reads the first. An empty name names nobody.
    """
    if name == token or name[:cut] == token:
        return bool(token)
    # The name is the token's cut: all of it [a-z_-], and the token goes on with another
    # character.
    return (
        0 < cut == len(name) < len(token)
        and token.startswith(name)
        and _GOOGLE_CUT.match(token, cut).end() == cut  # type: ignore[union-attr]
    )


def _add(
    by_prefix: dict[str, _Entry],
    crowded: dict[str, list[_Entry]],
    pattern: str,
    allow: bool,
    line: int,
) -> None:
    """Index one normalised rule by its literal prefix."""
    prefix, entry = compile_rule(pattern, allow, line)
    if by_prefix.setdefault(prefix, entry) is not entry:
        _crowd(by_prefix, crowded, prefix, entry)


def _crowd(
    by_prefix: dict[str, _Entry], crowded: dict[str, list[_Entry]], prefix: str, entry: _Entry
) -> None:
    """Another rule for a prefix already in ``by_prefix`` (one rule each is the usual case)."""
    same = crowded.get(prefix)
    if same is None:
        crowded[prefix] = [by_prefix[prefix], entry]
    else:
        same.append(entry)


_HIGH_OCTET = re.compile(rb"[\x80-\xff]")


def _sitemap_url(value: bytes) -> str:
    """A Sitemap value as text; octets that are not UTF-8 are percent-encoded."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return _HIGH_OCTET.sub(lambda m: b"%%%02X" % m.group()[0], value).decode("ascii")


def _parse_delay(value: bytes) -> float | None:
    try:
        delay = float(value)
    except ValueError:
        return None
    return delay if math.isfinite(delay) and delay >= 0 else None


class RobotsTxt:
    """A parsed robots.txt. Build with ``RobotsTxt.parse``; query with ``allowed``/``decide``."""

    __slots__ = (
        "_agents",
        "_data",
        "_fallback",
        "_groups",
        "_matchers",
        "_origin",
        "_sitemaps",
        "_star",
    )

    def __init__(
        self,
        data: bytes = b"",
        groups: list[tuple[int, int, int]] | None = None,
        agents: dict[bytes, list[int]] | None = None,
        star: list[int] | None = None,
        fallback: _Matcher = _NO_RULES,
    ) -> None:
        self._data = data
        # Per group: (start of its first user-agent line, where its rule lines may start,
        # end): rules follow the user-agent lines, unless other lines stand among those.
        self._groups = groups or []
        # Google's cut of a user-agent name (lower-cased) -> the groups naming it. Parsing
        # indexes the first name of each line; the groups with lines of several names
        # ("Agent2 Agent3") are listed under _SEVERAL until a question needs their other
        # names (``_index_later_names``).
        self._agents = agents or {}
        self._star = star or []  # indexes of the groups naming "*"
        self._fallback = fallback  # what applies when no group does
        self._matchers: dict[str | bytes | None, _Matcher] = {}
        self._sitemaps: tuple[str, ...] | None = None
        # "scheme://authority/" of the last URL asked about: one robots.txt serves one
        # origin, so the next URL almost always starts with it and its path is a slice.
        self._origin = ""

    @classmethod
    def parse(cls, content: bytes | str) -> RobotsTxt:
        """Parse a robots.txt body. Never raises: whatever is not a valid line is skipped."""
        data = _prepare(content)
        lowered = _lowered(data)
        groups: list[tuple[int, int, int]] = []
        agents: dict[bytes, list[int]] = {}
        star: list[int] = []
        group_start = body_start = -1
        interrupted = False  # other lines (Crawl-delay...) among the user-agent lines
        search_rule = _RULE_LINE.search
        # In ``lowered`` a line starting at offset i of ``data`` follows the "\n" at i,
        # and ends at the same offset where ``data`` has its "\n" plus one.
        for m in _UA_LINE.finditer(lowered):
            line_start = m.start()
            if body_start < 0:
                group_start = line_start
            elif line_start != body_start:
                if search_rule(lowered, body_start, line_start):
                    # A user-agent line after a rule line starts a new group; sitemap
                    # and unknown lines do not end the run of user-agent lines.
                    groups.append(
                        (group_start, group_start if interrupted else body_start, line_start)
                    )
                    group_start = line_start
                    interrupted = False
                else:
                    interrupted = True
            body_start = m.end()
            index = len(groups)
            is_star, token, more = m.groups()
            if is_star:
                if not star or star[-1] != index:
                    star.append(index)
            elif token is not None:
                # Indexed by Google's cut, even an empty one ("12bot"): the whole name is
                # only read for the few crawlers that ask for it (see ``_groups_naming``).
                named = agents.get(token)
                if named is None:
                    agents[token] = [index]
                elif named[-1] != index:
                    named.append(index)
                if more is not None:
                    # Names after the first: indexed when a question needs them.
                    named = agents.get(_SEVERAL)
                    if named is None:
                        agents[_SEVERAL] = [index]
                    elif named[-1] != index:
                        named.append(index)
        if body_start >= 0:
            rules_start = group_start if interrupted else min(body_start, len(data))
            groups.append((group_start, rules_start, len(data)))
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
        best = matcher.best(self._path(url))
        return best is None or best[1]

    def decide(self, url: str, user_agent: str) -> Decision:
        """Like ``allowed``, with the line and rule that decided (None when no rule did)."""
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        return _as_decision(matcher.best(self._path(url)))

    def explain(self, url: str, user_agent: str) -> Explanation:
        """The group chosen for ``user_agent`` and every rule of it matching ``url``."""
        token = product_token(user_agent)
        indexes = self._groups_naming(_utf8(token))
        kind = "specific" if indexes else ("*" if self._star else "none")
        if not indexes:
            indexes = self._star
        data = self._data
        lowered = _lowered(data)
        lines = []
        line, counted = 1, 0  # line numbers counted on from the last one: linear in the file
        for index in indexes:
            start, _, end = self._groups[index]
            for m in _UA_LINE.finditer(lowered, start, end):
                line += data.count(b"\n", counted, m.start())
                counted = m.start()
                lines.append(line)
        path = self._path(url)
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        matches = tuple(
            Rule(e[1], e[6], e[2] or None)
            for e in sorted(matcher.matching(path), key=lambda entry: (entry[2], entry[6]))
        )
        decision = _as_decision(matcher.best(path))
        return Explanation(token, kind, tuple(lines), matches, decision)

    @property
    def group_count(self) -> int:
        """How many groups (runs of user-agent lines and their rules) the file has."""
        return len(self._groups)

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """Every Sitemap value, in file order, wherever it stands in the file."""
        if self._sitemaps is None:
            found = []
            for m in _scan(self._data, b"site", _SITEMAP_LINE):
                value = m.group(1).rstrip(BLANKS.encode())
                if value:
                    found.append(_sitemap_url(value))
            self._sitemaps = tuple(found)
        return self._sitemaps

    def crawl_delay(self, user_agent: str) -> float | None:
        """Crawl-delay of the group that applies to ``user_agent``, in seconds, or None."""
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        return matcher.crawl_delay

    def _path(self, url: str) -> str:
        """The normalised path, params and query of ``url`` (see ``_split_url``)."""
        origin = self._origin
        if origin and url.startswith(origin):
            # Same scheme and authority as last time, and a "/" right after them: the
            # general parse would find the path exactly here.
            path = url[len(origin) - 1 :]
            if "#" in path:
                path = path[: path.find("#")]
        else:
            path, start = _split_url(url)
            if start > 0 and url[start] == "/" and "#" not in url[:start]:
                self._origin = url[: start + 1]
        if path.isascii() and "%" not in path and "*" not in path and "$" not in path:
            return path
        return normalize_path(path)

    # -- building matchers ---------------------------------------------------------------

    def _matcher_for(self, user_agent: str) -> _Matcher:
        name = product_token(user_agent)
        token = name.encode() if name.isascii() else _utf8(name)
        matcher = self._matchers.get(token)
        if matcher is None:
            indexes = self._groups_naming(token)
            if indexes:
                # One per named token (the file's names bound them): the Crawl-delay of a
                # group may differ between the agents it names.
                matcher = self._build(indexes, token)
            else:
                matcher = self._matchers.get(None)
                if matcher is None:
                    matcher = self._build(self._star, None) if self._star else self._fallback
                    self._matchers[None] = matcher
            if indexes or len(self._matchers) < _MAX_CACHED_AGENTS:
                self._matchers[token] = matcher
        if len(self._matchers) < _MAX_CACHED_AGENTS:
            self._matchers[user_agent] = matcher
        return matcher

    def _groups_naming(self, token: bytes) -> list[int]:
        """The groups with a user-agent line naming the crawler's ``token`` (see ``_names``).

        Every way a name can name a token needs the name's Google cut to equal the
        token's: the groups are among those indexed under the token's cut.
        """
        if not token:
            return []
        if _SEVERAL in self._agents:
            self._index_later_names()
        indexes = self._agents.get(token)
        if indexes is not None:
            return indexes  # a key is Google's cut of a name: [a-z_-] only, its rule
        cut = _GOOGLE_CUT.match(token).group()  # type: ignore[union-attr]
        if cut == token:
            return []
        indexes = self._agents.get(cut)
        if not indexes:
            return []
        # A token with other characters than [a-z_-]: only names of the same cut can name
        # it, whole or as its cut; read those groups' user-agent lines (``_matcher_for``
        # keeps the answer).
        return [index for index in indexes if self._first_naming(index, token) >= 0]

    def _index_later_names(self) -> None:
        """Index the names after the first of each user-agent line by their Google cut.

        Done once, before the first question is answered, for the few files with lines of
        several names: ``parse`` only listed their groups (under _SEVERAL).
        """
        agents = self._agents
        later: dict[bytes, set[int]] = {}
        data = self._data
        for index in agents.pop(_SEVERAL):
            start, _, end = self._groups[index]
            lowered = _lowered(data[start:end])
            for m in _UA_LINE.finditer(lowered):
                more = m.start(3)
                if more >= 0:
                    for name in lowered[more : m.end()].partition(b"#")[0].split():
                        cut = _GOOGLE_CUT.match(name).group()  # type: ignore[union-attr]
                        later.setdefault(cut, set()).add(index)
        for cut, indexes in later.items():
            agents[cut] = sorted(indexes.union(agents.get(cut, ())))

    def _first_naming(self, index: int, token: bytes | None) -> int:
        """Where the first user-agent line of group ``index`` naming ``token`` starts, or -1."""
        start, _, end = self._groups[index]
        lowered = _lowered(self._data[start:end])
        for m in _UA_LINE.finditer(lowered):
            if _names(lowered, m, token):
                return start + m.start()
        return -1

    def _build(self, indexes: list[int], token: bytes | None) -> _Matcher:
        """Read the rule lines of the given groups (merged, in file order) for ``token``."""
        data = self._data
        by_prefix: dict[str, _Entry] = {}
        crowded: dict[str, list[_Entry]] = {}
        delay: float | None = None
        pos, first_line = 0, 1
        for index in indexes:
            group_start, start, end = self._groups[index]
            first_line += data.count(b"\n", pos, start)
            pos = start
            # Crawl-delay lines may stand among a group's user-agent lines (they do not end
            # the run, and then the group is read from its start): each agent takes the
            # first one after its own user-agent line, "User-agent: a / Crawl-delay: 1 /
            # User-agent: b / Crawl-delay: 2" gives b 2 seconds. Found when needed.
            delay_after: int | None = 0 if start != group_start else None
            text = data[start:end].decode("latin-1")
            # Without "%" or non-ASCII octets, only a "$" before the end needs normalising.
            plain = text.isascii() and "%" not in text
            # One tuple per line, so a rule's line number is its position in the list.
            lines = _GROUP_LINES.findall(text)
            for line, (allow_key, delay_key, value) in enumerate(lines, first_line):
                value = value.rstrip(BLANKS)
                if not value:
                    continue  # not a rule, or an empty one (Google: matches nothing)
                if delay_key:
                    if delay is None:
                        if delay_after is None:
                            named = max(self._first_naming(index, token), start)
                            delay_after = first_line + data.count(b"\n", start, named)
                        if line > delay_after:
                            delay = _parse_delay(value.encode("latin-1"))
                    continue
                if (not plain and (not value.isascii() or "%" in value)) or (
                    "$" in value and "$" in value[:-1]
                ):
                    pattern = normalize_pattern(value.encode("latin-1"))
                else:
                    pattern = value
                allow = allow_key != ""
                if "*" in pattern or "$" in pattern:
                    _add(by_prefix, crowded, pattern, allow, line)
                else:
                    entry = (len(pattern), allow, line, _PLAIN, "", (), pattern)
                    if by_prefix.setdefault(pattern, entry) is not entry:
                        _crowd(by_prefix, crowded, pattern, entry)
                if allow and "/index.htm" in pattern:
                    slash = pattern.rfind("/")
                    if pattern.startswith("/index.htm", slash):
                        # Google-specific: allowing ".../index.htm(l)" also allows the
                        # directory itself, ".../" exactly.
                        _add(by_prefix, crowded, pattern[: slash + 1] + "$", True, line)
        if not by_prefix and delay is None:
            return _NO_RULES
        return _Matcher(by_prefix, crowded, delay)


_ALLOW_ALL = RobotsTxt()
_DISALLOW_ALL = RobotsTxt(fallback=_DISALLOW_EVERYTHING)
