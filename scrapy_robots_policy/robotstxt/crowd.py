"""The gram index: which of many wildcard rules a path could match, without trying each.

A strategy of the matcher for rules sharing one literal prefix by the hundred (``/*q1``
... ``/*q40000`` all start "/"), or for the keyed rules of every prefix with few: the
index finds candidates, ``best_in_crowd`` and ``matching_in_crowd`` match them.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Literal

from .patterns import ENDS, GLOB_ENDS, CompiledRule
from .precedence import better

#: Up to this many keys of one width, ``key in path`` for each is cheaper than listing
#: every gram of the path (about 1 ns per character for ``in``, 30 for a gram).
_PROBE_KEYS = 32
#: Gram widths and the ``memoryview`` format that reads that many octets as one int.
_GRAM_CODES: dict[int, Literal["B", "H", "I"]] = {1: "B", 2: "H", 4: "I"}
#: A "$" rule is filed under at most this many last characters of its last piece.
_MAX_SUFFIX = 16
#: A long piece gives at most this many grams (and the one ending it), spread over it:
#: enough to find a rare one, and 250 rules of 2,000 characters are not 125,000 grams.
_MAX_GRAMS = 16

# The rules filed under one key, best first, each with the numbers of the grams it needs:
# a candidate, to be matched only when the path holds them all.
Filed = list[tuple[CompiledRule, tuple[int, ...]]]
# (width, (gram, number) pairs when few, else None; gram codes; numbers by gram code)
_GramTable = tuple[int, "tuple[tuple[str, int], ...] | None", frozenset[int], dict[int, int]]


def keyed(rule: CompiledRule) -> bool:
    """Whether a rule has keys (see ``_keys``): a literal piece after a "*"."""
    return bool(rule.last or rule.middles)


def _keys(rule: CompiledRule) -> list[str]:
    """What a rule's match requires after its prefix, each enough to find it by.

    Each gram (1, 2 or 4 characters) of a literal piece must occur in the path;
    for a "$" rule, "\n" + the end of its last piece must end the path ("\n" never
    occurs in a pattern, so the two kinds of key cannot collide). Empty: the rule matches
    whenever its prefix does (``/*``, ``/a*$``), or only the prefix itself (``/a$``).
    The suffix comes first: among keys as rare, the first is taken.
    """
    kind, last, middles = rule.kind, rule.last, rule.middles
    keys = ["\n" + last[-_MAX_SUFFIX:]] if last and kind in (ENDS, GLOB_ENDS) else []
    for piece in (last, *middles):
        if piece:
            # Side by side (spread out on a long piece), and one ending the piece: any
            # of them must be in the path for the rule to match.
            width = 4 if len(piece) >= 4 else 2 if len(piece) >= 2 else 1
            step = max(width, (len(piece) - width) // _MAX_GRAMS)
            keys.extend(piece[i : i + width] for i in range(0, len(piece) - width, step))
            keys.append(piece[-width:])
    return list(dict.fromkeys(keys)) if len(keys) > 1 else keys


class Crowd:
    """Rules filed by key: each under one key its match requires (see ``_keys``), the one
    fewest other rules share.

    A question first finds which grams of the rules' pieces the rest of the path holds,
    with one pass per gram width (the path's octets read through a ``memoryview`` as 1-,
    2- or 4-octet ints at each alignment, intersected with the rules' grams at C speed; or
    ``in`` for each gram when a width has few) and at most ``_MAX_SUFFIX`` dictionary
    look-ups for the "$" rules. Only the rules filed under a key the path holds are
    candidates. The work per question is linear in the path, plus the rules sharing a key
    the path holds. Identical patterns are filed once (only the best of them can decide).
    """

    __slots__ = ("by_key", "grams", "suffixes", "unkeyed")

    def __init__(self, rules: tuple[CompiledRule, ...]) -> None:
        """``rules`` sorted best first."""
        unique: dict[tuple[object, ...], CompiledRule] = {}
        for rule in rules:
            unique.setdefault(rule.form, rule)  # the first of each pattern is its best
        unkeyed: list[CompiledRule] = []
        with_keys: list[tuple[CompiledRule, list[str]]] = []
        for rule in unique.values():
            keys = _keys(rule)
            if keys:
                with_keys.append((rule, keys))
            else:
                unkeyed.append(rule)
        # Tried as a small group would be: the first that matches is their best.
        self.unkeyed = tuple(unkeyed)
        shared = Counter(chain.from_iterable(keys for _, keys in with_keys))
        number = {key: n for n, key in enumerate(shared)}
        rarest = shared.__getitem__
        by_key: dict[int, Filed] = {}
        for rule, keys in with_keys:
            needs = tuple(number[key] for key in keys if key[0] != "\n")
            # The key fewest rules share; each list stays best first.
            by_key.setdefault(number[min(keys, key=rarest)], []).append((rule, needs))
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

    def candidates(self, rest: str) -> tuple[set[int], list[Filed]]:
        """(keys ``rest`` holds, the lists of rules filed under them)."""
        found = self.present(rest)
        by_key = self.by_key
        return found, [by_key[n] for n in found if n in by_key]


def _gram_table(width: int, table: dict[str, int]) -> _GramTable:
    """How ``Crowd.present`` finds the grams of one width: ``in`` each, or codes."""
    if len(table) <= _PROBE_KEYS:
        return width, tuple(table.items()), frozenset(), {}
    fmt = _GRAM_CODES[width]
    by_code = {
        memoryview(gram.encode("ascii", "replace")).cast(fmt)[0]: n for gram, n in table.items()
    }
    return width, None, frozenset(by_code), by_code


def first_match(
    rules: tuple[CompiledRule, ...], path: str, start: int, best: CompiledRule | None
) -> CompiledRule | None:
    """``best``, or the first of ``rules`` (best first, all on the literal prefix
    ``path[:start]``) matching ``path`` if it is better: the rest are no better."""
    for rule in rules:
        if best is not None and rule.priority < best.priority:
            break
        if rule.matches_after(path, start):
            return rule if better(rule, best) else best
    return best


def _head_priority(same: Filed) -> int:
    return same[0][0].priority


def best_in_crowd(
    crowd: Crowd, path: str, start: int, best: CompiledRule | None
) -> CompiledRule | None:
    """``best`` or a better rule of ``crowd`` matching ``path`` past ``start``."""
    best = first_match(crowd.unkeyed, path, start, best)
    found, lists = crowd.candidates(path[start:])
    lists.sort(key=_head_priority, reverse=True)
    holds_all = found.issuperset
    for same in lists:
        if best is not None and same[0][0].priority < best.priority:
            break  # every later list starts lower
        for rule, needs in same:
            if best is not None and rule.priority < best.priority:
                break
            prefix = rule.prefix
            if (
                holds_all(needs)
                and path.startswith(prefix)
                and rule.matches_after(path, len(prefix))
            ):
                if better(rule, best):
                    best = rule
                break  # the rest of this list is no better
    return best


def matching_in_crowd(
    crowd: Crowd, path: str, start: int, every: tuple[CompiledRule, ...]
) -> list[CompiledRule]:
    """Those of ``every`` (the crowd's rules, duplicates included) matching ``path`` past
    ``start``."""
    found, lists = crowd.candidates(path[start:])
    forms = {rule.form for rule in crowd.unkeyed if rule.matches_after(path, start)}
    forms.update(
        rule.form
        for same in lists
        for rule, needs in same
        if found.issuperset(needs)
        and path.startswith(rule.prefix)
        and rule.matches_after(path, len(rule.prefix))
    )
    return [rule for rule in every if rule.form in forms]
