"""The compliance record of an item: why its page could be crawled and its content kept.

With ``ROBOTS_POLICY_ITEM_FIELD`` set (or purposes declared), every item carries, and
``response.meta["robots_policy_record"]`` holds, one JSON-friendly dict:

- ``robotstxt``: the robots.txt URL, when it was fetched (ISO 8601, UTC), the sha256 of
  the body that was applied, and the deciding ``line`` and ``rule`` or, when no rule
  decided, ``why`` (``"404: allow all"``, ``"no rule matched"``); ``None`` when robots.txt
  was not consulted (``ROBOTSTXT_OBEY`` off, ``dont_obey_robotstxt``) or the page is a
  ``scrapy check`` sample (let through whatever robots.txt says);
- ``directives``: the page's restrictive directives (``RobotsDirectives.as_dict()``);
- ``usage`` (purposes declared only): the decision per declared purpose and the signals
  about those purposes, each with its source and evidence.

``scrapy-robots-policy audit`` reads these records back from a feed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

from scrapy_robots_policy.page.request import DECISION_META, RequestDecision
from scrapy_robots_policy.usage import Signal, UsageDecision

if TYPE_CHECKING:
    from scrapy_robots_policy.directives import RobotsDirectives
    from scrapy_robots_policy.usage.policy import UsageReading

#: Response meta key of the compliance record, for spider code.
RECORD_META = "robots_policy_record"


def robotstxt_part(decision: RequestDecision) -> dict[str, Any]:
    """The ``robotstxt`` part of the record of a page its robots.txt allowed: the verdict
    the downloader middleware reached (never decided again here)."""
    entry, verdict = decision.entry, decision.verdict
    part: dict[str, Any] = {"url": verdict.robots_url}
    if entry.fetched_at is not None:
        part["fetched"] = datetime.fromtimestamp(entry.fetched_at, timezone.utc).isoformat(
            timespec="seconds")
    if entry.body is not None:
        part["sha256"] = entry.sha256
    if verdict.line is not None:
        part["line"] = verdict.line
        part["rule"] = verdict.rule
    else:
        part["why"] = "no rule matched" if entry.body else entry.summary
    return part


def usage_part(decisions: Iterable[UsageDecision], signals: Iterable[Signal]
               ) -> dict[str, Any]:
    """The ``usage`` part: one decision per declared purpose, and the signals about them."""
    verdicts = {decision.purpose: decision.allowed for decision in decisions}
    said = [{"source": s.source, "purpose": s.purpose, "allowed": s.allowed,
             "evidence": s.evidence} for s in dict.fromkeys(signals) if s.purpose in verdicts]
    return {"purposes": verdicts, "signals": said}


def page_record(meta: Mapping[str, Any], directives: RobotsDirectives,
                usage: UsageReading | None) -> dict[str, Any]:
    """The record of a page, from the decision the downloader middleware left
    in its meta: none (robots.txt not consulted), or a ``scrapy check`` sample, let through
    whatever robots.txt said, records no robots.txt."""
    decision = meta.get(DECISION_META)
    allowed_by = (decision if isinstance(decision, RequestDecision) and not decision.check_only
                  else None)
    result: dict[str, Any] = {
        "robotstxt": robotstxt_part(allowed_by) if allowed_by is not None else None,
        "directives": directives.as_dict(),
    }
    if usage is not None:
        result["usage"] = usage_part(usage.decisions, usage.signals)
    return result


def annotate(obj: Any, field: str, record: dict[str, Any] | None) -> bool:
    """Put ``record`` in ``field`` of a dict-like item that has (or accepts) the field;
    False for an item that cannot take it (a declared Item without that field). Objects
    that are not items are left alone."""
    if not ItemAdapter.is_item(obj):
        return True
    try:
        ItemAdapter(obj)[field] = record
    except (KeyError, TypeError, AttributeError):
        return False
    return True
