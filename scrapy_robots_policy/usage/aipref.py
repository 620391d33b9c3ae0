"""The aipref vocabulary: a statement of preference (``train-ai=n, search=y``), as
draft-ietf-aipref-vocab-07 section 6 reads it, mapped onto our purposes.

The statement is an RFC 9651 Dictionary, parsed with ``http_sf``; a label takes the Token
``y`` (allowed) or ``n`` (disallowed). Anything else leaves the preference unknown: a
Dictionary that does not parse, unknown labels, other values (the draft calls none of
these errors; they come back as problems so that a site's mistake can be seen).
"""

from __future__ import annotations

import http_sf

#: Labels and the purpose each speaks of: vocab-07's two categories, and the three that
#: draft-romm-aipref-contentsignals-00 proposes as aipref categories (Cloudflare's names).
LABELS = {
    "train-ai": "ai-train",
    "search": "search",
    "ai-train": "ai-train",
    "ai-input": "ai-input",
}
_PREFERENCES = {"y": True, "n": False}


def preferences(statement: str | bytes) -> tuple[list[tuple[str, str, bool]], list[str]]:
    """((label, purpose, allowed) for each label with an explicit preference, problems).

    >>> preferences("train-ai=n, search=y;x=1, foo=y")[0]
    [('train-ai', 'ai-train', False), ('search', 'search', True)]
    """
    data = statement if isinstance(statement, bytes) else statement.encode("utf-8")
    try:
        parsed = http_sf.parse(data, tltype="dictionary")
    except Exception as error:  # a third-party parser fed hostile input: never raise
        return [], [f"not a structured-field dictionary ({_reason(error)}): ignored"]
    if not isinstance(parsed, dict):  # what "dictionary" promises; checked, not trusted
        return [], ["not a structured-field dictionary: ignored"]
    found: list[tuple[str, str, bool]] = []
    problems: list[str] = []
    for label, member in parsed.items():
        purpose = LABELS.get(label)
        if purpose is None:
            problems.append(f"unknown label {label!r}: ignored")
            continue
        value = member[0] if isinstance(member, tuple) else member
        allowed = _PREFERENCES.get(str(value)) if isinstance(value, http_sf.Token) else None
        if allowed is None:
            problems.append(f"{label}: not the token y or n: preference unknown")
        else:
            found.append((label, purpose, allowed))
    return found, problems


def _reason(error: Exception) -> str:
    return str(error)[:100] or type(error).__name__
