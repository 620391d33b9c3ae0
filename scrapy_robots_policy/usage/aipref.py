"""The aipref vocabulary: a statement of preference (``train-ai=n, ai-use=y, search=y``),
as draft-ietf-aipref-vocab-08 section 6 reads it, mapped onto our purposes.

The statement is an RFC 9651 Dictionary, parsed with ``http_sf``; a label takes the Token
``y`` (allowed) or ``n`` (disallowed). Anything else leaves the preference unknown: a
Dictionary that does not parse, other values (the draft calls neither an error; they come
back as problems so that a site's mistake can be seen), and labels the vocabulary does
not define, which section 6.4 has ignored: those come back as :class:`.IgnoredLabel`, what
a site said and was not obeyed.
"""

from __future__ import annotations

import http_sf

from scrapy_robots_policy.directives.vocabulary import quoted

from .purposes import Signal
from .reading import IgnoredLabel, Reading

#: The revision whose labels and rules this module reads (docs/usage-signals.md).
VOCABULARY = "draft-ietf-aipref-vocab-08"

#: Labels and the purpose each speaks of: vocab-08's three categories (AI Training, AI
#: Use, Search), and the two that draft-romm-aipref-contentsignals-00 proposed as aipref
#: categories (Cloudflare's names, meaning what they mean on a Content-Signal line).
LABELS = {
    "train-ai": "ai-train",
    "ai-use": "ai-input",
    "search": "search",
    "ai-train": "ai-train",
    "ai-input": "ai-input",
}

#: Labels of earlier revisions, still deployed (generated robots.txt files write
#: ``ai=n``): ignored like any label vocab-08 does not define, and named here so that the
#: log says what the site meant. Each meant its category within a hierarchy whose
#: preferences fell back to the parent's, which -05 removed: read alone, ``bots=n,
#: search=y`` would refuse search, which its revision allowed.
RETIRED = {
    "tdm": "Text and Data Mining in draft-ietf-aipref-vocab-01",
    "ai": "AI Training in draft-ietf-aipref-vocab-01",
    "genai": "Generative AI Training in draft-ietf-aipref-vocab-01",
    "inference": "AI Inference in draft-ietf-aipref-vocab-01",
    "all": "Automated Processing in draft-ietf-aipref-vocab-02",
    "train-genai": "Generative AI Training in draft-ietf-aipref-vocab-02 and -03",
    "bots": "Automated Processing in draft-ietf-aipref-vocab-03 and -04",
    "ai-output": "AI Output in draft-ietf-aipref-vocab-04",
}
#: Ignored labels told per statement; past them, one problem says how many more there were
#: (a statement of hundreds of made-up labels is not hundreds of INFO lines).
MAX_IGNORED = 16
_PREFERENCES = {"y": True, "n": False}
_UNKNOWN = (f"not a label of {VOCABULARY}, which ignores the labels it does not define "
            "(section 6.4)")


def preferences(statement: str | bytes, source: str, evidence: str) -> Reading:
    """The signals of one statement (``source`` and ``evidence`` name where it was read),
    its problems and the labels it ignored.

    >>> reading = preferences("train-ai=n, search=y;x=1, ai=n", "content-usage", "here")
    >>> [(s.purpose, s.allowed) for s in reading.signals], reading.ignored[0].label
    ([('ai-train', False), ('search', True)], 'ai')
    """
    data = statement if isinstance(statement, bytes) else statement.encode("utf-8")
    try:
        parsed = http_sf.parse(data, tltype="dictionary")
    except Exception as error:  # a third-party parser fed hostile input: never raise
        return Reading(problems=(
            f"{evidence}: not a structured-field dictionary ({_reason(error)}): ignored",))
    if not isinstance(parsed, dict):  # what "dictionary" promises; checked, not trusted
        return Reading(problems=(f"{evidence}: not a structured-field dictionary: ignored",))
    signals: list[Signal] = []
    problems: list[str] = []
    ignored: list[IgnoredLabel] = []
    for label, member in parsed.items():
        purpose = LABELS.get(label)
        if purpose is None:
            ignored.append(ignored_label(label, evidence))
            continue
        value = member[0] if isinstance(member, tuple) else member
        allowed = _PREFERENCES.get(str(value)) if isinstance(value, http_sf.Token) else None
        if allowed is None:
            problems.append(f"{evidence}: {label}: not the token y or n: preference unknown")
        else:
            signals.append(Signal(purpose, allowed, source, evidence))
    more, kept = told(ignored, evidence)
    return Reading(tuple(signals), (*problems, *more), kept)


def told(ignored: list[IgnoredLabel], evidence: str
         ) -> tuple[tuple[str, ...], tuple[IgnoredLabel, ...]]:
    """(problems, ignored labels) of one statement: at most :data:`MAX_IGNORED` labels,
    and a problem saying how many more were not told."""
    if len(ignored) <= MAX_IGNORED:
        return (), tuple(ignored)
    return ((f"{evidence}: {len(ignored) - MAX_IGNORED} more labels not read",),
            tuple(ignored[:MAX_IGNORED]))


def ignored_label(label: str, evidence: str) -> IgnoredLabel:
    """Why ``label`` is not read: what an earlier revision meant by it, if one did."""
    meaning = RETIRED.get(label)
    why = f"{meaning}; {_UNKNOWN}" if meaning else _UNKNOWN
    return IgnoredLabel(quoted(label), evidence, why, known=meaning is not None)


def _reason(error: Exception) -> str:
    return str(error)[:100] or type(error).__name__
