"""Which objects a page's callback yields are dropped, and why: the page-level policy.

Items of a page that may not be indexed (noindex, none, a past unavailable_after) are
dropped; requests of a page whose links may not be followed are not, either all of them
or, with ``ROBOTS_POLICY_NOFOLLOW_LINKS_ONLY``, those that are links on the page; with
``ROBOTS_POLICY_OBEY_REL_NOFOLLOW``, neither are links only ever marked rel="nofollow".
Scrapy's middleware API is none of this module's business (``scrapy/spider.py`` is): it
reads a page's links through its selector (parsel's), and answers each object with one
:class:`Outcome` (kept or not, why, what to count and log) that the adapter applies as is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from w3lib.url import canonicalize_url

if TYPE_CHECKING:
    from scrapy_robots_policy.directives import Directive, RobotsDirectives
    from scrapy_robots_policy.usage import UsageDecision
    from scrapy_robots_policy.usage.policy import UsageReading

class PageSettings(Protocol):
    """What :class:`PagePolicy` reads of the crawl's settings (``RobotsPolicySettings`` of
    the Scrapy adapter has them all)."""

    @property
    def drop_noindex(self) -> bool: ...

    @property
    def obey_nofollow(self) -> bool: ...

    @property
    def nofollow_links_only(self) -> bool: ...

    @property
    def obey_rel_nofollow(self) -> bool: ...

    @property
    def enforce_usage(self) -> bool: ...


class Response(Protocol):
    """What is read of a page for its links: ``urljoin``, and its parsel ``selector`` when
    it has one (a Scrapy ``TextResponse`` has both; a binary response has no selector)."""

    def urljoin(self, url: str) -> str: ...


_LINKS_HTML = "//a[@href] | //area[@href]"
_LINKS_XML = "//*[local-name()='a' or local-name()='area'][@href]"


@dataclass(frozen=True)
class Reason:
    """A decision's stat suffix (the directive's name) and its log text (with provenance)."""

    name: str
    text: str

    @classmethod
    def of(cls, directive: Directive | None, fallback: str) -> Reason:
        return cls(directive.name, str(directive)) if directive else cls(fallback, fallback)


    @classmethod
    def of_usage(cls, refusal: UsageDecision) -> Reason:
        """``usage/<source>/<purpose>``: a declared purpose the page's signals refuse."""
        source = refusal.signal.source if refusal.signal is not None else "unknown"
        return cls(f"usage/{source}/{refusal.purpose}", refusal.reason)


REL_NOFOLLOW = Reason("rel_nofollow", 'a link marked rel="nofollow"')

#: Log lines of what is dropped (or only recorded), as the adapter formats them: ``url``
#: is the page's, ``why`` the reason's text, ``request`` the request not followed.
ITEM_DROPPED = "Dropped an item of %(url)s: %(why)s"
ITEM_RECORDED = "Kept an item of %(url)s (usage recorded, not enforced): %(why)s"
REQUEST_DROPPED = "Not following %(request)s of %(url)s: %(why)s"


@dataclass(frozen=True)
class Outcome:
    """What the page policy decided of one object a callback yielded, for the adapter to
    apply as it is: keep it or not, and what to count and log."""

    kept: bool = True
    #: The stat counted (under ``robots_policy/``, and again per ``reason.name``), and the
    #: reason told, when the object is dropped, or kept with a refusal only recorded.
    count: str | None = None
    reason: Reason | None = None
    message: str = ""  # the log line, one of ITEM_DROPPED, ITEM_RECORDED, REQUEST_DROPPED
    #: The page's links were read to decide this object, and could not be (an error to
    #: count and log once per page: only the object that first read them says so).
    links_unreadable: bool = False


#: Kept, and nothing to count: most objects of most pages.
KEPT = Outcome()


@dataclass(frozen=True)
class PageLinks:
    """A page's ``<a href>``/``<area href>`` links, as canonical URLs."""

    urls: frozenset[str]
    rel_nofollow: frozenset[str]  # URLs only ever linked with rel="nofollow"
    readable: bool  # False when a document's links could not be read (none are known)

    @classmethod
    def read(cls, response: Response) -> PageLinks:
        """The links of a Scrapy response, from its own (usually already built) selector.

        A response that is not text has no links, and that is no error.
        """
        try:
            selector = response.selector  # type: ignore[attr-defined]
            nodes = selector.xpath(_LINKS_HTML if selector.type == "html" else _LINKS_XML)
        except Exception:
            return cls(frozenset(), frozenset(), readable=not hasattr(response, "text"))
        urls: set[str] = set()
        followed: set[str] = set()
        nofollowed: set[str] = set()
        for node in nodes:
            attrib = node.attrib
            try:
                url = _canonical(response.urljoin(attrib.get("href", "").strip()))
            except Exception:  # hrefs such as "http://[" cannot be joined: not a link to follow
                continue
            urls.add(url)
            if "nofollow" in attrib.get("rel", "").lower().split():
                nofollowed.add(url)
            else:
                followed.add(url)
        return cls(frozenset(urls), frozenset(nofollowed - followed), readable=True)


@dataclass
class Page:
    """What one response decided, computed once however many objects its callback yields."""

    directives: RobotsDirectives
    noindex: Reason | None  # why the page may not be indexed, if so
    nofollow: Reason | None  # why its links may not be followed, if so
    obey: bool  # False when the request opted out (dont_obey_robotstxt)
    filters: bool  # whether any object it yields could be dropped
    links: PageLinks | None = None  # read on demand: most pages never need them
    usage: UsageReading | None = None  # purposes declared: the page's usage decisions
    unusable: Reason | None = None  # why a declared purpose is refused, if one is

    def read_links(self, response: Response) -> PageLinks:
        if self.links is None:
            self.links = PageLinks.read(response)
        return self.links


class PagePolicy:
    """The page-level settings applied to a page's directives and to what its callback yields."""

    def __init__(self, settings: PageSettings) -> None:
        self.drop_noindex = settings.drop_noindex
        self.obey_nofollow = settings.obey_nofollow
        self.links_only = settings.nofollow_links_only
        self.obey_rel_nofollow = settings.obey_rel_nofollow
        self.enforce_usage = settings.enforce_usage

    def judge(self, directives: RobotsDirectives, *, obey: bool = True,
              usage: UsageReading | None = None) -> Page:
        noindex = nofollow = unusable = None
        if not directives.indexable():
            noindex = Reason.of(directives.why_not_indexable(), "noindex")
        if directives.nofollow:
            nofollow = Reason.of(directives.decided_by("nofollow"), "nofollow")
        refusal = usage.refusal if usage is not None else None
        if refusal is not None:
            unusable = Reason.of_usage(refusal)
        filters = obey and (noindex is not None or nofollow is not None
                            or unusable is not None or self.obey_rel_nofollow)
        return Page(directives, noindex, nofollow, obey, filters, usage=usage,
                    unusable=unusable)

    def for_item(self, page: Page) -> Outcome:
        """What becomes of an item yielded by ``page``'s callback: dropped (noindex, or a
        refused purpose while enforcing), kept with the refusal recorded (``"record"``),
        or kept."""
        if not page.obey:
            return KEPT
        if page.noindex is not None and self.drop_noindex:
            return Outcome(False, "items_dropped", page.noindex, ITEM_DROPPED)
        if page.unusable is None:
            return KEPT
        if self.enforce_usage:
            return Outcome(False, "items_dropped", page.unusable, ITEM_DROPPED)
        return Outcome(True, "items_refused_recorded", page.unusable, ITEM_RECORDED)

    def for_request(self, page: Page, response: Response, url: str) -> Outcome:
        """What becomes of a request for ``url`` yielded by ``response``'s callback."""
        if not page.obey:
            return KEPT
        unread = page.links is None
        reason = None
        if self.obey_nofollow and page.nofollow is not None and (
                not self.links_only or _canonical(url) in page.read_links(response).urls):
            reason = page.nofollow
        elif self.obey_rel_nofollow and _canonical(url) in page.read_links(response).rel_nofollow:
            reason = REL_NOFOLLOW
        failed = unread and page.links is not None and not page.links.readable
        if reason is None:
            return Outcome(links_unreadable=True) if failed else KEPT
        return Outcome(False, "requests_dropped", reason, REQUEST_DROPPED, failed)


def _canonical(url: str) -> str:
    """``url`` as links and requests are compared: canonicalised, else as written."""
    try:
        return canonicalize_url(url)
    except Exception:  # odd URLs are compared as written
        return url
