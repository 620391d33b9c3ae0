"""What of a Scrapy response is read for its directives: its X-Robots-Tag headers, and
its robots meta tags when it is HTML, without importing Scrapy."""

from __future__ import annotations

from typing import Any

from scrapy_robots_policy.directives.lists import _MAX_VALUES, _text
from scrapy_robots_policy.directives.meta import _meta_tags


def _read_response(response: Any, agent: str) -> tuple[
        tuple[str, ...], tuple[tuple[str, str], ...], list[str]]:
    """The response's X-Robots-Tag values, its (name, content) meta tags for ``robots``
    or ``agent`` (a product token), and what could not be read at all."""
    errors: list[str] = []
    try:
        # One value past the bound, so from_x_robots_tag still sees there were more.
        headers = tuple(_text(v) for v in
                        response.headers.getlist(b"X-Robots-Tag")[:_MAX_VALUES + 1])
    except Exception as error:
        headers = ()
        errors.append(f"could not read X-Robots-Tag headers: {error!r}")
    tags: tuple[tuple[str, str], ...] = ()
    if _is_html(response):
        try:
            selector = response.selector
        except Exception as error:
            errors.append(f"could not parse HTML: {error!r}")
        else:
            try:
                tags = _meta_tags(selector, agent, len(response.body))
            except Exception as error:
                errors.append(f"could not read meta tags: {error!r}")
    return headers, tags, errors


def _is_html(response: Any) -> bool:
    """Scrapy's own choice (HtmlResponse), or XHTML served with its XML media type."""
    if any(cls.__name__ == "HtmlResponse" for cls in type(response).__mro__):
        return True
    if not hasattr(response, "selector"):
        return False
    try:
        content_type = response.headers.get(b"Content-Type") or b""
    except Exception:
        return False
    mime = content_type.split(b";")[0].strip().lower()
    return mime == b"application/xhtml+xml"
