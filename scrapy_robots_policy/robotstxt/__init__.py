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
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import chain

from .lines import BLANKS, MAX_BYTES, MAX_LINE
from .lines import GROUP_LINE as _GROUP_LINES
from .lines import RULE_LINE as _RULE_LINE
from .lines import SITEMAP_LINE as _SITEMAP_LINE
from .lines import USER_AGENT_LINE as _UA_LINE
from .lines import lowered as _lowered
from .lines import prepare as _prepare
from .lines import scan as _scan
from .lines import utf8 as _utf8
from .patterns import ENDS as _ENDS
from .patterns import FIND as _FIND
from .patterns import GLOB_ENDS as _GLOB_ENDS
from .patterns import PLAIN as _PLAIN
from .patterns import compile_pattern as _compile
from .patterns import normalize_path, normalize_pattern, pattern_matches
from .patterns import split_url as _split_url
from .patterns import tail_matches as _tail_matches

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


# ---------------------------------------------------------------------------------------
# The rules of the group(s) that apply to one agent

# One rule inside a _Matcher: (priority, allow, line, kind, last piece, middle pieces,
# normalised pattern). Priority is the pattern's length, as in Google's parser.
_Entry = tuple[int, bool, int, int, str, "tuple[str, ...]", str]

#: From this many rules on one literal prefix, they may be indexed by a ``_Crowd``; fewer
#: are always tried in turn.
_CROWD = 16
#: The index answers a question when trying the rules in turn would cost more: when
#: (rules) x (rest of the path + 32) is above this. It is built the first time.
_LINEAR_WORK = 65_536
#: The same bound for the rules of all the uncrowded prefixes of a path together.
_SPREAD_WORK = 65_536
#: Up to this many keys of one width, ``key in path`` for each is cheaper than listing
#: every gram of the path (about 1 ns per character for ``in``, 30 for a gram).
_PROBE_KEYS = 32
#: Gram widths and the ``memoryview`` format that reads that many octets as one int.
_GRAM_CODES = {1: "B", 2: "H", 4: "I"}
#: A "$" rule is filed under at most this many last characters of its last piece.
_MAX_SUFFIX = 16


def _better(entry: _Entry, best: _Entry | None) -> bool:
    """Whether matching ``entry`` beats ``best``: longer, or as long and allow, or earlier."""
    if best is None or entry[0] != best[0]:
        return best is None or entry[0] > best[0]
    return (entry[1] and not best[1]) or (entry[1] == best[1] and entry[2] < best[2])


def _keys(entry: _Entry) -> list[str]:
    """What a rule's match requires after its prefix, each enough to find it by.

    Each gram (1, 2 or 4 characters) of a literal piece must occur in the path;
    for a "$" rule, "\n" + the end of its last piece must end the path ("\n" never
    occurs in a pattern, so the two kinds of key cannot collide). Empty: the rule matches
    whenever its prefix does (``/*``, ``/a*$``), or only the prefix itself (``/a$``).
    The suffix comes first: among keys as rare, the first is taken.
    """
    kind, last, middles = entry[3], entry[4], entry[5]
    keys = ["\n" + last[-_MAX_SUFFIX:]] if last and kind in (_ENDS, _GLOB_ENDS) else []
    for piece in (last, *middles):
        if piece:
            # Side by side, and one ending the piece: every character is in one, and a
            # long pattern costs no more grams than it has characters / width.
            width = 4 if len(piece) >= 4 else 2 if len(piece) >= 2 else 1
            keys.extend(piece[i : i + width] for i in range(0, len(piece) - width, width))
            keys.append(piece[-width:])
    return list(dict.fromkeys(keys)) if len(keys) > 1 else keys


# The rules filed under one key of a _Crowd, best first, each with the numbers of the
# grams it needs and its literal prefix.
_Filed = list[tuple[_Entry, tuple[int, ...], str]]


class _Crowd:
    """Many rules sharing one literal prefix (``/*q1`` ... ``/*q39999`` all start "/"), or
    the keyed rules of all the prefixes with few (``_Matcher._best_spread``).

    Tried in order, each would cost a ``str.find`` over the path. Instead each rule is
    filed under one key its match requires (see ``_keys``), the one fewest other rules
    share. A question first finds which grams of the rules' pieces the rest of the path
    holds, with one pass per gram width (the path's octets read through a ``memoryview``
    as 1-, 2- or 4-octet ints at each alignment, intersected with the rules' grams at C
    speed; or ``in`` for each gram when a width has few) and at most ``_MAX_SUFFIX``
    dictionary look-ups for the "$" rules. Only the rules filed under a key the path holds
    are looked at, best first, and only those whose every gram it holds are matched.
    The work per question is linear in the path, plus the rules sharing a key the path
    holds. Identical patterns are matched once (only the best of them can decide).
    """

    __slots__ = ("by_key", "grams", "suffixes", "unkeyed")

    def __init__(self, entries: tuple[_Entry, ...]) -> None:
        """``entries`` sorted best first (``_best_first``)."""
        unique: dict[str, _Entry] = {}
        for entry in entries:
            unique.setdefault(entry[6], entry)  # the first of each pattern is its best
        unkeyed: list[_Entry] = []
        keyed: list[tuple[_Entry, list[str]]] = []
        for entry in unique.values():
            keys = _keys(entry)
            if keys:
                keyed.append((entry, keys))
            else:
                unkeyed.append(entry)
        # Tried as a small group would be: the first that matches is their best.
        self.unkeyed = tuple(unkeyed)
        shared = Counter(chain.from_iterable(keys for _, keys in keyed))
        number = {key: n for n, key in enumerate(shared)}
        rarest = shared.__getitem__
        by_key: dict[int, _Filed] = {}
        for entry, keys in keyed:
            needs = tuple(number[key] for key in keys if key[0] != "\n")
            prefix = entry[6][: entry[6].find("*")]  # a rule with a key has a "*"
            # The key fewest rules share; each list stays best first.
            by_key.setdefault(number[min(keys, key=rarest)], []).append((entry, needs, prefix))
        grams: dict[int, dict[str, int]] = {}
        suffixes: dict[int, dict[str, int]] = {}
        for key, n in number.items():
            if key[0] != "\n":
                grams.setdefault(len(key), {})[key] = n
            elif n in by_key:
                suffixes.setdefault(len(key) - 1, {})[key[1:]] = n
        self.by_key = by_key
        self.grams = tuple(_gram_table(width, table) for width, table in sorted(grams.items()))
        self.suffixes = tuple(sorted(suffixes.items()))

    def present(self, rest: str) -> set[int]:
        """The numbers of the keys that ``rest`` holds."""
        found: set[int] = set()
        size = len(rest)
        octets: memoryview | None = None
        for width, probe, codes, by_code in self.grams:
            if width > size:
                continue
            if probe is not None:
                found.update(n for gram, n in probe if gram in rest)
                continue
            if octets is None:
                # Normalised paths are ASCII; "replace" keeps one octet per character.
                octets = memoryview(rest.encode("ascii", "replace"))
            fmt = _GRAM_CODES[width]
            for shift in range(width):
                end = shift + (size - shift) // width * width
                held = codes.intersection(octets[shift:end].cast(fmt))
                found.update(map(by_code.__getitem__, held))
        for width, by_suffix in self.suffixes:
            if width <= size:
                n = by_suffix.get(rest[-width:])
                if n is not None:
                    found.add(n)
        return found

    def candidates(self, rest: str) -> tuple[set[int], list[_Filed]]:
        """(keys ``rest`` holds, the lists of rules filed under them)."""
        found = self.present(rest)
        by_key = self.by_key
        return found, [by_key[n] for n in found if n in by_key]

    def best(self, path: str, start: int, best: _Entry | None) -> _Entry | None:
        """``best`` or a better rule of this crowd matching ``path`` past ``start``."""
        for entry in self.unkeyed:
            if best is not None and entry[0] < best[0]:
                break
            if _tail_matches(path, start, entry[3], entry[4], entry[5]):
                if _better(entry, best):
                    best = entry
                break  # the first that matches is the best of them
        found, lists = self.candidates(path[start:])
        lists.sort(key=_head_priority, reverse=True)
        holds_all = found.issuperset
        for same in lists:
            if best is not None and same[0][0][0] < best[0]:
                break  # every later list starts lower
            for entry, needs, prefix in same:
                if best is not None and entry[0] < best[0]:
                    break
                if (
                    holds_all(needs)
                    and path.startswith(prefix)
                    and _tail_matches(path, len(prefix), *entry[3:6])
                ):
                    if _better(entry, best):
                        best = entry
                    break  # the rest of this list is no better
        return best

    def matching(self, path: str, start: int, every: tuple[_Entry, ...]) -> list[_Entry]:
        """Those of ``every`` (the crowd's rules, duplicates included) matching ``path``
        past ``start``."""
        found, lists = self.candidates(path[start:])
        patterns = {e[6] for e in self.unkeyed if _tail_matches(path, start, e[3], e[4], e[5])}
        patterns.update(
            entry[6]
            for same in lists
            for entry, needs, prefix in same
            if found.issuperset(needs)
            and path.startswith(prefix)
            and _tail_matches(path, len(prefix), entry[3], entry[4], entry[5])
        )
        return [entry for entry in every if entry[6] in patterns]


# (width, (gram, number) pairs when few, else None; gram codes; numbers by gram code)
_GramTable = tuple[int, "tuple[tuple[str, int], ...] | None", frozenset[int], dict[int, int]]


def _gram_table(width: int, table: dict[str, int]) -> _GramTable:
    """How ``_Crowd.present`` finds the grams of one width: ``in`` each, or codes."""
    if len(table) <= _PROBE_KEYS:
        return width, tuple(table.items()), frozenset(), {}
    fmt = _GRAM_CODES[width]
    by_code = {
        memoryview(gram.encode("ascii", "replace")).cast(fmt)[0]: n for gram, n in table.items()
    }
    return width, None, frozenset(by_code), by_code


def _head_priority(same: _Filed) -> int:
    return same[0][0][0]


class _Matcher:
    """Longest match wins, allow wins ties, the earliest line wins among equals.

    Rules are indexed by their literal prefix (the text before the first "*" or the
    final "$"). The prefixes are sorted; for each one ``parents`` holds the longest other
    prefix that is a prefix of it. Every prefix of a path in the sorted list is an
    ancestor of the last entry not greater than the path (everything between a prefix
    and the path in sort order starts with that prefix), so a query bisects once and
    walks up that chain, stopping once no ancestor can hold a longer rule. The rules of
    one prefix are tried best first, or, when many would each cost a search of a long
    path, looked up in a ``_Crowd`` index built the first time it pays.
    """

    __slots__ = (
        "_crowds",
        "_entries",
        "_indexed",
        "_keys",
        "_long",
        "_longest",
        "_parents",
        "_reach",
        "crawl_delay",
    )

    def __init__(
        self,
        by_prefix: dict[str, _Entry],
        crowded: dict[str, list[_Entry]] | None = None,
        crawl_delay: float | None = None,
    ) -> None:
        """The rules by literal prefix: one in ``by_prefix``, all in ``crowded`` if several
        share it (see ``_add``)."""
        self.crawl_delay = crawl_delay
        keys = sorted(by_prefix)
        entries: list[tuple[_Entry, ...]] = list(zip(map(by_prefix.__getitem__, keys)))
        # Index of each prefix with enough rules for a _Crowd -> the length of the rest of
        # the path above which it answers (see _LINEAR_WORK); built on first use.
        crowds: dict[int, int] | None = None
        uncrowded = len(keys)  # rules of uncrowded prefixes
        if crowded:
            for prefix, same in crowded.items():
                same.sort(key=_best_first)
                index = bisect_left(keys, prefix)
                entries[index] = tuple(same)
                if len(same) >= _CROWD:
                    if crowds is None:
                        crowds = {}
                    crowds[index] = _LINEAR_WORK // len(same) - 32
                    uncrowded -= 1
                else:
                    uncrowded += len(same) - 1
        parents: list[int] = []
        reach: list[int] = []
        for index, key in enumerate(keys):
            # The prefixes of ``key`` in the list are the previous key and its ancestors
            # (everything between a prefix and ``key`` in sort order starts with it).
            parent = index - 1
            while parent >= 0 and not key.startswith(keys[parent]):
                parent = parents[parent]
            top = entries[index][0][0]
            if parent >= 0 and reach[parent] > top:
                top = reach[parent]
            parents.append(parent)
            reach.append(top)
        self._keys = keys
        self._parents = parents
        self._reach = reach  # the longest rule of a prefix and all its ancestors
        # Paths up to this long never have too many rules on their prefixes' chain to
        # try in turn (see ``_longest``).
        self._long = _SPREAD_WORK // uncrowded - 32 if uncrowded else MAX_BYTES
        self._longest: list[int] | None = None
        self._entries = entries
        self._crowds = crowds
        self._indexed: dict[int, _Crowd] = {}

    def best(self, path: str) -> _Entry | None:
        """The deciding rule for a normalised path, or None when no rule matches."""
        keys = self._keys
        index = bisect_right(keys, path) - 1
        if len(path) > self._long and index >= 0 and len(path) > self._chain_limits()[index]:
            return self._best_spread(path, index)
        parents = self._parents
        reach = self._reach
        crowds = self._crowds
        best = None
        best_prio = 0  # every rule's priority is at least 1
        while index >= 0:
            if reach[index] < best_prio:
                break
            key = keys[index]
            if path.startswith(key):
                if crowds is not None and len(path) - len(key) > crowds.get(index, MAX_BYTES):
                    best = self._crowd(index).best(path, len(key), best)
                    best_prio = 0 if best is None else best[0]
                    index = parents[index]
                    continue
                for entry in self._entries[index]:
                    prio = entry[0]
                    if prio < best_prio:
                        break
                    kind = entry[3]
                    if kind == _PLAIN or (
                        path.find(entry[4], len(key)) >= 0  # the usual "/x*y", inline
                        if kind == _FIND
                        else _tail_matches(path, len(key), kind, entry[4], entry[5])
                    ):
                        if (
                            prio > best_prio
                            or (entry[1] and not best[1])  # type: ignore[index]
                            or (entry[1] == best[1] and entry[2] < best[2])  # type: ignore[index]
                        ):
                            best = entry
                            best_prio = prio
                        break
            index = parents[index]
        return best

    def _chain_limits(self) -> list[int]:
        """Per prefix, the path length above which the rules of its chain's uncrowded
        prefixes are too many to try in turn (1,000 nested "/a...a*b<k>"): a longer path
        asks the _Crowd of them all (``_best_spread``)."""
        if self._longest is None:
            crowds = self._crowds or {}
            chained: list[int] = []
            for index, group in enumerate(self._entries):
                own = 0 if index in crowds else len(group)
                parent = self._parents[index]
                chained.append(own + chained[parent] if parent >= 0 else own)
            self._longest = [_SPREAD_WORK // n - 32 if n else MAX_BYTES for n in chained]
        return self._longest

    def _best_spread(self, path: str, index: int) -> _Entry | None:
        """``best`` when the path's prefixes hold many rules between them: the walk up
        the chain tries only the rules without a key (see ``_keys``), and the _Crowd of
        every uncrowded prefix's keyed rules finds the rest."""
        keys = self._keys
        crowds = self._crowds
        best = None
        while index >= 0:
            if best is not None and self._reach[index] < best[0]:
                break
            key = keys[index]
            if path.startswith(key):
                if crowds is not None and index in crowds:
                    best = self._crowd(index).best(path, len(key), best)
                else:
                    for entry in self._entries[index]:
                        if best is not None and entry[0] < best[0]:
                            break
                        if entry[3] >= _FIND and (entry[4] or entry[5]):
                            continue  # in the spread _Crowd
                        if _tail_matches(path, len(key), entry[3], entry[4], entry[5]):
                            if _better(entry, best):
                                best = entry
                            break
            index = self._parents[index]
        return self._crowd(-1).best(path, 0, best)

    def _crowd(self, index: int) -> _Crowd:
        """The _Crowd of a crowded prefix's rules (``index`` -1: of every uncrowded
        prefix's rules with a key), built the first time."""
        crowd = self._indexed.get(index)
        if crowd is None:
            if index >= 0:
                group = self._entries[index]
            else:
                crowds = self._crowds or {}
                spread = [
                    entry
                    for i, same in enumerate(self._entries)
                    if i not in crowds
                    for entry in same
                    if entry[3] >= _FIND and (entry[4] or entry[5])
                ]
                group = tuple(sorted(spread, key=_best_first))
            crowd = self._indexed[index] = _Crowd(group)
        return crowd

    def matching(self, path: str) -> list[_Entry]:
        """Every rule matching a normalised path, in no particular order."""
        keys = self._keys
        crowds = self._crowds
        found: list[_Entry] = []
        index = bisect_right(keys, path) - 1
        while index >= 0:
            key = keys[index]
            if path.startswith(key):
                group = self._entries[index]
                if crowds is not None and len(path) - len(key) > crowds.get(index, MAX_BYTES):
                    found.extend(self._crowd(index).matching(path, len(key), group))
                else:
                    found.extend(
                        entry
                        for entry in group
                        if _tail_matches(path, len(key), entry[3], entry[4], entry[5])
                    )
            index = self._parents[index]
        return found

    def rules(self) -> list[Rule]:
        """Every rule, in file order."""
        found = [Rule(e[1], e[6], e[2] or None) for group in self._entries for e in group]
        return sorted(found, key=lambda rule: rule.line or 0)


def _best_first(entry: _Entry) -> tuple[int, bool, int]:
    """Sort key: longest pattern, then allow, then earliest line."""
    return (-entry[0], not entry[1], entry[2])


def _as_decision(entry: _Entry | None) -> Decision:
    if entry is None:
        return Decision(True)
    return Decision(
        entry[1], entry[2] or None, f"{'Allow' if entry[1] else 'Disallow'}: {entry[6]}"
    )


def _add(
    by_prefix: dict[str, _Entry],
    crowded: dict[str, list[_Entry]],
    pattern: str,
    allow: bool,
    line: int,
) -> None:
    """Index one normalised rule by its literal prefix."""
    prefix, kind, last, middles = _compile(pattern)
    entry = (len(pattern), allow, line, kind, last, middles, pattern)
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


_NO_RULES = _Matcher({})
_DISALLOW_EVERYTHING = _Matcher({"/": (1, False, 0, _PLAIN, "", (), "/")})  # line 0: none


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
