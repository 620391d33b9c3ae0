"""The vocabulary of page-level directives: where they come from, which names are known,
and :class:`Directive`, one directive as the site gave it with its provenance."""

from __future__ import annotations

from typing import NamedTuple

from scrapy_robots_policy.robotstxt import product_token

HEADER = "X-Robots-Tag"
#: draft-illyes-repext's structured-field successor of X-Robots-Tag (see :mod:`.robots_tag`).
ROBOTS_TAG = "Robots-Tag"
META = "meta"

#: The meta name and header scope that address every crawler.
ALL_AGENTS = "robots"

# Directives that take a value after a colon. In an X-Robots-Tag value, ``name:`` is a
# user-agent prefix unless the name is one of these, so ``max-snippet: 20`` never
# scopes anything to a crawler called "max-snippet".
VALUED = frozenset({"max-snippet", "max-image-preview", "max-video-preview", "unavailable_after"})
FLAGS = frozenset({
    "all", "index", "follow", "noindex", "nofollow", "none", "noarchive", "nosnippet",
    "notranslate", "noimageindex", "indexifembedded",
    # DeviantArt's convention, also honoured by other sites: no AI use of the page's
    # content (noai) or of its images (noimageai); ``usage.noai`` maps them to purposes.
    "noai", "noimageai",
})
#: Meta tag names read beside the robots ones, in the same pass: TDMRep's page-level
#: declaration (``usage.tdmrep`` reads them).
USAGE_META_NAMES = frozenset({"tdm-reservation", "tdm-policy"})

#: Characters of a value quoted as provenance (``Directive.raw``) and so in log lines.
_MAX_QUOTED_CHARS = 200


class Directive(NamedTuple):
    """One directive as the site gave it, with its provenance (a tuple: cheap to build)."""

    name: str  # lower-cased: "noindex", "max-snippet", ...
    value: str | None  # text after the colon for valued directives, as written
    source: str  # HEADER, ROBOTS_TAG or META
    agent: str  # "robots" (every crawler) or the crawler name it was addressed to
    #: The X-Robots-Tag value, Robots-Tag member or meta content it came from, its first 200
    #: characters and "…" if longer.
    raw: str

    @property
    def text(self) -> str:
        return self.name if self.value is None else f"{self.name}: {self.value}"

    @property
    def origin(self) -> str:
        """Where the directive was found, written the way the site wrote it."""
        if self.source in (HEADER, ROBOTS_TAG):
            return f"{self.source}: {self.raw}"
        return f'<meta name="{self.agent}" content="{self.raw}">'

    def __str__(self) -> str:
        return f"{quoted(self.text)} (from {self.origin})"


def quoted(text: str) -> str:
    """A value as quoted in provenance and logs: whole if short, else its start and "…"."""
    return text if len(text) <= _MAX_QUOTED_CHARS else text[:_MAX_QUOTED_CHARS] + "…"


def addressee(name: str) -> str:
    """Whom a meta name or X-Robots-Tag prefix addresses, to compare with the crawler's
    ``product_token``: the same token, whole ("MJ12bot/1.0" -> "mj12bot", never "mj", so
    ``mj99bot: noindex`` is not for MJ12bot), or the name itself ("robots")."""
    return product_token(name) or name.strip().lower()
