"""Longest match wins: the deciding rule among the rules of the groups for one crawler.

A question is a walk over a sorted list of literal prefixes (``bisect``), so a group of
20,000 rules costs about as much as a group of ten. Rules sharing one prefix by the
hundred (``/*q1`` ... ``/*q40000``) are looked up through a gram index (``Crowd``)
instead of being tried in turn.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from .crowd import Crowd, Filed, keyed
from .lines import MAX_BYTES
from .patterns import FIND, PLAIN, Entry, tail_matches

#: From this many rules on one literal prefix, they may be indexed by a ``Crowd``; fewer
#: are always tried in turn.
_CROWD = 16
#: The index answers a question when trying the rules in turn would cost more: when
#: (rules) x (rest of the path + 32) is above this. It is built the first time.
_LINEAR_WORK = 65_536
#: The same bound for the rules of all the uncrowded prefixes of a path together.
_SPREAD_WORK = 65_536


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


def as_decision(entry: Entry | None) -> Decision:
    if entry is None:
        return Decision(True)
    return Decision(
        entry[1], entry[2] or None, f"{'Allow' if entry[1] else 'Disallow'}: {entry[6]}"
    )


def as_rule(entry: Entry) -> Rule:
    return Rule(entry[1], entry[6], entry[2] or None)


def best_first(entry: Entry) -> tuple[int, bool, int]:
    """Sort key: longest pattern, then allow, then earliest line."""
    return (-entry[0], not entry[1], entry[2])


def _better(entry: Entry, best: Entry | None) -> bool:
    """Whether matching ``entry`` beats ``best``: longer, or as long and allow, or earlier."""
    if best is None or entry[0] != best[0]:
        return best is None or entry[0] > best[0]
    return (entry[1] and not best[1]) or (entry[1] == best[1] and entry[2] < best[2])


class Matcher:
    """Longest match wins, allow wins ties, the earliest line wins among equals.

    Rules are indexed by their literal prefix (the text before the first "*" or the
    final "$"). The prefixes are sorted; for each one ``parents`` holds the longest other
    prefix that is a prefix of it. Every prefix of a path in the sorted list is an
    ancestor of the last entry not greater than the path (everything between a prefix
    and the path in sort order starts with that prefix), so a query bisects once and
    walks up that chain, stopping once no ancestor can hold a longer rule. The rules of
    one prefix are tried best first, or, when many would each cost a search of a long
    path, looked up in a ``Crowd`` index built the first time it pays.
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
        by_prefix: dict[str, Entry],
        crowded: dict[str, list[Entry]] | None = None,
        crawl_delay: float | None = None,
    ) -> None:
        """The rules by literal prefix: one in ``by_prefix``, all in ``crowded`` if several
        share it."""
        self.crawl_delay = crawl_delay
        keys = sorted(by_prefix)
        entries: list[tuple[Entry, ...]] = list(zip(map(by_prefix.__getitem__, keys)))
        # Index of each prefix with enough rules for a Crowd -> the length of the rest of
        # the path above which it answers (see _LINEAR_WORK); built on first use.
        crowds: dict[int, int] | None = None
        uncrowded = len(keys)  # rules of uncrowded prefixes
        if crowded:
            for prefix, same in crowded.items():
                same.sort(key=best_first)
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
        self._indexed: dict[int, Crowd] = {}

    def best(self, path: str) -> Entry | None:
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
                    best = _best_in_crowd(self._crowd(index), path, len(key), best)
                    best_prio = 0 if best is None else best[0]
                    index = parents[index]
                    continue
                # ``_first_match``, inline: this loop is most of a question's time.
                for entry in self._entries[index]:
                    prio = entry[0]
                    if prio < best_prio:
                        break
                    kind = entry[3]
                    if kind == PLAIN or (
                        # The usual "/x*y" found here rather than by a call of
                        # tail_matches: repeated questions on the corpus take 9% more
                        # time without this.
                        path.find(entry[4], len(key)) >= 0
                        if kind == FIND
                        else tail_matches(path, len(key), kind, entry[4], entry[5])
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
        asks the Crowd of them all (``_best_spread``)."""
        if self._longest is None:
            crowds = self._crowds or {}
            chained: list[int] = []
            for index, group in enumerate(self._entries):
                own = 0 if index in crowds else len(group)
                parent = self._parents[index]
                chained.append(own + chained[parent] if parent >= 0 else own)
            self._longest = [_SPREAD_WORK // n - 32 if n else MAX_BYTES for n in chained]
        return self._longest

    def _best_spread(self, path: str, index: int) -> Entry | None:
        """``best`` when the path's prefixes hold many rules between them: the walk up
        the chain tries only the rules without a key, and the Crowd of every uncrowded
        prefix's keyed rules finds the rest."""
        keys = self._keys
        crowds = self._crowds
        best = None
        while index >= 0:
            if best is not None and self._reach[index] < best[0]:
                break
            key = keys[index]
            if path.startswith(key):
                if crowds is not None and index in crowds:
                    best = _best_in_crowd(self._crowd(index), path, len(key), best)
                else:
                    # ``_first_match`` over the rules without a key, inline: a chain can
                    # be a thousand prefixes long, and a call for each doubled the time.
                    for entry in self._entries[index]:
                        if best is not None and entry[0] < best[0]:
                            break
                        if entry[4] or entry[5]:
                            continue  # keyed: in the spread Crowd
                        if tail_matches(path, len(key), entry[3], entry[4], entry[5]):
                            if _better(entry, best):
                                best = entry
                            break
            index = self._parents[index]
        return _best_in_crowd(self._crowd(-1), path, 0, best)

    def _crowd(self, index: int) -> Crowd:
        """The Crowd of a crowded prefix's rules (``index`` -1: of every uncrowded
        prefix's keyed rules), built the first time."""
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
                    if keyed(entry)
                ]
                group = tuple(sorted(spread, key=best_first))
            crowd = self._indexed[index] = Crowd(group)
        return crowd

    def matching(self, path: str) -> list[Entry]:
        """Every rule matching a normalised path, in no particular order."""
        keys = self._keys
        crowds = self._crowds
        found: list[Entry] = []
        index = bisect_right(keys, path) - 1
        while index >= 0:
            key = keys[index]
            if path.startswith(key):
                group = self._entries[index]
                if crowds is not None and len(path) - len(key) > crowds.get(index, MAX_BYTES):
                    found.extend(_matching_in_crowd(self._crowd(index), path, len(key), group))
                else:
                    found.extend(
                        entry
                        for entry in group
                        if tail_matches(path, len(key), entry[3], entry[4], entry[5])
                    )
            index = self._parents[index]
        return found


def _first_match(
    entries: tuple[Entry, ...], path: str, start: int, best: Entry | None
) -> Entry | None:
    """``best``, or the first of ``entries`` (best first, all on the literal prefix
    ``path[:start]``) matching ``path`` if it is better: the rest are no better."""
    for entry in entries:
        if best is not None and entry[0] < best[0]:
            break
        if tail_matches(path, start, entry[3], entry[4], entry[5]):
            return entry if _better(entry, best) else best
    return best


def _head_priority(same: Filed) -> int:
    return same[0][0][0]


def _best_in_crowd(crowd: Crowd, path: str, start: int, best: Entry | None) -> Entry | None:
    """``best`` or a better rule of ``crowd`` matching ``path`` past ``start``."""
    best = _first_match(crowd.unkeyed, path, start, best)
    found, lists = crowd.candidates(path[start:])
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
                and tail_matches(path, len(prefix), *entry[3:6])
            ):
                if _better(entry, best):
                    best = entry
                break  # the rest of this list is no better
    return best


def _matching_in_crowd(
    crowd: Crowd, path: str, start: int, every: tuple[Entry, ...]
) -> list[Entry]:
    """Those of ``every`` (the crowd's rules, duplicates included) matching ``path`` past
    ``start``."""
    found, lists = crowd.candidates(path[start:])
    patterns = {e[6] for e in crowd.unkeyed if tail_matches(path, start, e[3], e[4], e[5])}
    patterns.update(
        entry[6]
        for same in lists
        for entry, needs, prefix in same
        if found.issuperset(needs)
        and path.startswith(prefix)
        and tail_matches(path, len(prefix), entry[3], entry[4], entry[5])
    )
    return [entry for entry in every if entry[6] in patterns]


NO_RULES = Matcher({})
DISALLOW_EVERYTHING = Matcher({"/": (1, False, 0, PLAIN, "", (), "/")})  # line 0: none
