"""Usage signals: what sites say their content may be used for (no Scrapy import)."""

from .purposes import PURPOSES, Signal, UsageDecision, decide, refused

__all__ = ["PURPOSES", "Signal", "UsageDecision", "decide", "refused"]
