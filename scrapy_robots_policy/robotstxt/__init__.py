"""robots.txt parsing and matching: RFC 9309 as Google's reference parser implements it.

Pure Python, no Scrapy import. One module per stage, as in Google's robots.cc, where
the parser emits line events to handlers and the matcher is one of them:

* ``lines``: the one tokenizer: the octets Google's line reader sees, the grammar of a
  line and the scanners built from it, whose matches are the line events.
* ``agents``: product tokens, group assembly (parsing reads only the user-agent lines),
  and which groups name a crawler.
* ``rules``: the groups that apply to a crawler, read on its first question, become a
  ``Matcher``; ``patterns``: percent-encoding, the pattern compiler and the one tail
  matcher; ``matcher``: the walk over the rules filed by literal prefix;
  ``precedence``: longest match wins, allow wins ties; ``crowd``: the gram index the
  matcher uses when many rules share a prefix.
* ``sitemaps``; ``usage``: Content-Signal and Content-Usage lines; ``report``:
  ``explain``; ``facade``: ``RobotsTxt``.

Where Google's parser and RFC 9309 disagree, Google wins, except for percent-encoding,
where RFC 9309 sections 2.2.2 and 2.2.3 are followed (see ``normalize_path``), and for
the 500 KiB limit, which Google's open-source parser does not apply. Which crawler a
user-agent line names goes beyond Google's rule (see ``agents``): names with digits or
dots, the cut of the crawler's name, several names on one line. And the URI
"/robots.txt" is allowed whatever the rules say (RFC 9309 2.2.2, see
``precedence.ROBOTS_TXT_PATH``), where Google's parser applies them to it.
"""

from .agents import product_token
from .facade import RobotsTxt
from .lines import MAX_BYTES, MAX_LINE
from .patterns import normalize_path, normalize_pattern, pattern_matches
from .precedence import ROBOTS_TXT_PATH, Decision, Rule
from .report import Explanation
from .usage import UsageLine

__all__ = [
    "MAX_BYTES",
    "MAX_LINE",
    "ROBOTS_TXT_PATH",
    "Decision",
    "Explanation",
    "RobotsTxt",
    "Rule",
    "UsageLine",
    "normalize_path",
    "normalize_pattern",
    "pattern_matches",
    "product_token",
]
