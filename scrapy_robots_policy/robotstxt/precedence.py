"""Which of two matching rules decides: the longest pattern, then allow, then the earliest
line (Google's precedence, RFC 9309 section 2.2.2); and what a decision reports."""

from __future__ import annotations

from dataclasses import dataclass

from .patterns import Entry

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


def best_first(entry: Entry) -> tuple[int, bool, int]:
    """Sort key: longest pattern, then allow, then earliest line."""
    return (-entry[0], not entry[1], entry[2])


def better(entry: Entry, best: Entry | None) -> bool:
    """Whether matching ``entry`` beats ``best``: longer, or as long and allow, or earlier."""
    if best is None or entry[0] != best[0]:
        return best is None or entry[0] > best[0]
    return (entry[1] and not best[1]) or (entry[1] == best[1] and entry[2] < best[2])
