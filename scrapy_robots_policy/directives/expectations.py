"""What ``@meta_robots TOKEN`` expects of a page's RobotsDirectives, and why it is unmet.

Pure: the ``scrapy check`` contract (contracts/robots.py) only finds the directives and the
user agent, and reports what this module says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from scrapy_robots_policy.directives import RobotsDirectives

#: ``@meta_robots`` tokens that are a boolean attribute of RobotsDirectives.
FLAGS = ("noindex", "nofollow", "noarchive", "nosnippet", "notranslate", "noimageindex",
         "indexifembedded", "noai", "noimageai")
#: Tokens that take a value (``max-snippet:20``); the value must be the effective one.
VALUED = {"max-snippet": "max_snippet", "max-video-preview": "max_video_preview",
          "max-image-preview": "max_image_preview", "unavailable_after": "unavailable_after"}
#: Tokens asserting an absence: ``index`` (indexable), ``follow``, ``all`` (nothing at all).
ABSENCES = ("index", "follow", "all")
KNOWN = (*FLAGS, "none", *VALUED, *ABSENCES)


def parse_tokens(args: Iterable[Any]) -> list[str]:
    """Contract arguments as tokens: ``noindex, max-snippet: 20`` -> noindex, max-snippet:20.

    >>> parse_tokens(["noindex,", "max-snippet:", "20"])
    ['noindex', 'max-snippet:20']
    """
    pieces = [p for p in re.split(r"[\s,]+", " ".join(str(a) for a in args)) if p]
    tokens: list[str] = []
    for piece in pieces:
        if tokens and tokens[-1].endswith(":"):
            tokens[-1] += piece
        else:
            tokens.append(piece)
    return tokens


def unmet(token: str, directives: RobotsDirectives) -> str | None:
    """Why ``token`` does not hold for ``directives``; ``None`` when it holds."""
    name, _, value = token.partition(":")
    name = name.strip().lower()
    d = directives
    if name == "index":
        why = d.why_not_indexable()
        return None if d.indexable() else f"not indexable: {why or 'noindex'}"
    if name == "follow":
        return None if not d.nofollow else f"not followable: {d.decided_by('nofollow')}"
    if name == "all":
        return None if not d.tokens else "restricted: " + ", ".join(sorted(d.tokens))
    if name == "none":
        lacking = [flag for flag in ("noindex", "nofollow") if not getattr(d, flag)]
        return None if not lacking else f"none: no {' and no '.join(lacking)}"
    if name in FLAGS:
        return None if getattr(d, name) else f"no {name}"
    if name in VALUED:
        return _unmet_value(name, value.strip(), d)
    if any(other.name == name for other in d.others):
        return None
    return f"no {name} (not a directive this package knows either: {', '.join(KNOWN)})"


def _unmet_value(name: str, value: str, directives: RobotsDirectives) -> str | None:
    attribute = VALUED[name]
    actual = getattr(directives, attribute)
    if not value:  # "unavailable_after" alone: present, whatever its date
        return None if actual is not None else f"no {name}"
    # The expected value is parsed like a header value, so it means what a site's would.
    expected = getattr(RobotsDirectives.from_x_robots_tag(f"{name}: {value}", "robots"),
                       attribute)
    if expected is None:
        return f"{name}:{value} is not a valid value for {name}"
    if actual == expected:
        return None
    found = directives.decided_by(attribute)
    return f"{name} is {found or 'not set'}, not {value}"


def describe(directives: RobotsDirectives) -> str:
    """Every directive that applies, with where it came from; or that none does."""
    if not directives.sources:
        return ("no directive (no Robots-Tag or X-Robots-Tag header or robots meta tag "
                "applies)")
    return ", ".join(str(directive) for directive in directives.sources)
