"""Longest match wins: the deciding rule among the rules of the groups for one crawler.

A question is a walk over a sorted list of literal prefixes (``bisect``), so a group of
20,000 rules costs about as much as a group of ten. Rules sharing one prefix by the
hundred (``/*q1`` ... ``/*q40000``) are looked up through a gram index (``Crowd``)
instead of being tried in turn.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import repeat
from operator import attrgetter
from typing import Protocol

from .crowd import Crowd, Scans, best_by_scan, best_in_crowd, keyed, matching_in_crowd
from .lines import MAX_BYTES
from .patterns import FIND, PLAIN, CompiledRule, tail_matches
from .precedence import Decision, Rule, as_decision, best_first, better

# The wildcard rules of most matchers: none, in one dictionary they share (never written).
_NO_WILD: dict[str, tuple[CompiledRule, ...]] = {}
_NO_PARENTS: list[int] = []  # the parents of no prefix (a matcher without rules), shared
# Where the Crowd of every uncrowded prefix's keyed rules is kept (no prefix has a "\n").
_SPREAD = "\n"
_LINE, _ALLOW, _PRIORITY = attrgetter("line"), attrgetter("allow"), attrgetter("priority")
#: What a plain rule says, in the dictionary a ``Matcher`` is built from.
DISALLOWS = 1
ALLOWS = 2
# A rule found (see ``Matcher.find``).
Best = int | CompiledRule | None


class RuleLines(Protocol):
    """Where a matcher's rules are written: read only when a line or pattern is reported
    (a matcher keeps a plain rule without its line, a wildcard rule without its pattern)."""

    def line(self, allow: bool, pattern: str) -> int:
        """The first line of a plain rule (0: no line wrote it)."""

    def pattern(self, rule: CompiledRule) -> str:
        """The pattern of a wildcard rule as its line writes it."""

    def every_line(self, found: list[CompiledRule]) -> list[Rule]:
        """The rules ``found`` at every line that writes them, in file order."""


#: From this many rules on one literal prefix, they may be indexed by a ``Crowd``; fewer
#: are always tried in turn.
_CROWD = 16
#: The index answers a question when trying the rules in turn would cost more: when
#: (rules) x (rest of the path + 32) is above this (scanned first: ``crowd.Scans``).
_LINEAR_WORK = 65_536
#: The same bound for the keyed rules of all the uncrowded prefixes of a path together
#: (a rule with a literal piece after a "*": each costs a search of the path; a plain or
#: an unkeyed rule costs a comparison, on either way of asking).
_SPREAD_WORK = 65_536


class Matcher:
    """Longest match wins, allow wins ties, the earliest line wins among equals.

    Rules are indexed by their literal prefix (the text before the first "*" or the
    final "$"). A plain rule ("/private/", no "*" or "$": most of them) is only its
    prefix and a flag saying whether it allows (allow wins over a disallow of the same
    pattern); its line is looked up when a decision reports it. The other rules are kept
    by prefix, best first. The prefixes are sorted; for each one ``parents`` holds the
    longest other prefix that is a prefix of it. Every prefix of a path in the sorted list
    is an ancestor of the last entry not greater than the path (everything between a
    prefix and the path in sort order starts with that prefix), so a query bisects once
    and walks up that chain, stopping once no ancestor can hold a better rule. The
    wildcard rules of one prefix are tried best first, or, when many would each cost a
    search of a long path, looked up in a ``Crowd`` index built the first time it pays.
    """

    __slots__ = (
        "_crowds",
        "_flags",
        "_indexed",
        "_keys",
        "_long",
        "_longest",
        "_parents",
        "_rules",
        "_scans",
        "_top",
        "_wild",
        "crawl_delay",
    )

    def __init__(
        self,
        plain: dict[str, int],
        wild: dict[str, list[CompiledRule]] | None = None,
        crawl_delay: float | None = None,
        rules: RuleLines | None = None,
    ) -> None:
        """``plain``: plain patterns, ``DISALLOWS`` or ``ALLOWS`` each; ``wild``: the other
        rules by literal prefix; ``rules``: where they are written (None: nowhere)."""
        self.crawl_delay = crawl_delay
        self._rules = rules
        wild_sorted, crowds, spread, top = _file_wild(wild) if wild else (_NO_WILD, None, 0, 0)
        keys = sorted(plain.keys() | wild_sorted.keys()) if wild_sorted else sorted(plain)
        self._keys = keys
        # Per prefix: 0 (no plain rule), DISALLOWS or ALLOWS.
        self._flags = bytes(map(plain.get, keys, repeat(0))) if keys else b""
        self._parents = _parents(keys) if keys else _NO_PARENTS
        self._wild = wild_sorted
        self._top = top  # the longest wildcard rule: no ancestor holds a longer one
        # Paths up to this long never have too many keyed rules on their prefixes'
        # chain to try in turn (see ``_chain_limits``).
        self._long = _SPREAD_WORK // spread - 32 if spread else MAX_BYTES
        self._longest: array[int] | None = None
        self._crowds = crowds
        self._indexed: dict[str, Crowd] | None = None  # most matchers never build one
        self._scans: Scans | None = None  # before a Crowd is built

    def decision(self, path: str) -> Decision:
        """The answer for a normalised path and the rule that decided."""
        return self.decision_of(self.find(path), path)

    def decision_of(self, found: Best, path: str) -> Decision:
        """The answer ``find`` gave as ``found`` for a normalised path, as a Decision."""
        compiled = self._as_compiled(found)
        return as_decision(None if compiled is None else self._as_rule(compiled), path)

    def _as_compiled(self, best: Best) -> CompiledRule | None:
        """A rule ``find`` found as a CompiledRule, its line looked up."""
        if not isinstance(best, int):
            return best
        allow = best < 0
        key = self._keys[~best if allow else best]
        line = 0 if self._rules is None else self._rules.line(allow, key)  # 0: no line
        return CompiledRule(len(key), allow, line, PLAIN, "", (), key)

    def _as_rule(self, found: CompiledRule) -> Rule:
        """A rule as reported, with its pattern as written."""
        rules = self._rules
        if found.kind == PLAIN or rules is None:
            return Rule(found.allow, found.prefix, found.line or None)
        return Rule(found.allow, rules.pattern(found), found.line or None)

    def _priority(self, best: Best) -> int:
        """The priority of a rule found (None: 0, below every rule)."""
        if best is None:
            return 0
        if isinstance(best, int):
            return len(self._keys[~best if best < 0 else best])
        return best.priority

    def find(self, path: str) -> Best:
        """The deciding rule for a normalised path: None when no rule matches, a rule
        with a "*" or "$" as its CompiledRule, a plain rule as the index of its prefix, ``~``
        that index when it allows (so ``RobotsTxt.allowed`` reads the answer without
        another call)."""
        keys = self._keys
        index = bisect_right(keys, path) - 1
        if index < 0:
            return None  # the path sorts before every prefix: none is a prefix of it
        if len(path) > self._long and len(path) > self._chain_limits()[index]:
            return self._best_spread(path, index)
        parents = self._parents
        flags = self._flags
        wild = self._wild
        crowds = self._crowds
        top = self._top
        best: Best = None
        best_prio = 0  # every rule's priority is at least 1
        while index >= 0:
            key = keys[index]
            if path.startswith(key):
                size = len(key)
                flag = flags[index]
                if flag and (
                    size > best_prio or (size == best_prio and self._plain_wins(index, best))
                ):
                    best = ~index if flag == ALLOWS else index
                    best_prio = size
                same = wild.get(key) if wild else None
                if same is not None and (
                    crowds is not None and len(path) - size > crowds.get(key, MAX_BYTES)
                ):
                    best = self._crowd_beats(key, path, best)
                    best_prio = self._priority(best)
                elif same is not None:
                    # ``_first_match``, inline: this loop is much of a question's time.
                    for rule in same:
                        prio = rule.priority
                        if prio < best_prio:
                            break
                        kind = rule.kind
                        last = rule.last
                        if kind == FIND:
                            # The usual "/x*y" found here rather than by a call of
                            # tail_matches; most fail at the "in", without a call.
                            matched = last in path and path.find(last, size) >= 0
                        else:
                            # Most rules fail here: their last piece is not in the path.
                            matched = last in path and tail_matches(
                                path, size, kind, last, rule.middles
                            )
                        if matched:
                            if prio > best_prio or better(rule, self._as_compiled(best)):
                                best = rule
                                best_prio = prio
                            break
                if best_prio >= size and best_prio > top:
                    break  # every ancestor is shorter, and so are its rules
            index = parents[index]
        return best

    def _plain_wins(self, index: int, best: Best) -> bool:
        """Whether the plain rule of prefix ``index`` (matching) beats ``best``: a line is
        only looked up for rules as long and with the same answer."""
        size = len(self._keys[index])
        prio = self._priority(best)
        if size != prio:
            return size > prio
        mine = self._as_compiled(self._found(index))
        return better(mine, self._as_compiled(best))  # type: ignore[arg-type]

    def _found(self, index: int) -> int:
        """What ``find`` answers for the plain rule of prefix ``index``."""
        return ~index if self._flags[index] == ALLOWS else index

    def _crowd_beats(self, key: str | None, path: str, best: Best) -> Best:
        """``best``, or a better rule of a Crowd (see ``_crowd``) matching ``path``:
        scanned for its first questions, while that costs less than building it."""
        current = self._as_compiled(best)
        widths = None
        if key is not None and (self._indexed is None or key not in self._indexed):
            scans = self._scans = self._scans or Scans()
            widths = scans.widths(key, self._wild[key], len(path) - len(key))
        if widths is not None and key is not None:
            found = best_by_scan(self._wild[key], widths, path, len(key), current)
        else:
            found = best_in_crowd(self._crowd(key), path, len(key or ""), current)
        return best if found is current else found

    def _chain_limits(self) -> array[int]:
        """Per prefix, the path length above which the keyed rules of its chain's
        uncrowded prefixes are too many to try in turn (1,000 nested "/a...a*b<k>"): a
        longer path asks the Crowd of them all (``_best_spread``)."""
        if self._longest is None:
            self._longest = _spread_limits(
                self._keys, self._wild, self._crowds or {}, self._parents
            )
        return self._longest

    def _best_spread(self, path: str, index: int) -> Best:
        """``find`` when the path's prefixes hold many rules between them: the walk up
        the chain tries only the rules without a key, and the Crowd of every uncrowded
        prefix's keyed rules finds the rest."""
        keys = self._keys
        crowds = self._crowds
        best: Best = None
        while index >= 0:
            key = keys[index]
            if len(key) < self._priority(best) and self._priority(best) > self._top:
                break
            if path.startswith(key):
                if self._flags[index] and self._plain_wins(index, best):
                    best = self._found(index)
                if crowds is not None and key in crowds:
                    best = self._crowd_beats(key, path, best)
                else:
                    # ``_first_match`` over the rules without a key, inline: a chain can
                    # be a thousand prefixes long, and a call for each doubled the time.
                    for rule in self._wild.get(key, ()):
                        if rule.priority < self._priority(best):
                            break
                        if rule.last or rule.middles:
                            continue  # keyed: in the spread Crowd
                        if rule.matches_after(path, len(key)):
                            if better(rule, self._as_compiled(best)):
                                best = rule
                            break
            index = self._parents[index]
        return self._crowd_beats(None, path, best)

    def _crowd(self, key: str | None) -> Crowd:
        """The Crowd of a crowded prefix's rules (``key`` None: of every uncrowded
        prefix's keyed rules), built the first time."""
        slot = _SPREAD if key is None else key
        indexed = self._indexed = self._indexed or {}
        crowd = indexed.get(slot)
        if crowd is None:
            group = self._wild[key] if key is not None else _spread(self._wild, self._crowds)
            crowd = indexed[slot] = Crowd(group)
        return crowd

    def matching(self, path: str) -> list[Rule]:
        """Every rule matching a normalised path, in no particular order, with every line
        that writes it."""
        found = _every_match(self, path)
        if found and self._rules is not None:
            return self._rules.every_line(found)
        return [self._as_rule(rule) for rule in found]


def _every_match(matcher: Matcher, path: str) -> list[CompiledRule]:
    """Every rule of ``matcher`` matching a normalised path (for ``explain``)."""
    keys = matcher._keys
    crowds = matcher._crowds
    found: list[CompiledRule] = []
    index = bisect_right(keys, path) - 1
    while index >= 0:
        key = keys[index]
        if path.startswith(key):
            if matcher._flags[index]:
                found.append(matcher._as_compiled(matcher._found(index)))  # type: ignore[arg-type]
            group = matcher._wild.get(key, ())
            if crowds is not None and len(path) - len(key) > crowds.get(key, MAX_BYTES):
                found.extend(matching_in_crowd(matcher._crowd(key), path, len(key), group))
            else:
                found.extend(rule for rule in group if rule.matches_after(path, len(key)))
        index = matcher._parents[index]
    return found


def _file_wild(
    wild: dict[str, list[CompiledRule]],
) -> tuple[dict[str, tuple[CompiledRule, ...]], dict[str, int] | None, int, int]:
    """(the rules with a "*" or "$" by prefix, best first; the prefixes with enough of
    them for a Crowd, each with the length of the rest of the path above which it
    answers (see _LINEAR_WORK), built on first use; how many keyed rules the others have;
    the longest rule)."""
    filed: dict[str, tuple[CompiledRule, ...]] = {}
    crowds: dict[str, int] | None = None
    spread = top = 0
    for prefix, same in wild.items():
        # ``best_first`` as three stable sorts by attribute, at C speed (40,000 rules).
        same.sort(key=_LINE)
        same.sort(key=_ALLOW, reverse=True)
        same.sort(key=_PRIORITY, reverse=True)
        filed[prefix] = tuple(same)
        top = max(top, same[0].priority)
        if len(same) >= _CROWD:
            if crowds is None:
                crowds = {}
            crowds[prefix] = _LINEAR_WORK // len(same) - 32
        else:
            spread += sum(map(keyed, same))
    return filed or _NO_WILD, crowds, spread, top


def _parents(keys: list[str]) -> list[int]:
    """Per sorted prefix, the index of the longest other prefix that is a prefix of it."""
    parents: list[int] = []
    for index, key in enumerate(keys):
        # The prefixes of ``key`` in the list are the previous key and its ancestors
        # (everything between a prefix and ``key`` in sort order starts with it).
        parent = index - 1
        while parent >= 0 and not key.startswith(keys[parent]):
            parent = parents[parent]
        parents.append(parent)
    return parents


def _spread_limits(
    keys: list[str],
    wild: dict[str, tuple[CompiledRule, ...]],
    crowds: dict[str, int],
    parents: list[int],
) -> array[int]:
    """Per prefix, the path length above which its chain's uncrowded keyed rules are too
    many to try in turn (see ``Matcher._chain_limits``)."""
    chained: list[int] = []
    for index, key in enumerate(keys):
        own = 0 if key in crowds else sum(map(keyed, wild.get(key, ())))
        parent = parents[index]
        chained.append(own + chained[parent] if parent >= 0 else own)
    return array("i", [_SPREAD_WORK // n - 32 if n else MAX_BYTES for n in chained])


def _spread(
    wild: dict[str, tuple[CompiledRule, ...]], crowds: dict[str, int] | None
) -> tuple[CompiledRule, ...]:
    """The keyed rules of every uncrowded prefix, best first."""
    spread = [
        rule
        for prefix, same in wild.items()
        if crowds is None or prefix not in crowds
        for rule in same
        if keyed(rule)
    ]
    return tuple(sorted(spread, key=best_first))


NO_RULES = Matcher({})
DISALLOW_EVERYTHING = Matcher({"/": DISALLOWS})  # no line
