"""noai and noimageai (DeviantArt's convention, in robots meta tags and X-Robots-Tag) as
usage signals, with the directive that set them as evidence.

``noai`` refuses ``ai-train`` and ``ai-input`` for the page's content: the convention
says "no AI", before training and answer-time use were told apart, so both are read
into it. ``noimageai`` says the same of the page's images only, so it gives signals only
when asked about images (``images=True``: the images a page embeds or links to).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .purposes import NOAI, Signal
from .reading import NOTHING, Reading

if TYPE_CHECKING:
    from scrapy_robots_policy.directives import RobotsDirectives

#: The purposes noai (and, for images, noimageai) refuse.
AI_PURPOSES = ("ai-train", "ai-input")


def noai_signals(directives: RobotsDirectives, *, images: bool = False) -> Reading:
    """The refusals ``directives`` make for the page's content, or for its images."""
    flags = ("noai", "noimageai") if images else ("noai",)
    signals: list[Signal] = []
    for flag in flags:
        if getattr(directives, flag):
            directive = directives.decided_by(flag)
            evidence = str(directive) if directive is not None else flag
            if flag == "noimageai":
                evidence += ", for the page's images"
            signals.extend(Signal(purpose, False, NOAI, evidence) for purpose in AI_PURPOSES)
    return Reading(tuple(signals)) if signals else NOTHING
