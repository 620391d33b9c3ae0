"""Robots meta tags: which ``<meta>`` elements of a parsed document address us (``robots``
and our crawler's name), and how much of them is read; in the same pass, the TDMRep tags
(``USAGE_META_NAMES``), which ``usage.tdmrep`` reads."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast

from lxml import etree

from scrapy_robots_policy.directives.fold import DirectiveReading, collect, new_reading
from scrapy_robots_policy.directives.lists import (
    MAX_VALUE_CHARS,
    MAX_VALUES,
    name_value,
    read_value,
    split_list,
)
from scrapy_robots_policy.directives.vocabulary import (
    ALL_AGENTS,
    META,
    USAGE_META_NAMES,
    Directive,
    addressee,
    quoted,
)

#: TDMRep meta tags kept per page (one of each is the norm).
_MAX_USAGE_TAGS = 4


def read_meta(tags: Iterable[tuple[str, str]], agent: str) -> DirectiveReading:
    """The directives of ``(name, content)`` meta tag pairs for ``robots`` or ``agent`` (a
    product token), folded, at most MAX_VALUES tags read; the TDMRep tags are kept as
    ``usage_meta``, other names skipped."""
    found, folded, problems, cut = reading = new_reading()
    read = 0
    usage: list[tuple[str, str]] = []
    for meta_name, content in tags:
        lowered = meta_name.strip().lower()
        scope = _meta_scope(lowered, agent)
        if scope is None:
            if lowered in USAGE_META_NAMES and len(usage) < _MAX_USAGE_TAGS:
                usage.append((lowered, content[:MAX_VALUE_CHARS]))
            continue
        if read == MAX_VALUES:
            cut.append(f"robots meta tags after the first {MAX_VALUES} not read")
            break
        read += 1
        text = read_value(content, "a robots meta content", cut)
        raw = quoted(text)
        for piece in split_list(text):
            name, value = name_value(piece)
            if name:
                collect(found, folded, problems, Directive(name, value, META, scope, raw))
    if usage:
        folded["usage_meta"] = tuple(usage)
    return reading


def _meta_scope(scope: str, agent: str) -> str | None:
    """Whom a meta tag's name (stripped, lower-cased) addresses if it is for us:
    ``robots`` or ``agent`` (a product token); None for every other meta tag."""
    if scope == ALL_AGENTS:
        return scope
    # Most meta tags (description, viewport...) fail the cheap test.
    if not agent or not scope.startswith(agent):
        return None
    # Its own token exactly (the usual case; a token reduces to itself), or a name that
    # reduces to it ("MyBot/1.0").
    return agent if scope == agent or addressee(scope) == agent else None


def meta_tags(selector: Any, agent: str,
               size: int | None = None) -> tuple[tuple[str, str], ...]:
    """The (name, content) pairs of a parsed document's meta tags for ``robots`` or
    ``agent`` that have both, in document order: as many as from_meta reads, and one more
    so that it sees there were more; and the first TDMRep tags (``usage_meta``). Other
    meta tags' contents are never read, so a page of 100,000 meta tags costs a walk over
    them, not 100,000 pairs. ``size``, when known, is the document's length (bytes or
    characters): no value is longer."""
    root = getattr(selector, "root", None)
    if not isinstance(root, etree._Element):  # a JSON or text selector has no tags
        return ()
    content_of = (_whole_content if size is not None and size <= _SMALL_DOCUMENT
                  else _content_start)
    # "{*}" also finds XHTML's namespaced meta when the page was parsed as XML.
    # lxml's own iteration is several times faster than an XPath with translate(), and
    # unlike an XPath's answer it is not a list of every meta element.
    tags = []
    read = usage = 0
    for top in _top_level(root):
        for node in top.iter("{*}meta"):
            name = node.get("name")
            if name is None:
                continue
            lowered = name.strip().lower()
            robots = _meta_scope(lowered, agent) is not None
            if not robots and (usage == _MAX_USAGE_TAGS or lowered not in USAGE_META_NAMES):
                continue
            content = content_of(node)
            if content is None:
                continue
            tags.append((name, content))
            if not robots:
                usage += 1
            elif (read := read + 1) > MAX_VALUES:
                return tuple(tags)
    return tuple(tags)


# A meta tag's content as read: past the read limit by one character that says "longer"
# (see read_value). Both readers give the same; they differ in what they cost.
_CONTENT_START = etree.XPath(f"substring(@content, 1, {MAX_VALUE_CHARS + 1})",
                             smart_strings=False)
#: Documents up to this length have their meta contents read whole, then cut.
_SMALL_DOCUMENT = 1 << 20


def _content_start(node: etree._Element) -> str | None:
    """Cut by libxml2: ``node.get("content")`` would first make all of a 10 MB value a
    Python string, beside libxml2's own copy of it. An XPath call costs about 1 µs."""
    if "content" not in node.attrib:
        return None
    # substring() always gives a string; lxml's stubs type an XPath's answer as any result.
    return cast(str, _CONTENT_START(node))


def _whole_content(node: etree._Element) -> str | None:
    """Read whole, then cut: several times faster, and in a small document, where no value
    is longer than 1 MiB, the copy costs less than the page's own text and tree."""
    content = node.get("content")
    return None if content is None else content[:MAX_VALUE_CHARS + 1]


def _top_level(root: etree._Element) -> Iterator[etree._Element]:
    """The document's top-level nodes in document order, ``root`` among them.

    A meta tag after ``</html>`` is the page's too (a browser moves it into the body), but
    libxml2 2.14 puts what follows ``</html>`` in a second root element, a sibling of
    ``root`` that ``root.iter()`` never reaches. Comments there have no meta descendants.
    """
    first = root
    while (previous := first.getprevious()) is not None:
        first = previous
    yield first
    if first.getnext() is not None:  # most documents have one top-level node
        yield from first.itersiblings()


def html_text(html: str | bytes) -> str:
    """An HTML document as text: bytes decoded the way Scrapy does (BOM, meta charset...)."""
    if isinstance(html, bytes):
        from w3lib.encoding import html_to_unicode

        return html_to_unicode(None, html)[1]
    return html
