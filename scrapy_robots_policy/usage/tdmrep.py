"""TDMRep (W3C community group final report, 10 May 2024): the text-and-data-mining
reservation of /.well-known/tdmrep.json, of the ``tdm-reservation``/``tdm-policy``
response headers and of the same-named HTML meta tags, and the report's order between
them ("Processing priority"): the file first, then the headers, then the meta tags, each
later one superseding the earlier for the properties it sets.

``tdm-reservation: 1`` refuses ``tdm`` and ``ai-train``: training a model on web content
is text and data mining in the sense of the EU DSM directive (article 2(2)), whose
article 4 reservation TDMRep expresses, and the EU AI Act (article 53(1)(c)) has model
providers honour it. ``0`` allows both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from scrapy_robots_policy.directives.vocabulary import quoted
from scrapy_robots_policy.robotstxt import MAX_BYTES, normalize_path, normalize_pattern
from scrapy_robots_policy.robotstxt.patterns import pattern_matches, split_url

from .purposes import TDM_META, TDMREP_JSON, Signal
from .reading import NOTHING, Reading

#: The purposes a TDM reservation speaks of (see the module's doc).
RESERVED_PURPOSES = ("tdm", "ai-train")
#: Rules of tdmrep.json read; a real file has a handful.
MAX_RULES = 1000
#: Characters of a tdm-policy URL kept.
MAX_POLICY_CHARS = 2048


@dataclass(frozen=True, slots=True)
class TdmDeclaration:
    """One source's TDM declaration for a resource: ``reservation`` 1 (reserved), 0 (not
    reserved) or None (unset, or an invalid value), the policy URL if any, and the
    problems met reading it."""

    reservation: int | None
    policy: str | None
    source: str  # TDMREP_JSON, TDM_HEADER or TDM_META
    evidence: str
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TdmRule:
    """One rule of tdmrep.json: its normalised location pattern and declaration."""

    location: str
    declaration: TdmDeclaration


@dataclass(frozen=True, slots=True)
class TdmRep:
    """A parsed /.well-known/tdmrep.json. Build with ``TdmRep.parse``; never raises."""

    rules: tuple[TdmRule, ...] = ()
    problems: tuple[str, ...] = ()

    @classmethod
    def parse(cls, body: bytes | str) -> TdmRep:
        """The rules of a tdmrep.json body; what does not parse is skipped and described
        in ``problems``."""
        if len(body) > MAX_BYTES:
            return cls(problems=(f"tdmrep.json larger than {MAX_BYTES} bytes: not read",))
        try:
            text = body.decode("utf-8-sig", errors="replace") if isinstance(body, bytes) \
                else body
            document = json.loads(text)
        except (ValueError, RecursionError) as error:
            return cls(problems=(f"tdmrep.json is not JSON ({str(error)[:100]}): not read",))
        if not isinstance(document, list):
            return cls(problems=("tdmrep.json is not a JSON array of rules: not read",))
        rules: list[TdmRule] = []
        problems: list[str] = []
        for number, item in enumerate(document[:MAX_RULES], 1):
            rule = _rule(number, item, problems)
            if rule is not None:
                rules.append(rule)
        if len(document) > MAX_RULES:
            problems.append(f"tdmrep.json rules after the first {MAX_RULES} not read")
        return cls(tuple(rules), tuple(problems))

    def declaration(self, url: str) -> TdmDeclaration | None:
        """The declaration of the first rule whose location matches ``url`` (an absolute
        URL or a path): the report's "most specific match is the first in sequence"."""
        path = normalize_path(split_url(url)[0])
        for rule in self.rules:
            if pattern_matches(path, rule.location):
                return rule.declaration
        return None

    def signals(self, url: str) -> Reading:
        """What tdmrep.json alone says of ``url``: all that is known before a request."""
        return tdm_signals(self, url)


def _rule(number: int, item: Any, problems: list[str]) -> TdmRule | None:
    where = f"tdmrep.json rule {number}"
    if not isinstance(item, dict) or not isinstance(item.get("location"), str):
        problems.append(f"{where}: not an object with a location: ignored")
        return None
    raw = item["location"]
    value = item.get("tdm-reservation")
    reservation = value if type(value) is int and value in (0, 1) else None
    if reservation is None:
        problems.append(f"{where}: tdm-reservation {quoted(repr(value))} is not 0 or 1: "
                        "unset for its location")
    policy = item.get("tdm-policy")
    if policy is not None and not isinstance(policy, str):
        problems.append(f"{where}: tdm-policy is not a URL: ignored")
        policy = None
    evidence = f"{where}: location {quoted(raw)!r}, tdm-reservation {quoted(repr(value))}"
    declaration = TdmDeclaration(reservation, _policy(policy), TDMREP_JSON, evidence)
    location = normalize_pattern(raw.encode("utf-8", "surrogatepass"))
    return TdmRule(location, declaration)


def _policy(value: str | None) -> str | None:
    value = (value or "").strip()
    return value[:MAX_POLICY_CHARS] or None


def declared(reservations: Iterable[tuple[str, str]], policies: Iterable[str],
             source: str) -> TdmDeclaration:
    """The declaration of header values or meta contents: ``reservations`` are (value,
    where it was read) pairs; of several, 1 wins over 0 (the most restrictive); the first
    policy is kept."""
    reservation: int | None = None
    evidence = ""
    problems: list[str] = []
    for value, where in reservations:
        text = value.strip()
        if text not in ("0", "1"):
            problems.append(f"{where}: not 0 or 1: ignored")
        elif reservation is None or int(text) > reservation:
            reservation, evidence = int(text), where
    policy = next((p for p in map(_policy, policies) if p), None)
    return TdmDeclaration(reservation, policy, source, evidence, tuple(problems))


def tdm_meta(usage_meta: Iterable[tuple[str, str]]) -> TdmDeclaration:
    """The page's declaration from its TDMRep meta tags (``RobotsDirectives.usage_meta``)."""
    pairs = list(usage_meta)
    reservations = [(content, f'<meta name="tdm-reservation" content="{quoted(content)}">')
                    for name, content in pairs if name == "tdm-reservation"]
    policies = [content for name, content in pairs if name == "tdm-policy"]
    return declared(reservations, policies, TDM_META)


def tdm_signals(tdmrep: TdmRep | None, url: str, header: TdmDeclaration | None = None,
                meta: TdmDeclaration | None = None) -> Reading:
    """The TDM signals of one page, by the report's priority: tdmrep.json, then the
    headers, then the meta tags; a later source supersedes the earlier for the properties
    it sets, and one that sets neither resets nothing.

    Before a request only tdmrep.json is known (``TdmRep.signals``); a reservation it
    makes can then refuse the request, which a header of the response could have lifted:
    the report has the file checked first, and not fetching is the cautious reading.
    """
    order = (tdmrep.declaration(url) if tdmrep is not None else None, header, meta)
    problems = tuple(problem for declaration in order if declaration is not None
                     for problem in declaration.problems)
    reserving = policing = None
    for declaration in order:
        if declaration is None:
            continue
        if declaration.reservation is not None:
            reserving = declaration
        if declaration.policy is not None:
            policing = declaration
    if reserving is None or reserving.reservation is None:
        return Reading(problems=problems) if problems else NOTHING
    evidence = reserving.evidence
    if reserving.reservation and policing is not None:
        evidence += f" (TDM policy: {quoted(policing.policy or '')})"
    allowed = reserving.reservation == 0
    signals = tuple(Signal(purpose, allowed, reserving.source, evidence)
                    for purpose in RESERVED_PURPOSES)
    return Reading(signals, problems)
