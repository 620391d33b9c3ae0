"""Which of two matching rules decides: the longest pattern, then allow, then the earliest
line (Google's precedence, RFC 9309 section 2.2.2); and what a decision reports."""

from __future__ import annotations

from dataclasses import dataclass

from .patterns import CompiledRule

#: RFC 9309 2.2.2: "The /robots.txt URI is implicitly allowed", whatever the rules say
#: (Google's parser applies them to it): that path exactly, "/robots.txt?x" is another
#: resource, which they govern.
ROBOTS_TXT_PATH = "/robots.txt"


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


def as_decision(rule: Rule | None, path: str) -> Decision:
    """What the deciding ``rule`` of ``path`` says (no rule decides for the robots.txt
    URI, allowed whatever the rules say)."""
    if rule is None or (not rule.allow and path == ROBOTS_TXT_PATH):
        return Decision(True)
    return Decision(rule.allow, rule.line, str(rule))


def best_first(rule: CompiledRule) -> tuple[int, bool, int]:
    """Sort key: longest pattern, then allow, then earliest line."""
    return (-rule.priority, not rule.allow, rule.line)


def better(rule: CompiledRule, best: CompiledRule | None) -> bool:
    """Whether matching ``rule`` beats ``best``: longer, or as long and allow, or earlier."""
    if best is None or rule.priority != best.priority:
        return best is None or rule.priority > best.priority
    if rule.allow != best.allow:
        return rule.allow
    return rule.line < best.line
