"""The compliance record of an item: why its page could be crawled and its content kept.

With ``ROBOTS_POLICY_ITEM_FIELD`` set (or purposes declared), every item carries, and
``response.meta["robots_policy_record"]`` holds, one JSON-friendly dict:

- ``page``: the page the record is about: its URL, when it was read (ISO 8601, UTC) and
  the sha256 of its body, so that a record binds the very content it speaks for;
- ``robotstxt``: the robots.txt URL, when it was fetched (ISO 8601, UTC), the sha256 of
  the body that was applied, and the deciding ``line`` and ``rule`` or, when no rule
  decided, ``why`` (``"404: allow all"``, ``"no rule matched"``); ``None`` when robots.txt
  was not consulted (``ROBOTSTXT_OBEY`` off, ``dont_obey_robotstxt``) or the page is a
  ``scrapy check`` sample (let through whatever robots.txt says);
- ``directives``: the page's restrictive directives (``RobotsDirectives.as_dict()``);
- ``usage`` (purposes declared only): the decision per declared purpose and the signals
  about those purposes, each with its source and evidence; the aipref ``vocabulary``
  revision they were read by; and, when it was consulted, ``tdmrep``: the origin's
  tdmrep.json as ``robotstxt`` names robots.txt (URL, when fetched, sha256, or ``why``).

What the preference expressions in force were (the robots.txt and tdmrep.json bodies by
digest and time, the statements quoted as evidence), which content they were applied to
and the uses the crawl assigned it are what draft-reilly-aipref-compliance-00 has a
compliance record bind; docs/usage-signals.md says what else it asks and why not here.
``scrapy-robots-policy audit`` reads these records back from a feed.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

from scrapy_robots_policy.fetch.document import TDMREP_JSON
from scrapy_robots_policy.page.request import DECISION_META, RequestDecision
from scrapy_robots_policy.usage import Signal, UsageDecision
from scrapy_robots_policy.usage.aipref import VOCABULARY

if TYPE_CHECKING:
    from scrapy_robots_policy.directives import RobotsDirectives
    from scrapy_robots_policy.fetch.policy import CachedAnswer
    from scrapy_robots_policy.usage.policy import UsageReading

#: Response meta key of the compliance record, for spider code.
RECORD_META = "robots_policy_record"


def robotstxt_part(decision: RequestDecision) -> dict[str, Any]:
    """The ``robotstxt`` part of the record of a page its robots.txt allowed: the verdict
    the downloader middleware reached (never decided again here)."""
    entry, verdict = decision.entry, decision.verdict
    part = file_part(verdict.robots_url, entry)
    if verdict.line is not None:
        part["line"] = verdict.line
        part["rule"] = verdict.rule
    else:
        part["why"] = "no rule matched" if entry.body else entry.summary
    return part


def file_part(url: str, entry: CachedAnswer) -> dict[str, Any]:
    """A per-origin file as applied: its URL, when it was fetched, the sha256 of its body."""
    part: dict[str, Any] = {"url": url}
    if entry.fetched_at is not None:
        part["fetched"] = _when(entry.fetched_at)
    if entry.body is not None:
        part["sha256"] = entry.sha256
    return part


def page_part(url: str, body: bytes) -> dict[str, Any]:
    """The page a record is about: its URL, when it was read and the sha256 of its body."""
    return {"url": url, "fetched": _when(time.time()), "sha256": hashlib.sha256(body).hexdigest()}


def usage_part(decisions: Iterable[UsageDecision], signals: Iterable[Signal]
               ) -> dict[str, Any]:
    """The ``usage`` part: one decision per declared purpose, and the signals about them."""
    verdicts = {decision.purpose: decision.allowed for decision in decisions}
    said = [{"source": s.source, "purpose": s.purpose, "allowed": s.allowed,
             "evidence": s.evidence} for s in dict.fromkeys(signals) if s.purpose in verdicts]
    return {"purposes": verdicts, "signals": said}


def page_record(meta: Mapping[str, Any], directives: RobotsDirectives,
                usage: UsageReading | None, *, url: str | None = None,
                body: bytes | None = None) -> dict[str, Any]:
    """The record of a page (``url`` and ``body``: the response's), from the decision the
    downloader middleware left in its meta: none (robots.txt not consulted), or a
    ``scrapy check`` sample, let through whatever robots.txt said, records no robots.txt."""
    decision = meta.get(DECISION_META)
    allowed_by = (decision if isinstance(decision, RequestDecision) and not decision.check_only
                  else None)
    result: dict[str, Any] = {}
    if url is not None:
        result["page"] = page_part(url, body or b"")
    result["robotstxt"] = robotstxt_part(allowed_by) if allowed_by is not None else None
    result["directives"] = directives.as_dict()
    if usage is not None:
        part = result["usage"] = usage_part(usage.decisions, usage.signals)
        part["vocabulary"] = VOCABULARY
        tdmrep = usage.tdmrep_file
        if tdmrep is not None and isinstance(decision, RequestDecision):
            part["tdmrep"] = file_part(TDMREP_JSON.url(decision.origin), tdmrep)
            if tdmrep.body is None:
                part["tdmrep"]["why"] = tdmrep.summary
    return result


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="seconds")


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
