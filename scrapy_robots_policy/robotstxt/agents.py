"""Groups and agents: which runs of lines form a group, and which groups name a crawler.

Parsing only reads the user-agent lines (``USER_AGENT_LINE`` over the lowered text) and
records which spans of the file form each group; rule lines are read later, for the
crawlers that ask. Which crawler a user-agent line names goes beyond Google's rule (see
``_name_fits``): names with digits or dots, the cut of the crawler's name, several names
on one line.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator

from .lines import RULE_LINE, USER_AGENT_LINE, lowered

# A crawler's product token: its User-Agent up to the first "/", whitespace, ";", "(" or ")".
_TOKEN = re.compile(r"[^/\s;()]*")
# A browser-style User-Agent, "Mozilla/5.0 (compatible; MyBot/1.0; +https://x)", names the
# crawler as the first item after "compatible;": one word, then "/", ";" or ")" ("MSIE 9.0"
# names a browser, not a crawler).
_COMPATIBLE = re.compile(r"[(;]\s*compatible\s*;\s*([^/\s;()]+)\s*(?:[/;)]|$)", re.IGNORECASE)
# Google's ExtractUserAgent cut of a user-agent value: its leading run of [a-zA-Z_-]
# (``USER_AGENT_LINE`` captures it for the first name of a line; this is the same cut of
# the other names and of a crawler's token).
_GOOGLE_CUT = re.compile(rb"[a-z_-]*")
# What follows Google's cut in the whole first name of a user-agent value: up to
# whitespace, "/" or a comment ("MJ12bot/1.0" -> "mj12bot").
_NAME_REST = re.compile(rb"[^\s/#]*")
# What stands before a name of a user-agent line: the separator, or the blanks between names.
_NAME_AFTER = frozenset(b" \t\v\f\n:")
# The key of the index of ``assemble`` listing the groups with a user-agent line of several
# names; no name's cut holds a space.
_SEVERAL = b" "


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


def _names(low: bytes, m: re.Match[bytes], token: bytes | None) -> bool:
    """Whether a ``USER_AGENT_LINE`` match in ``low`` names ``token`` (None: is a "*" line).

    A line names the token when one of its names does (``_name_fits``): the value up to a
    comment, split on whitespace ("User-agent: Agent2 Agent3" names both), unless it
    starts with a "*" name, the global group only. Google's rule, the first name's cut
    equal to the token, is tried first; names are only read whole when it fails.
    """
    cut = m.group("cut")
    if token is None or cut is None:
        return token is None and m.group("star") is not None
    if cut == token:
        return True
    rest = _NAME_REST.match(low, m.end("cut")).group()  # type: ignore[union-attr]
    if _name_fits(cut + rest, len(cut), token):
        return True
    return any(
        _name_fits(name, _GOOGLE_CUT.match(name).end(), token)  # type: ignore[union-attr]
        for name in _later_names(low, m)
    )


def _later_names(low: bytes, m: re.Match[bytes]) -> Iterator[bytes]:
    """The names after the first of a user-agent line (lower-cased, each up to "/")."""
    more = m.start("more")
    if more >= 0:
        for word in low[more : m.end()].partition(b"#")[0].split():
            yield word.partition(b"/")[0]


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
    if not name.isascii():
        name = _unicode_lowered(name)  # the file is lowered as ASCII, the token is not
    if name == token or name[:cut] == token:
        return bool(token)
    # The name is the token's cut: all of it [a-z_-], and the token goes on with another
    # character.
    return (
        0 < cut == len(name) < len(token)
        and token.startswith(name)
        and _GOOGLE_CUT.match(token, cut).end() == cut  # type: ignore[union-attr]
    )


# Per group: (start of its first user-agent line, where its rule lines may start, end):
# rules follow the user-agent lines, unless other lines stand among those. A file keeps
# them flat, three offsets a group in one array (a tuple and its ints cost ten times as
# much, and a crawl keeps a parsed file per origin): ``group_span`` reads one.
Span = tuple[int, int, int]


def group_span(spans: array[int], index: int) -> Span:
    """The span of group ``index`` (see ``Span``)."""
    at = 3 * index
    return spans[at], spans[at + 1], spans[at + 2]


# The groups naming each Google cut of a name: one group as its index (most names are
# named once, and a list each would cost a parsed file a tenth more), several as a list.
Agents = dict[bytes, "int | list[int]"]


def _listed(indexes: int | list[int] | None) -> list[int]:
    """The groups an ``Agents`` value holds, as a list (a new one for a single group)."""
    if indexes is None:
        return []
    return [indexes] if isinstance(indexes, int) else indexes


def assemble(data: bytes) -> tuple[array[int], Agents, list[int]]:
    """The groups of a prepared file, from its user-agent lines: (their spans, the groups
    naming each Google cut of a name, the groups naming "*").

    The index by cut holds the first name of each line; the groups with lines of several
    names ("Agent2 Agent3") are listed under _SEVERAL until a question needs their other
    names (see ``naming``).
    """
    low = lowered(data)
    spans = array("i")
    agents: Agents = {}
    star: list[int] = []
    group_start = body_start = -1
    index = 0  # of the group being read
    interrupted = False  # other lines (Crawl-delay...) among the user-agent lines
    search_rule = RULE_LINE.search
    # In ``low`` a line starting at offset i of ``data`` follows the "\n" at i, and ends
    # at the same offset where ``data`` has its "\n" plus one.
    for m in USER_AGENT_LINE.finditer(low):
        line_start = m.start()
        if body_start < 0:
            group_start = line_start
        elif line_start != body_start:
            if search_rule(low, body_start, line_start):
                # A user-agent line after a rule line starts a new group; sitemap and
                # unknown lines do not end the run of user-agent lines.
                spans.extend((group_start, group_start if interrupted else body_start, line_start))
                index += 1
                group_start = line_start
                interrupted = False
            else:
                interrupted = True
        body_start = m.end()
        is_star, token, more = m.groups()
        if is_star:
            if not star or star[-1] != index:
                star.append(index)
        elif token is not None:
            # Indexed by Google's cut, even an empty one ("12bot"): the whole name is only
            # read for the few crawlers that ask for it (see ``naming``).
            _add_group(agents, token, index)
            if more is not None:
                # Names after the first: indexed when a question needs them.
                _add_group(agents, _SEVERAL, index)
    if body_start >= 0:
        rules_start = group_start if interrupted else min(body_start, len(data))
        spans.extend((group_start, rules_start, len(data)))
    return spans, agents, star


def _add_group(agents: Agents, key: bytes, index: int) -> None:
    """List group ``index`` (the last one read) under ``key``."""
    named = agents.get(key)
    if named is None:
        agents[key] = index
    elif isinstance(named, int):
        if named != index:
            agents[key] = [named, index]
    elif named[-1] != index:
        named.append(index)


def naming(data: bytes, spans: array[int], agents: Agents, token: bytes) -> list[int]:
    """The groups with a user-agent line naming the crawler's ``token`` (see ``_names``).

    Every way a name can name a token needs the name's Google cut to equal the token's:
    the groups are among those indexed under the token's cut.
    """
    if not token:
        return []
    if _SEVERAL in agents:
        _index_later_names(data, spans, agents)
    indexes = agents.get(token)
    if indexes is not None:
        return _listed(indexes)  # a key is Google's cut of a name: [a-z_-] only, its rule
    cut = _GOOGLE_CUT.match(token).group()  # type: ignore[union-attr]
    if cut == token:
        return []
    indexes = _listed(agents.get(cut))
    if not indexes:
        return []
    # A token with other characters than [a-z_-]: only names of the same cut can name it,
    # whole or as its cut; read those groups' user-agent lines (the caller keeps the
    # answer).
    return [index for index in indexes if _group_names(data, group_span(spans, index), token, cut)]


def _group_names(data: bytes, span: Span, token: bytes, cut: bytes) -> bool:
    """Whether a group names a ``token`` with other characters than [a-z_-] (whose Google
    cut is ``cut``).

    Only a name that is the token or its cut can (see ``_name_fits``): each such name,
    found at C speed, is checked on its line, so a group of 100,000 user-agent lines
    naming others costs a search, not a reading of every line.
    """
    start, _, end = span
    low = lowered(data[start:end])
    if not token.isascii():
        low = _unicode_lowered(low)  # "ÜberBot" for "überbot": found in the lines' case
    # The token, or its cut when not empty (an empty name names nobody), as a whole word:
    # a literal first, which the search skips to at C speed.
    rest = re.escape(token[len(cut) :])
    whole = re.escape(cut) + b"(?:%s)?" % rest if cut else rest
    for found in re.finditer(whole + rb"(?=[\s/#]|$)", low, re.MULTILINE):
        if low[found.start() - 1] not in _NAME_AFTER:
            continue  # the end of another word
        line = low.rfind(b"\n", 0, found.start())
        m = USER_AGENT_LINE.match(low, line)
        if m is not None and _names(low, m, token):
            return True
    return False


def _unicode_lowered(text: bytes) -> bytes:
    """``text`` (UTF-8, or any octets) in lower case, non-ASCII letters too, as
    ``product_token`` lowers a crawler's name."""
    return text.decode("utf-8", "surrogateescape").lower().encode("utf-8", "surrogateescape")


def _index_later_names(data: bytes, spans: array[int], agents: Agents) -> None:
    """Index the names after the first of each user-agent line by their Google cut.

    Done once, before the first question is answered, for the few files with lines of
    several names: ``assemble`` only listed their groups (under _SEVERAL).
    """
    later: dict[bytes, set[int]] = {}
    for index in _listed(agents.pop(_SEVERAL)):
        for _, low, m in user_agent_lines(data, group_span(spans, index)):
            for name in _later_names(low, m):
                cut = _GOOGLE_CUT.match(name).group()  # type: ignore[union-attr]
                later.setdefault(cut, set()).add(index)
    for cut, indexes in later.items():
        agents[cut] = sorted(indexes.union(_listed(agents.get(cut))))


def first_naming(data: bytes, span: Span, token: bytes | None) -> int:
    """Where the first user-agent line of a group naming ``token`` starts, or -1."""
    for start, low, m in user_agent_lines(data, span):
        if _names(low, m, token):
            return start
    return -1


def user_agent_lines(data: bytes, span: Span) -> Iterator[tuple[int, bytes, re.Match[bytes]]]:
    """The user-agent lines of a group: (where each starts in ``data``, the lowered text
    of the group, the line's match in it)."""
    start, _, end = span
    low = lowered(data[start:end])
    for m in USER_AGENT_LINE.finditer(low):
        yield start + m.start(), low, m
