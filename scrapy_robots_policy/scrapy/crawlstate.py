"""What the plugin reads once per crawl, kept on the crawl's own crawler: no module-global
registry outlives or mixes crawls, and a mocked crawler (Scrapy's own middleware tests
build a ``MagicMock`` one) gets its state like a real one.

Both middlewares and the ``scrapy check`` contracts share it: one parse of the settings
once they are frozen (:meth:`.RobotsPolicySettings.of`), one user-agent choice, so a
browser's User-Agent is warned about once per crawl (:meth:`.UserAgentChoice.for_crawler`),
and one record of the usage labels told as ignored (:class:`.IgnoredLabels`), so a label
that robots.txt and a page's header both use is told once per origin.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: The crawler attribute that holds it (prefixed: no Scrapy attribute is ever touched).
ATTRIBUTE = "_scrapy_robots_policy_state"


@dataclass
class CrawlState:
    """One crawl's shared reading: its settings (with the settings object they were read
    from, to notice a replaced one) and its user-agent choice, each made on first use."""

    settings_source: Any = None
    settings: Any = None  # RobotsPolicySettings
    user_agents: Any = None  # UserAgentChoice
    #: The crawl's RobotsPolicyDownloaderMiddleware, for spider code's helpers (.sitemaps).
    robots_middleware: Any = None
    #: The (origin, label) pairs told as ignored, by either middleware (.ignoredlabels).
    told_labels: Any = None


def crawl_state(crawler: Crawler) -> CrawlState:
    """The state kept on ``crawler``, made on first use; a fresh one each time for a
    crawler that takes no attribute (a mock with ``spec_set``)."""
    # vars(), not getattr(): a MagicMock crawler answers every attribute with a mock.
    state = vars(crawler).get(ATTRIBUTE) if hasattr(crawler, "__dict__") else None
    if isinstance(state, CrawlState):
        return state
    state = CrawlState()
    with contextlib.suppress(AttributeError):
        setattr(crawler, ATTRIBUTE, state)
    return state
