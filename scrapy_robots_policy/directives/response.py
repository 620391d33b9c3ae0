"""What of a Scrapy response is read for its directives: its X-Robots-Tag and Robots-Tag
headers, and its robots meta tags when it is HTML, without importing Scrapy."""

from __future__ import annotations

from typing import Any

from scrapy_robots_policy.directives.lists import MAX_VALUES, header_text
from scrapy_robots_policy.directives.meta import meta_tags
from scrapy_robots_policy.directives.robots_tag import field_lines
from scrapy_robots_policy.directives.vocabulary import ALL_AGENTS, USAGE_META_NAMES

#: Characters of a page lower-cased at once when looking for the names of meta tags.
_PIECE = 1 << 16


def read_response(response: Any, agent: str) -> tuple[
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
    if _is_html(response) and _may_hold_tags(response, agent):
        try:
            selector = response.selector
        except Exception as error:
            errors.append(f"could not parse HTML: {error!r}")
        else:
            try:
                tags = meta_tags(selector, agent, len(response.body))
            except Exception as error:
                errors.append(f"could not read meta tags: {error!r}")
    return headers, tags, errors


def robots_tag_lines(response: Any, errors: list[str]) -> tuple[str, ...]:
    """The response's Robots-Tag field lines as read (see ``robots_tag.field_lines``); what
    could not be read at all goes to ``errors``."""
    try:
        return field_lines(response.headers.getlist(b"Robots-Tag"))
    except Exception as error:
        errors.append(f"could not read Robots-Tag headers: {error!r}")
        return ()


def _may_hold_tags(response: Any, agent: str) -> bool:
    """Whether an HTML page can hold a meta tag ``meta_tags`` reads: False spares the
    parse of a page without one (the largest cost of this middleware in a crawl whose
    spider parses nothing).

    A tag's lower-cased name starts with ``robots``, ``agent`` or a TDMRep name, so its
    text holds that word once lower-cased, unless it is spelled with character
    references ("&#114;obots") or NULs, which the parser drops. Only ``HtmlResponse``:
    an XML parse may define entities of its own.
    """
    if not _is_html_response(response):
        return True
    try:
        text = response.text
    except Exception:
        return True  # the parse will say what went wrong
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
