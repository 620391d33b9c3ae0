"""Robots meta tags: which ``<meta>`` elements of a document address us (``robots`` and
our crawler's name), and how much of them is read; in the same pass, the TDMRep tags
(``USAGE_META_NAMES``), which ``usage.tdmrep`` reads. Two readers pick them alike
(:class:`_Picking`): :func:`meta_tags` walks a tree already built, and
:func:`streamed_meta_tags` streams a document's text through the same parser, no tree
built."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

import lxml.html
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


class _Picking:
    """Which meta tags of a document are read, as either reader meets them in document
    order: those for ``robots`` or ``agent`` that have a content, as many as from_meta
    reads and one more so that it sees there were more, and the first TDMRep tags
    (``usage_meta``). Other meta tags' contents are never read, so a page of 100,000 meta
    tags costs a walk over them, not 100,000 pairs."""

    def __init__(self, agent: str):
        self.agent = agent
        self.tags: list[tuple[str, str]] = []
        self.robots = self.usage = 0

    def wanted(self, name: str) -> bool | None:
        """True for a robots tag's name, False for a TDMRep tag still read, else None."""
        lowered = name.strip().lower()
        if _meta_scope(lowered, self.agent) is not None:
            return True
        if self.usage < _MAX_USAGE_TAGS and lowered in USAGE_META_NAMES:
            return False
        return None

    def take(self, name: str, content: str, robots: bool) -> bool:
        """Keep one wanted tag (its content as read); whether enough have been read."""
        self.tags.append((name, content))
        if not robots:
            self.usage += 1
            return False
        self.robots += 1
        return self.robots > MAX_VALUES


def meta_tags(selector: Any, agent: str,
              size: int | None = None) -> tuple[tuple[str, str], ...]:
    """The (name, content) pairs :class:`_Picking` reads of a parsed document's meta tags
    (a parsel Selector's tree, which stays as it is). ``size``, when known, is the
    document's length (bytes or characters): no value is longer."""
    root = getattr(selector, "root", None)
    if not isinstance(root, etree._Element):  # a JSON or text selector has no tags
        return ()
    content_of = (_whole_content if size is not None and size <= _SMALL_DOCUMENT
                  else _content_start)
    picking = _Picking(agent)
    # "{*}" also finds XHTML's namespaced meta when the page was parsed as XML.
    # lxml's own iteration is several times faster than an XPath with translate(), and
    # unlike an XPath's answer it is not a list of every meta element.
    for node in (meta for top in _top_level(root) for meta in top.iter("{*}meta")):
        name = node.get("name")
        robots = None if name is None else picking.wanted(name)
        if name is None or robots is None:
            continue
        content = content_of(node)
        if content is not None and picking.take(name, content, robots):
            break
    return tuple(picking.tags)


def streamed_meta_tags(text: str, agent: str, encoded: bytes | None = None
                       ) -> tuple[tuple[str, str], ...]:
    """The pairs :func:`meta_tags` would read in the tree parsel builds of ``text`` (an
    HTML document, decoded), read as libxml2 parses it, no tree built: the tree of a page
    of 100,000 meta tags is some ten times the page, and Scrapy would keep it on the
    response for as long as the response lives. The parse stops once enough are read.

    ``encoded`` (the page's bytes), when it is exactly what parsel parses for ``text``,
    is parsed as it is, in one call as parsel parses it: nothing is copied, where fed a
    piece at a time libxml2 grows a buffer for an unfinished tag (pages with a 10 MiB
    meta content: +64 MB of peak memory over Scrapy alone before, +16 to +45 MB after)."""
    parser, target = _thread_parser()
    target.picking = picking = _Picking(agent)
    try:
        if encoded is not None and _parsed_as_is(text, encoded):
            etree.fromstring(encoded, parser)
        else:
            for piece in _parsed_pieces(text):
                parser.feed(piece)
            parser.close()
    except _Enough:
        pass  # lxml ends a parse whose feed raised: the parser is ready for the next
    except BaseException:
        _PARSERS.kept = None  # a parse may be left half fed: the next call starts anew
        raise
    finally:
        target.picking = _NOBODY
    return tuple(picking.tags)


def _parsed_as_is(text: str, encoded: bytes) -> bool:
    """Whether ``encoded`` is what parsel parses for ``text``: ``text`` in UTF-8, with
    nothing to strip and no NUL (compared a piece at a time: no copy of the page)."""
    if (not text or text[0].isspace() or text[-1].isspace() or "\0" in text
            or (text.isascii() and len(text) != len(encoded))):
        return False
    view = memoryview(encoded)
    at = 0
    for start in range(0, len(text), _PIECE):
        try:
            piece = text[start : start + _PIECE].encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the text path fails as parsel does
            return False
        if view[at : at + len(piece)] != piece:
            return False
        at += len(piece)
    return at == len(encoded)


def _parsed_pieces(text: str) -> Iterator[bytes]:
    """What parsel parses for ``text``, so that the parser sees the events of the tree
    Scrapy builds, in the same order (meta tags in the body, after </html>, in broken
    markup alike): the text stripped, without NULs (the parser would read U+FFFD), as
    UTF-8, ``<html/>`` when nothing is left; a piece at a time, so that a page of
    megabytes is never copied whole."""
    start, end = _stripped(text)
    empty = True
    for at in range(start, end, _PIECE):
        piece = text[at : min(at + _PIECE, end)].replace("\0", "").encode("utf-8")
        if piece:
            empty = False
            yield piece
    if empty:
        yield b"<html/>"


def _stripped(text: str) -> tuple[int, int]:
    """Where ``text.strip()`` starts and ends in ``text``, without that copy of it."""
    start, end = 0, len(text)
    while start < end:
        head = text[start : start + _WINDOW]
        kept = head.lstrip()
        start += len(head) - len(kept)
        if kept:
            break
    while end > start:
        tail = text[max(start, end - _WINDOW) : end]
        kept = tail.rstrip()
        end -= len(tail) - len(kept)
        if kept:
            break
    return start, end


#: Characters given to the parser at a time, and looked at at a time for the whitespace
#: that parsel strips.
_PIECE = 1 << 16
_WINDOW = 256


class _Enough(Exception):
    """Raised by the parser target to stop the parse: the rest would not be read."""


class _MetaTarget:
    """An lxml parser target: only ``start`` is defined, so libxml2 calls into Python for
    each element's start tag and for nothing else (no text, no tree)."""

    def __init__(self) -> None:
        self.picking = _NOBODY

    def start(self, tag: str, attrib: Mapping[str, str]) -> None:
        # The HTML parser lower-cases tag names and keeps no namespaces: <svg:meta> is not
        # a meta element, in the tree either.
        if tag != "meta":
            return
        name = attrib.get("name")
        robots = None if name is None else self.picking.wanted(name)
        if name is None or robots is None:
            return
        content = attrib.get("content")
        # Cut as the tree readers cut it: one character past the read limit says "longer".
        if content is not None and self.picking.take(
                name, content[:MAX_VALUE_CHARS + 1], robots):
            raise _Enough

    def close(self) -> None:
        return None


#: Whom the target reads for between parses (never asked: no parse runs then).
_NOBODY = _Picking("")
#: One parser per thread, as lxml parsers must be used: making a parser with a target
#: costs more than parsing a small page with it, so each thread keeps one.
_PARSERS = threading.local()


def _thread_parser() -> tuple[etree.HTMLParser, _MetaTarget]:
    """This thread's parser, the HTML parser parsel makes for a page (recovering, UTF-8,
    no size limit), feeding its ``_MetaTarget``."""
    kept: tuple[etree.HTMLParser, _MetaTarget] | None = getattr(_PARSERS, "kept", None)
    if kept is None:
        target = _MetaTarget()
        # lxml calls only the methods a target has; its stubs ask for all five.
        parser = lxml.html.HTMLParser(recover=True, encoding="utf-8", huge_tree=True,
                                      target=cast("etree.ParserTarget", target))
        kept = _PARSERS.kept = (parser, target)
    return kept


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
