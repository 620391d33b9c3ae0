"""Which per-origin file a fetch is for: robots.txt, or another file fetched the same way.

TDMRep's ``/.well-known/tdmrep.json`` is fetched, cached, retried and failed exactly like
robots.txt (one fetch per origin, 4xx: nothing declared, 5xx and network errors: treated
as refusing while retried), so both share the fetch machine; this says where the file
is, what logs and stats call it, and whether its body is robots.txt rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from scrapy_robots_policy.fetch.origin import Origin


@dataclass(frozen=True)
class Document:
    """A file every origin may publish at a fixed path."""

    name: str  # in log lines: "robots.txt of http://example.com: 404: allow all"
    path: str
    stats: str  # stat prefix: Scrapy's own "robotstxt" for robots.txt
    #: True: a 2xx body is parsed as robots.txt rules (and ``robots_parsed`` is sent);
    #: False: a fetched body allows everything as far as robots.txt goes, and is kept in
    #: the cached entry for its own reader.
    rules: bool

    def url(self, origin: Origin) -> str:
        return f"{origin}{self.path}"


ROBOTS_TXT = Document("robots.txt", "/robots.txt", "robotstxt", rules=True)
TDMREP_JSON = Document("tdmrep.json", "/.well-known/tdmrep.json", "robots_policy/tdmrep",
                       rules=False)
