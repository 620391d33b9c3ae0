"""What of a Scrapy response is read for its directives: its X-Robots-Tag and Robots-Tag
headers, and its robots meta tags when it is HTML, without importing Scrapy."""

from __future__ import annotations

from typing import Any, Protocol

from scrapy_robots_policy.directives.lists import MAX_VALUES, header_text
from scrapy_robots_policy.directives.meta import meta_tags, streamed_meta_tags
from scrapy_robots_policy.directives.robots_tag import field_lines
from scrapy_robots_policy.directives.vocabulary import ALL_AGENTS, USAGE_META_NAMES

#: Characters of a page lower-cased at once when looking for the names of meta tags.
_PIECE = 1 << 16


class HtmlAccess(Protocol):
    """How the HTML of a response is reached: a tree to read, or its text to stream.

    Scrapy keeps a page's tree and its decoded text on the response, once made, for as
    long as the response lives. A spider that parses its pages builds the tree anyway,
    and reading it spares a second parse; for one that never parses, a tree built for
    the directives would be the plugin's own cost (some ten times the page), and the
    page is streamed through the parser instead. Scrapy's public API says neither
    whether a tree was built nor how to decode without keeping the text: the spider
    middleware chooses, and reads, through ``scrapy/``.
    """

    def tree(self, response: Any) -> Any | None:
        """The response's selector to read the meta tags from, or None to stream its
        text."""

    def text(self, response: Any) -> str:
        """The response's text as ``response.text`` decodes it."""


class PublicHtmlAccess:
    """Through Scrapy's public API alone: no tree is known to be built, so the page is
    streamed; its text stays on the response (``response.text`` keeps it)."""

    def tree(self, response: Any) -> Any | None:
        return None

    def text(self, response: Any) -> str:
        text: str = response.text
        return text


PUBLIC_HTML = PublicHtmlAccess()


def read_response(response: Any, agent: str, html: HtmlAccess = PUBLIC_HTML) -> tuple[
        tuple[str, ...], tuple[tuple[str, str], ...], list[str]]:
    """The response's X-Robots-Tag values, its (name, content) meta tags for ``robots``
    or ``agent`` (a product token), and what could not be read at all."""
    errors: list[str] = []
    try:
        # One value past the bound, so from_x_robots_tag still sees there were more.
        headers = tuple(header_text(v) for v in
                        response.headers.getlist(b"X-Robots-Tag")[:MAX_VALUES + 1])
    except Exception as error:
        headers = ()
        errors.append(f"could not read X-Robots-Tag headers: {error!r}")
    tags: tuple[tuple[str, str], ...] = ()
    if _is_html(response):
        tags, unread = _meta_tags(response, agent, html)
        if unread:
            errors.append(unread)
    return headers, tags, errors


def robots_tag_lines(response: Any, errors: list[str]) -> tuple[str, ...]:
    """The response's Robots-Tag field lines as read (see ``robots_tag.field_lines``); what
    could not be read at all goes to ``errors``."""
    try:
        return field_lines(response.headers.getlist(b"Robots-Tag"))
    except Exception as error:
        errors.append(f"could not read Robots-Tag headers: {error!r}")
        return ()


def _meta_tags(response: Any, agent: str, html: HtmlAccess) -> tuple[
        tuple[tuple[str, str], ...], str | None]:
    """The meta tags of an HTML response, and why they could not be read: from the tree
    ``html`` gives, else streamed from its text (an ``HtmlResponse``: no tree is left
    behind), else from the tree Scrapy builds (XHTML in another response type)."""
    try:
        tree = html.tree(response)
        if tree is None and _is_html_response(response):
            text = html.text(response)
            return (streamed_meta_tags(text, agent, response.body)
                    if _may_hold_tags(text, agent) else ()), None
        if tree is None:
            tree = response.selector
    except Exception as error:
        return (), f"could not parse HTML: {error!r}"
    try:
        return meta_tags(tree, agent, len(response.body)), None
    except Exception as error:
        return (), f"could not read meta tags: {error!r}"


def _may_hold_tags(text: str, agent: str) -> bool:
    """Whether an HTML page's text can hold a meta tag the readers read: False spares the
    parse of a page without one (the largest cost of this middleware in a crawl whose
    spider parses nothing).

    A tag's lower-cased name starts with ``robots``, ``agent`` or a TDMRep name, so its
    text holds that word once lower-cased, unless it is spelled with character
    references ("&#114;obots") or NULs, which the parser drops. Only for an
    ``HtmlResponse``: an XML parse may define entities of its own.
    """
    if "&#" in text or "\0" in text:
        return True
    names = [name for name in (ALL_AGENTS, *USAGE_META_NAMES, agent) if name]
    overlap = max(map(len, names)) - 1
    # Lower-cased a piece at a time: a page of megabytes is not copied whole.
    for start in range(0, len(text), _PIECE):
        low = text[start : start + _PIECE + overlap].lower()
        if any(name in low for name in names):
            return True
    return False


def _is_html(response: Any) -> bool:
    """Scrapy's own choice (HtmlResponse), or XHTML served with its XML media type."""
    if _is_html_response(response):
        return True
    if not hasattr(response, "selector"):
        return False
    try:
        content_type = response.headers.get(b"Content-Type") or b""
    except Exception:
        return False
    mime = content_type.split(b";")[0].strip().lower()
    return mime == b"application/xhtml+xml"


def _is_html_response(response: Any) -> bool:
    return any(cls.__name__ == "HtmlResponse" for cls in type(response).__mro__)
