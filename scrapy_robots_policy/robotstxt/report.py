"""explain: which group was chosen for a crawler, and every rule of it matching a URL."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from .agents import group_span, user_agent_lines
from .matcher import Matcher
from .precedence import Decision, Rule


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a URL got its answer: the group chosen and every rule of it that matched."""

    agent: str
    group: str  # "specific" (a group names the agent), "*", or "none"
    group_lines: tuple[int, ...]  # the user-agent lines of the chosen group(s)
    matches: tuple[Rule, ...]  # matching rules, in file order
    decision: Decision


def explain(
    data: bytes,
    spans: array[int],
    chosen: list[int],
    kind: str,
    token: str,
    matcher: Matcher,
    path: str,
) -> Explanation:
    """The report for a normalised ``path``: ``chosen`` are the groups of ``kind`` that
    apply to ``token``, ``matcher`` holds their rules."""
    lines = []
    line, counted = 1, 0  # counted on from the last one: linear in the file
    for index in chosen:
        for start, _, _ in user_agent_lines(data, group_span(spans, index)):
            line += data.count(b"\n", counted, start)
            counted = start
            lines.append(line)
    matches = tuple(sorted(matcher.matching(path), key=lambda rule: (rule.line or 0, rule.pattern)))
    return Explanation(token, kind, tuple(lines), matches, matcher.decision(path))
