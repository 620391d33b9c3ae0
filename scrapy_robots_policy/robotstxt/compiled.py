"""The matcher of the compiled build: a crawler's rules read, filed and matched in C
(``native/``), for the groups that are ASCII without a "%".

The same answers as ``Matcher``'s own tables, which stay the definition (the tests hold
both to them); only where the rules live differs, so this class overrides the methods
that reach them.
"""

from __future__ import annotations

from typing import Protocol

from .matcher import Best, Matcher, RuleLines
from .patterns import PLAIN, Entry
from .precedence import Rule


class CompiledRules(Protocol):
    """The rules of some groups as ``native/`` files them: a rule found is given as
    ``Matcher.find`` gives a plain one (its number, ``~`` it when it allows)."""

    def find(self, path: str, /) -> int | None:
        """The deciding rule for a normalised path."""

    def matching(self, path: str, /) -> list[int]:
        """Every rule matching a normalised path."""

    def rule(self, index: int, /) -> tuple[int, bool, int, str]:
        """(priority, allow, line, pattern) of a rule."""

    def rule_count(self) -> int:
        """How many distinct rules."""

    @property
    def crawl_delay_lines(self) -> bool:
        """Whether a line of the groups starts with the key "crawl" (else no Crawl-delay
        applies, and the lines need no other reading)."""


class CompiledMatcher(Matcher):
    """A ``Matcher`` whose rules are ``CompiledRules`` rather than its own tables."""

    __slots__ = ("_compiled",)

    def __init__(
        self, compiled: CompiledRules, crawl_delay: float | None, rules: RuleLines
    ) -> None:
        super().__init__({}, None, crawl_delay, rules)
        self._compiled = compiled

    def find(self, path: str) -> Best:
        return self._compiled.find(path)

    def _as_entry(self, best: Best) -> Entry | None:
        return self._entry(best) if isinstance(best, int) else best

    def matching(self, path: str) -> list[Rule]:
        found = [self._entry(i) for i in self._compiled.matching(path)]
        return self._rules.every_line(found) if found and self._rules is not None else []

    def _entry(self, found: int) -> Entry:
        """A rule found, reported as a plain rule is: by its pattern as written."""
        prio, allow, line, pattern = self._compiled.rule(~found if found < 0 else found)
        return (prio, allow, line, PLAIN, "", (), pattern)
