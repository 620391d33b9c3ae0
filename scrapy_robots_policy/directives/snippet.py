"""Snippet text: which of a page's text may appear in a snippet (``data-nosnippet``)."""

from __future__ import annotations

from typing import Any

from lxml import etree

from scrapy_robots_policy.directives.meta import html_text

# Only these elements honour data-nosnippet (SPEC section 6); <mytag data-nosnippet> does not.
_NOSNIPPET_ELEMENTS = frozenset({"span", "div", "section"})
_NO_TEXT_ELEMENTS = frozenset({"script", "style", "template", "noscript", "head"})


def snippet_text(document: Any) -> str:
    """The page's text that may appear in a snippet: ``data-nosnippet`` parts left out.

    ``document`` is HTML (str or bytes) or a parsel Selector (``response.selector``).
    An unclosed ``<div data-nosnippet>`` runs to the end of the page, as the HTML parser
    closes it there. Whitespace is collapsed. Never raises: unreadable HTML gives "".

    >>> snippet_text('<p>shown <span data-nosnippet>hidden</span>.</p>')
    'shown .'
    """
    try:
        root = _document_root(document)
        if root is None:
            return ""
        parts: list[str] = []
        walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
        for event, element in walker:
            if event != "start":  # the text after an element (or comment) is outside it
                if element.tail and element is not root:
                    parts.append(element.tail)
                continue
            name = etree.QName(element).localname.lower()
            if name in _NO_TEXT_ELEMENTS or (
                    name in _NOSNIPPET_ELEMENTS and element.get("data-nosnippet") is not None):
                walker.skip_subtree()
            elif element.text:
                parts.append(element.text)
        return " ".join("".join(parts).split())
    except Exception:  # lxml refuses some inputs; bad HTML must never raise
        return ""


def _document_root(document: Any) -> Any:
    root = getattr(document, "root", None)
    if isinstance(root, etree._Element):
        return root
    if isinstance(document, (str, bytes)):
        from parsel import Selector

        text = html_text(document)
        if text.strip():
            return Selector(text=text, type="html").root
    return None
