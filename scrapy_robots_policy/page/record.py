"""The compliance record of an item: why its page could be crawled and its content kept.

With ``ROBOTS_POLICY_ITEM_FIELD`` set (or purposes declared), every item carries, and
``response.meta["robots_policy_record"]`` holds, one JSON-friendly dict:

- ``robotstxt``: the robots.txt URL, when it was fetched (ISO 8601, UTC), the sha256 of
  the body that was applied, and the deciding ``line`` and ``rule`` or, when no rule
  decided, ``why`` (``"404: allow all"``, ``"no rule matched"``); ``None`` when robots.txt
  was not consulted (``ROBOTSTXT_OBEY`` off, ``dont_obey_robotstxt``);
- ``directives``: the page's restrictive directives (``RobotsDirectives.as_dict()``);
- ``usage`` (purposes declared only): the decision per declared purpose and the signals
  about those purposes, each with its source and evidence.

``scrapy-robots-policy audit`` reads these records back from a feed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, NamedTuple

from itemadapter import ItemAdapter

from scrapy_robots_policy.fetch.origin import Origin, robots_url
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.usage import Signal, UsageDecision

if TYPE_CHECKING:
    from scrapy_robots_policy.directives import RobotsDirectives
    from scrapy_robots_policy.usage.policy import UsageReading

#: Request and response meta key of the robots.txt that allowed a request (RobotsTxtUse).
ROBOTSTXT_USE_META = "robots_policy_robotstxt"
#: Response meta key of the compliance record, for spider code.
RECORD_META = "robots_policy_record"


class RobotsTxtUse(NamedTuple):
    """Which robots.txt allowed a request: kept in its meta for the record (cheap: three
    references, no work on the path of a request)."""

    origin: Origin
    entry: CachedAnswer
    user_agent: str


def robotstxt_part(use: RobotsTxtUse, url: str) -> dict[str, Any]:
    """The ``robotstxt`` part of the record of a page at ``url``."""
    entry = use.entry
    part: dict[str, Any] = {"url": robots_url(use.origin)}
    if entry.fetched_at is not None:
        part["fetched"] = datetime.fromtimestamp(entry.fetched_at, timezone.utc).isoformat(
            timespec="seconds")
    if entry.body is not None:
        part["sha256"] = entry.sha256
    decision = entry.rules.decide(url, use.user_agent)
    if decision.line is not None:
        part["line"] = decision.line
        part["rule"] = getattr(decision, "rule", None)
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


def page_record(meta: Mapping[str, Any], url: str, directives: RobotsDirectives,
                usage: UsageReading | None) -> dict[str, Any]:
    """The record of the page at ``url``, from what the middlewares left in its meta."""
    use = meta.get(ROBOTSTXT_USE_META)
    result: dict[str, Any] = {
        "robotstxt": robotstxt_part(use, url) if isinstance(use, RobotsTxtUse) else None,
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
