"""The gram index: which of many wildcard rules a path could match, without trying each.

A strategy of the matcher for rules sharing one literal prefix by the hundred (``/*q1``
... ``/*q40000`` all start "/"), or for the keyed rules of every prefix with few: the
index finds candidates, ``best_in_crowd`` and ``matching_in_crowd`` match them.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, groupby
from operator import and_, attrgetter, eq, itemgetter, not_
from typing import Any, Literal, cast

from .bulk import without_collections
from .patterns import ENDS, FIND, GLOB_ENDS, CompiledRule
from .precedence import better

#: Up to this many keys of one width, ``key in path`` for each is cheaper than listing
#: every gram of the path (about 1 ns per character for ``in``, 30 for a gram).
_PROBE_KEYS = 32
#: Gram widths and the ``memoryview`` format that reads that many octets as one int.
_GRAM_CODES: dict[int, Literal["B", "H", "I"]] = {1: "B", 2: "H", 4: "I"}
#: A crowd's first questions are scanned (``best_by_scan``), this many, before its Crowd
#: is built: a scan costs a pass over the path per width and a look-up per rule, a Crowd
#: about five scans' worth, so a file asked a few questions never builds one, and the
#: first question on 40,000 rules waits for no index.
_SCANS = 4
#: ... but only while (path length) x (widths) is at most this: a longer path is cheaper
#: to ask a Crowd, built at once; and for crowds whose last pieces have at most this
#: many lengths.
_SCAN_CHARS = 32_768
_SCAN_WIDTHS = 8
#: A "$" rule is filed under at most this many last characters of its last piece.
_MAX_SUFFIX = 16
#: A long piece gives at most this many grams (and the one ending it), spread over it:
#: enough to find a rare one, and 250 rules of 2,000 characters are not 125,000 grams.
_MAX_GRAMS = 16
_SUFFIXED = (ENDS, GLOB_ENDS)
#: Lengths of a piece that is its one gram (its width: 1, 2 or 4 characters).
_ONE_GRAM = frozenset((1, 2, 4))

# The rules filed under one key, best first, each with the keys it needs: a candidate, to
# be matched only when the path holds them all.
# Flat, a rule then its keys (no pair per rule: a first question can file 40,000).
Filed = list[Any]
# (width, the grams when few, else None; gram codes; the gram of each code)
_GramTable = tuple[int, "tuple[str, ...] | None", frozenset[int], dict[int, str]]
_FORM = attrgetter("kind", "last", "middles", "prefix")
_LAST, _MIDDLES, _KIND = attrgetter("last"), attrgetter("middles"), attrgetter("kind")


def keyed(rule: CompiledRule) -> bool:
    """Whether a rule has keys (see ``_key_lists``): a literal piece after a "*"."""
    return bool(rule.last or rule.middles)


def _piece_grams(piece: str) -> tuple[str, ...]:
    """The grams of a literal piece (1, 2 or 4 characters): side by side (spread out on
    a long piece), and one ending the piece. Any of them must be in a path the piece is."""
    width = 4 if len(piece) >= 4 else 2 if len(piece) >= 2 else 1
    step = max(width, (len(piece) - width) // _MAX_GRAMS)
    grams = [piece[i : i + width] for i in range(0, len(piece) - width, step)]
    grams.append(piece[-width:])
    return tuple(dict.fromkeys(grams)) if len(grams) > 1 else tuple(grams)


def _grams_by_piece(pieces: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """``_piece_grams`` of each distinct piece ("": none)."""
    distinct = dict.fromkeys(pieces)
    distinct.pop("", None)
    grams = _short_grams([piece for piece in distinct if len(piece) <= 8])
    if len(grams) < len(distinct):
        grams.update((piece, _piece_grams(piece)) for piece in distinct if piece not in grams)
    grams[""] = ()
    return grams


def _short_grams(pieces: list[str]) -> dict[str, tuple[str, ...]]:
    """``_piece_grams`` of pieces of at most 8 characters (``q12345`` of ``/*q12345``:
    most crowds), cut at C speed by length: the first and the last gram of the piece's
    width, one gram when they are the same (when the piece is its width)."""
    grams: dict[str, tuple[str, ...]] = {}
    for size, same in groupby(sorted(pieces, key=len), len):
        alike = list(same)
        if size in _ONE_GRAM:
            grams.update(zip(alike, zip(alike), strict=True))
            continue
        width = 4 if size >= 4 else 2
        heads = list(map(itemgetter(slice(width)), alike))
        tails = list(map(itemgetter(slice(-width, None)), alike))
        grams.update(zip(alike, zip(heads, tails, strict=True), strict=True))
        if any(map(eq, heads, tails)):  # "aaaaa": its one gram once
            grams.update(
                (piece, (head,))
                for piece, head, tail in zip(alike, heads, tails, strict=True)
                if head == tail
            )
    return grams


def _key_lists(rules: Sequence[CompiledRule]) -> list[tuple[str, ...]]:
    """What each rule's match requires after its prefix, each enough to find it by.

    Each gram of a literal piece (see ``_piece_grams``) must occur in the path; for a
    "$" rule, "\n" + the end of its last piece must end the path ("\n" never occurs in
    a pattern, so the two kinds of key cannot collide). Empty: the rule matches whenever
    its prefix does (``/*``, ``/a*$``), or only the prefix itself (``/a$``). The suffix
    comes first: among keys as rare, the first is taken. A "$" rule with one piece of at
    most ``_MAX_SUFFIX`` characters has only its suffix: the piece itself, which holds
    its grams (a crowd of 40,000 ``/*q<i>$`` cuts none).
    """
    lasts = list(map(_LAST, rules))
    kinds = list(map(_KIND, rules))
    if kinds.count(FIND) == len(kinds):
        grams = _grams_by_piece(lasts)
        return list(map(grams.__getitem__, lasts))  # the usual crowd, at C speed
    sizes = list(map(len, lasts))
    if kinds.count(ENDS) == len(kinds) and max(sizes) <= _MAX_SUFFIX and min(sizes):
        return list(zip(map("\n".__add__, lasts)))  # a crowd of "/*.e<i>$": its suffixes
    middles = list(map(_MIDDLES, rules))
    suffix_only = list(map(and_, map(ENDS.__eq__, kinds), map(_MAX_SUFFIX.__ge__, sizes)))
    grams = _grams_by_piece(
        chain(compress(lasts, map(not_, suffix_only)), chain.from_iterable(set(middles)))
    )
    # A suffix-only rule's one key; every other rule's the grams of its last piece, at C
    # speed, looked up by whether the rule is suffix-only (False, True: 0, 1).
    ends: dict[str, tuple[str, ...]] = {
        last: ("\n" + last,) for last in compress(lasts, suffix_only)
    }
    ends[""] = ()
    keys = list(map(dict.__getitem__, map((grams, ends).__getitem__, suffix_only), lasts))
    # The rest, one by one: rules with middle pieces, and "$" rules with a long last piece.
    # The grams of each distinct run of middle pieces are cut once: thousands of rules
    # can share one (``/*common-literal*x<i>``).
    between_grams: dict[tuple[str, ...], tuple[str, ...]] = {}
    for n, (last, kind, between) in enumerate(zip(lasts, kinds, middles, strict=True)):
        if not (between or (kind in _SUFFIXED and last and not suffix_only[n])):
            continue
        own = keys[n]
        if between:
            extra = between_grams.get(between)
            if extra is None:
                extra = between_grams[between] = tuple(
                    chain.from_iterable(map(grams.__getitem__, between))
                )
            own = tuple(dict.fromkeys(own + extra))
        if kind in _SUFFIXED and last:
            own = ("\n" + last[-_MAX_SUFFIX:], *own)
        keys[n] = own
    return keys


def _rarest(keys: list[tuple[str, ...]], shared: Counter[str]) -> list[str | None]:
    """Per rule, the first of its keys that fewest rules share (None: it has none)."""
    count = shared.__getitem__
    # Most rules of a crowd have two keys: compared inline, not by a call of ``min``.
    return [
        (own[0] if count(own[0]) <= count(own[1]) else own[1])
        if len(own) == 2
        else (own[0] if len(own) == 1 else min(own, key=count) if own else None)
        for own in keys
    ]


def _unique(rules: tuple[CompiledRule, ...]) -> Sequence[CompiledRule]:
    """The first (best) rule of each pattern, in order: only the best of them can decide."""
    # Every pattern once, the usual crowd, checked at C speed: every last piece differs
    # ("/*q1", "/*q2"...), or else every form.
    if len(set(map(_LAST, rules))) == len(rules) or len(set(map(_FORM, rules))) == len(rules):
        return rules
    unique: dict[tuple[object, ...], CompiledRule] = {}
    for rule in rules:
        unique.setdefault(rule.form, rule)
    return list(unique.values())


class Crowd:
    """Rules filed by key: each under one key its match requires (see ``_key_lists``),
    the one fewest other rules share.

    A question first finds which grams of the rules' pieces the rest of the path holds,
    with one pass per gram width (the path's octets read through a ``memoryview`` as 1-,
    2- or 4-octet ints at each alignment, intersected with the rules' grams at C speed; or
    ``in`` for each gram when a width has few) and at most ``_MAX_SUFFIX`` dictionary
    look-ups for the "$" rules. Only the rules filed under a key the path holds are
    candidates. The work per question is linear in the path, plus the rules sharing a key
    the path holds. Identical patterns are filed once (only the best of them can decide).
    Built in passes over all the rules at once, most at C speed: a first question on a
    group of 40,000 wildcard rules builds it.
    """

    __slots__ = ("by_key", "grams", "suffixes", "unkeyed")

    @without_collections
    def __init__(self, rules: tuple[CompiledRule, ...]) -> None:
        """``rules`` sorted best first."""
        rules_once = _unique(rules)
        keys = _key_lists(rules_once)
        shared = Counter(chain.from_iterable(keys))
        # Each rule under the key fewest rules share, each list staying best first.
        by_key: defaultdict[str | None, Filed] = defaultdict(list)
        lists = map(by_key.__getitem__, _rarest(keys, shared))
        filed = map(list.extend, lists, zip(rules_once, keys, strict=True))
        deque(filed, maxlen=0)  # at C speed: a first question can file 40,000 rules
        # Tried as a small group would be: the first that matches is their best.
        self.unkeyed: tuple[CompiledRule, ...] = tuple(by_key.pop(None, ())[0::2])
        self.by_key = cast(dict[str, Filed], dict(by_key))
        distinct = sorted(shared, key=len)
        grams = [key for key in distinct if key[0] != "\n"]
        self.grams = tuple(_gram_table(width, list(same)) for width, same in groupby(grams, len))
        suffixes = [key for key in distinct if key[0] == "\n"]
        # By the width of the path's end they are, the "\n" left out.
        self.suffixes = tuple(
            (width - 1, frozenset(same)) for width, same in groupby(suffixes, len)
        )

    def present(self, rest: str) -> set[str]:
        """The keys that ``rest`` holds."""
        found: set[str] = set()
        size = len(rest)
        octets: memoryview | None = None
        for width, probe, codes, by_code in self.grams:
            if width > size:
                continue
            if probe is not None:
                found.update(filter(rest.__contains__, probe))
                continue
            if octets is None:
                # Normalised paths are ASCII; "replace" keeps one octet per character.
                octets = memoryview(rest.encode("ascii", "replace"))
            fmt = _GRAM_CODES[width]
            for shift in range(width):
                end = shift + (size - shift) // width * width
                held = codes.intersection(octets[shift:end].cast(fmt))
                found.update(map(by_code.__getitem__, held))
        for width, ending in self.suffixes:
            if width <= size:
                key = "\n" + rest[-width:]
                if key in ending:
                    found.add(key)
        return found

    def candidates(self, rest: str) -> tuple[set[str], list[Filed]]:
        """(keys ``rest`` holds, the lists of rules filed under them)."""
        found = self.present(rest)
        by_key = self.by_key
        return found, [by_key[key] for key in found if key in by_key]


def _gram_table(width: int, grams: list[str]) -> _GramTable:
    """How ``Crowd.present`` finds the grams of one width: ``in`` each, or codes."""
    if len(grams) <= _PROBE_KEYS:
        return width, tuple(grams), frozenset(), {}
    # Every gram's code at once: the grams side by side, read as ints of their width.
    codes = memoryview("".join(grams).encode("ascii", "replace")).cast(_GRAM_CODES[width])
    by_code = dict(zip(codes.tolist(), grams, strict=True))
    return width, None, frozenset(by_code), by_code


class Scans:
    """Which crowds of a matcher are still scanned (``best_by_scan``) rather than asked
    of a Crowd: a crowd's first ``_SCANS`` questions, while their paths are short."""

    __slots__ = ("_done",)

    def __init__(self) -> None:
        # Per crowd's prefix: questions scanned so far; lengths of its last pieces (None:
        # too many for a scan).
        self._done: dict[str, tuple[int, frozenset[int] | None]] = {}

    def widths(
        self, key: str, rules: tuple[CompiledRule, ...], rest: int
    ) -> frozenset[int] | None:
        """The lengths a scan of the crowd of ``key`` reads for a question whose path
        goes ``rest`` characters past ``key``, counted as scanned; None: ask its Crowd."""
        done, widths = self._done.get(key) or (0, _scan_widths(rules))
        if widths is None or done >= _SCANS or rest * len(widths) > _SCAN_CHARS:
            return None
        self._done[key] = (done + 1, widths)
        return widths


def _scan_widths(rules: Sequence[CompiledRule]) -> frozenset[int] | None:
    """The lengths of the rules' last pieces, when few enough for ``best_by_scan``."""
    widths = frozenset(map(len, map(_LAST, rules)))
    return widths if len(widths) <= _SCAN_WIDTHS else None


def best_by_scan(
    rules: tuple[CompiledRule, ...],
    widths: frozenset[int],
    path: str,
    start: int,
    best: CompiledRule | None,
) -> CompiledRule | None:
    """``best_in_crowd`` without a Crowd, for a crowd's first questions: every piece of
    the rest of the path as long as some rule's last piece is set aside at C speed, and
    only the rules whose last piece is among them are tried (best first). A first
    question on 40,000 rules then costs a pass over its path per width, not an index."""
    rest = path[start:]
    size = len(rest)
    held = {""}  # an empty last piece: the rule needs nothing more to be tried
    for width in widths:
        if 0 < width <= size:
            held.update(map(rest.__getitem__, map(slice, range(size - width + 1),
                                                  range(width, size + 1))))
    candidates = tuple(compress(rules, map(held.__contains__, map(_LAST, rules))))
    return first_match(candidates, path, start, best)


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
    return same[0].priority  # type: ignore[no-any-return]


def _pairs(same: Filed) -> Iterator[tuple[CompiledRule, tuple[str, ...]]]:
    """The rules of a list and their keys."""
    rules = iter(same)
    return zip(rules, rules, strict=True)


def best_in_crowd(
    crowd: Crowd, path: str, start: int, best: CompiledRule | None
) -> CompiledRule | None:
    """``best`` or a better rule of ``crowd`` matching ``path`` past ``start``."""
    best = first_match(crowd.unkeyed, path, start, best)
    found, lists = crowd.candidates(path[start:])
    lists.sort(key=_head_priority, reverse=True)
    holds_all = found.issuperset
    for same in lists:
        if best is not None and same[0].priority < best.priority:
            break  # every later list starts lower
        for rule, needs in _pairs(same):
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
        for rule, needs in _pairs(same)
        if found.issuperset(needs)
        and path.startswith(rule.prefix)
        and rule.matches_after(path, len(rule.prefix))
    )
    return [rule for rule in every if rule.form in forms]
