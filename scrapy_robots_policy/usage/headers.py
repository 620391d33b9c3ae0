"""Usage signals in response headers: ``Content-Usage`` (draft-ietf-aipref-attach-05
section 2: an RFC 9651 Dictionary in the aipref vocabulary) and TDMRep's
``tdm-reservation`` / ``tdm-policy``. Plain values in, so no Scrapy here: the caller
passes each header's values as it got them (str or bytes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from scrapy_robots_policy.directives.lists import MAX_VALUE_CHARS, MAX_VALUES, header_text
from scrapy_robots_policy.directives.vocabulary import quoted

from .aipref import preferences
from .purposes import TDM_HEADER, USAGE_HEADER
from .reading import Reading
from .tdmrep import TdmDeclaration, declared


@dataclass(frozen=True, slots=True)
class HeaderReading:
    """What a response's headers say: the Content-Usage signals, and the TDM declaration
    to weigh with tdmrep.json and the meta tags (``tdmrep.tdm_signals``)."""

    content_usage: Reading
    tdm: TdmDeclaration


def header_signals(content_usage: Iterable[str | bytes] = (),
                   tdm_reservation: Iterable[str | bytes] = (),
                   tdm_policy: Iterable[str | bytes] = ()) -> HeaderReading:
    """Read the values of the three headers; at most 32 values of each, MAX_VALUE_CHARS
    (8,192) characters of each value, as for X-Robots-Tag."""
    problems: list[str] = []
    usage = _content_usage(_bounded(content_usage, "Content-Usage", problems), problems)
    unread: list[str] = []
    tdm = declared([(value, f"tdm-reservation: {quoted(value)}")
                    for value in _bounded(tdm_reservation, "tdm-reservation", unread)],
                   _bounded(tdm_policy, "tdm-policy", unread), TDM_HEADER)
    if unread:
        tdm = replace(tdm, problems=(*unread, *tdm.problems))
    return HeaderReading(usage, tdm)


def _content_usage(values: list[str], problems: list[str]) -> Reading:
    """Several field lines of one header are one Dictionary (RFC 9651 section 4.2)."""
    if not values:
        return Reading(problems=tuple(problems))
    joined = ", ".join(values)
    read = preferences(joined.encode("latin-1", errors="replace"), USAGE_HEADER,
                       f"Content-Usage: {quoted(joined)}")
    return Reading.joined([Reading(problems=tuple(problems)), read])


def _bounded(values: Iterable[str | bytes], name: str, problems: list[str]) -> list[str]:
    """The values read of one header, as text; what was left unread is a problem."""
    read: list[str] = []
    for value in values:
        if len(read) == MAX_VALUES:
            problems.append(f"{name} values after the first {MAX_VALUES} not read")
            break
        text = header_text(value)
        if len(text) > MAX_VALUE_CHARS:
            problems.append(f"{name} value longer than {MAX_VALUE_CHARS} characters: "
                            "not read")
            continue
        read.append(text)
    return read
