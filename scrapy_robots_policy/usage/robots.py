"""Usage signals in robots.txt: Content-Signal lines (Cloudflare's Content Signals Policy)
and Content-Usage lines (draft-ietf-aipref-attach-05 section 3), read from the lines the
engine says apply to one URL for one crawler (``RobotsTxt.usage_lines``)."""

from __future__ import annotations

from scrapy_robots_policy.directives.vocabulary import quoted
from scrapy_robots_policy.robotstxt import RobotsTxt, UsageLine
from scrapy_robots_policy.robotstxt.usage import CONTENT_SIGNAL as CONTENT_SIGNAL_KEY
from scrapy_robots_policy.robotstxt.usage import MAX_USAGE_LINES, MAX_USAGE_VALUE

from .aipref import preferences
from .purposes import CONTENT_SIGNAL, CONTENT_USAGE, Signal
from .reading import NOTHING, Reading

#: The Content Signals Policy's three signals, each named as our purpose.
CONTENT_SIGNALS = frozenset({"search", "ai-input", "ai-train"})
_ANSWERS = {"yes": True, "no": False}


def robots_signals(rules: RobotsTxt, url: str, user_agent: str) -> Reading:
    """The usage signals robots.txt gives ``url`` for ``user_agent``; a line that does
    not parse gives none, and a problem."""
    lines = rules.usage_lines(url, user_agent)
    unread = rules.usage_lines_unread
    if not lines and not unread:
        return NOTHING
    signals: list[Signal] = []
    problems: list[str] = []
    if unread:
        problems.append(f"robots.txt: {unread} usage lines after the first "
                        f"{MAX_USAGE_LINES} not read")
    for line in lines:
        evidence = f'robots.txt line {line.line}: "{quoted(str(line))}"'
        if line.cut:
            problems.append(f"{evidence}: longer than {MAX_USAGE_VALUE} characters, not read")
            continue
        found, troubles = _read(line)
        signals.extend(Signal(purpose, allowed, source, evidence)
                       for purpose, allowed, source in found)
        problems.extend(f"{evidence}: {trouble}" for trouble in troubles)
    return Reading(tuple(signals), tuple(problems))


def _read(line: UsageLine) -> tuple[list[tuple[str, bool, str]], list[str]]:
    """(purpose, allowed, source) of each statement of one line, and its problems."""
    if not line.value:
        return [], ["no value"]
    if line.key == CONTENT_SIGNAL_KEY:
        return content_signal(line.value)
    found, problems = preferences(line.value)
    return [(purpose, allowed, CONTENT_USAGE) for _, purpose, allowed in found], problems


def content_signal(value: str) -> tuple[list[tuple[str, bool, str]], list[str]]:
    """The signals of a Content-Signal value, ``search=yes, ai-train=no``: each
    comma-separated ``name=yes|no`` (case and blanks aside); a piece that is not stands
    alone, ignored, the others still count.

    >>> content_signal("search=yes, ai-train=no")[0]
    [('search', True, 'content-signal'), ('ai-train', False, 'content-signal')]
    """
    found: list[tuple[str, bool, str]] = []
    problems: list[str] = []
    for piece in value.split(","):
        name, equals, answer = (part.strip().lower() for part in piece.partition("="))
        if not name and not equals:
            continue  # "a=yes,,b=no" or a trailing comma
        allowed = _ANSWERS.get(answer)
        if name not in CONTENT_SIGNALS or not equals or allowed is None:
            problems.append(f"{piece.strip()[:100]!r} is not one of search, ai-input, "
                            "ai-train set to yes or no: ignored")
            continue
        found.append((name, allowed, CONTENT_SIGNAL))
    return found, problems
