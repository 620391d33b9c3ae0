"""Usage signals in robots.txt: Content-Signal lines (Cloudflare's Content Signals Policy)
and Content-Usage lines (draft-ietf-aipref-attach-05 section 3), read from the lines the
engine says apply to one URL for one crawler (``RobotsTxt.usage_lines``)."""

from __future__ import annotations

from scrapy_robots_policy.directives.vocabulary import quoted
from scrapy_robots_policy.robotstxt import RobotsTxt, UsageLine
from scrapy_robots_policy.robotstxt.usage import CONTENT_SIGNAL as CONTENT_SIGNAL_KEY
from scrapy_robots_policy.robotstxt.usage import MAX_USAGE_LINES, MAX_USAGE_VALUE

from .aipref import preferences, told
from .purposes import CONTENT_SIGNAL, CONTENT_USAGE, Signal
from .reading import NOTHING, IgnoredLabel, Reading

#: The Content Signals Policy's three signals, each named as our purpose.
CONTENT_SIGNALS = frozenset({"search", "ai-input", "ai-train"})
#: Other names deployed on Content-Signal lines: ignored like any name the policy does
#: not give, named here so that the log says what the site meant.
OTHER_SIGNALS = {
    "use": "use= (how much of the content may be reproduced: a level Cloudflare added in "
           "2026), which names none of the purposes here",
}
_ANSWERS = {"yes": True, "no": False}
_UNKNOWN = "not one of the Content Signals Policy's search, ai-input, ai-train: ignored"


def robots_signals(rules: RobotsTxt, url: str, user_agent: str) -> Reading:
    """The usage signals robots.txt gives ``url`` for ``user_agent``; a line that does
    not parse gives none, and a problem; a label no vocabulary here defines is ignored."""
    lines = rules.usage_lines(url, user_agent)
    unread = rules.usage_lines_unread
    if not lines and not unread:
        return NOTHING
    readings = [Reading(problems=(f"robots.txt: {unread} usage lines after the first "
                                  f"{MAX_USAGE_LINES} not read",))] if unread else []
    for line in lines:
        evidence = f'robots.txt line {line.line}: "{quoted(str(line))}"'
        readings.append(Reading(problems=(
            f"{evidence}: longer than {MAX_USAGE_VALUE} characters, not read",))
            if line.cut else _read(line, evidence))
    return Reading.joined(readings)


def _read(line: UsageLine, evidence: str) -> Reading:
    """The signals of one line, its problems and the labels it ignored."""
    if not line.value:
        return Reading(problems=(f"{evidence}: no value",))
    if line.key == CONTENT_SIGNAL_KEY:
        return content_signal(line.value, evidence)
    return preferences(line.value, CONTENT_USAGE, evidence)


def content_signal(value: str, evidence: str = "Content-Signal") -> Reading:
    """The signals of a Content-Signal value, ``search=yes, ai-train=no``: each
    comma-separated ``name=yes|no`` (case and blanks aside); a piece that is not stands
    alone, ignored, the others still count. A name other than the policy's three is an
    ignored label, as aipref ignores unknown ones: the policy says nothing of them.

    >>> [(s.purpose, s.allowed) for s in content_signal("search=yes, ai-train=no").signals]
    [('search', True), ('ai-train', False)]
    """
    signals: list[Signal] = []
    problems: list[str] = []
    ignored: list[IgnoredLabel] = []
    for piece in value.split(","):
        name, equals, answer = (part.strip().lower() for part in piece.partition("="))
        if not name and not equals:
            continue  # "a=yes,,b=no" or a trailing comma
        allowed = _ANSWERS.get(answer)
        if name and equals and name not in CONTENT_SIGNALS:
            meaning = OTHER_SIGNALS.get(name)
            why = f"{meaning}; {_UNKNOWN}" if meaning else _UNKNOWN
            ignored.append(IgnoredLabel(quoted(name), evidence, why, known=bool(meaning)))
        elif name not in CONTENT_SIGNALS or not equals or allowed is None:
            problems.append(f"{evidence}: {piece.strip()[:100]!r} is not one of search, "
                            "ai-input, ai-train set to yes or no: ignored")
        else:
            signals.append(Signal(name, allowed, CONTENT_SIGNAL, evidence))
    more, kept = told(ignored, evidence)
    return Reading(tuple(signals), (*problems, *more), kept)
