"""Page-level robots directives: ``<meta name="robots">`` tags, ``Robots-Tag`` and
``X-Robots-Tag`` headers.

Pure code: nothing here imports Scrapy, so the parser can be tested, reused by the command
line and by ``scrapy check`` contracts without a crawl. Every directive remembers where it
came from (:class:`Directive`), because a dropped item must be explained by "which
directive, from which header or meta tag", not just by a boolean.

Parsing never raises: a value that does not parse is ignored and described in
:attr:`RobotsDirectives.problems`, a document that cannot be read at all in
:attr:`RobotsDirectives.errors`, so the caller can log and count both.

What is read and kept per response is bounded, whatever the site sends: a hostile page
must not cost more memory than the page itself (see ``MAX_VALUE_CHARS`` in :mod:`.lists`), and
what was left unread is described in :attr:`RobotsDirectives.cut`.

Reading and deciding are apart, each in the module named for it: :mod:`.vocabulary`
(directive names, :class:`Directive`), :mod:`.dates` and :mod:`.values` (what a directive
sets, which value is more restrictive), :mod:`.lists` (one value as read: the read limits,
the split into pieces), :mod:`.headers`, :mod:`.robots_tag` and :mod:`.meta` (which
headers and meta tags address us), :mod:`.response` (what of a Scrapy response is read),
:mod:`.fold` (the most restrictive wins; which sources are kept), :mod:`.per_agent`
(:class:`RobotsDirectives`, the directives that apply to one crawler) and :mod:`.snippet`
(``data-nosnippet``).
"""

from scrapy_robots_policy.directives.headers import header_values_for_others
from scrapy_robots_policy.directives.per_agent import RobotsDirectives
from scrapy_robots_policy.directives.robots_tag import robots_tag_for_others
from scrapy_robots_policy.directives.snippet import snippet_text
from scrapy_robots_policy.directives.vocabulary import (
    ALL_AGENTS,
    HEADER,
    META,
    ROBOTS_TAG,
    Directive,
)

__all__ = [
    "ALL_AGENTS", "HEADER", "META", "ROBOTS_TAG", "Directive", "RobotsDirectives",
    "header_values_for_others", "robots_tag_for_others", "snippet_text",
]
