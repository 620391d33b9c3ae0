"""Whether the spider middleware reads a page's meta tags from the page's own tree, or
streams the page through the parser: learnt, per callback, from what the spider did with
the pages it read before.

Scrapy keeps a page's tree on the response for as long as the response lives. A spider
that parses its pages builds that tree anyway: reading it spares a second parse of each
page. A spider that never parses would keep a tree per page it never asked for (some
ten times the page): its pages are streamed, and nothing is left on the response. The
middleware reads a page before its callback runs, so it learns from the pages before:
after a streamed page's callback has run, whether the page's tree was built tells
whether that callback parses. Either way the same meta tags are read; only the cost
differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from scrapy.http import Response

from scrapy_robots_policy.directives.response import HtmlAccess
from scrapy_robots_policy.scrapy.internals import SCRAPY_HTML

#: Of the pages of a callback that parses, one in this many is streamed all the same, to
#: notice when it stops parsing (at the cost of one page parsed twice).
PROBE_EVERY = 16


class SharedTree:
    """The page's own tree (``response.selector``), built now if need be, and kept on the
    response for the spider that parses it."""

    def tree(self, response: Any) -> Any | None:
        return response.selector

    def text(self, response: Any) -> str:
        return SCRAPY_HTML.text(response)


SHARED_TREE = SharedTree()


@dataclass
class _Callback:
    """What is known of one callback: whether it parsed the last page streamed to it, and
    how many pages it has been given trees since."""

    parses: bool = False
    shared: int = 0


class PageTrees:
    """Chooses how each page is read (:meth:`access`) and learns from the spider
    (:meth:`learn`)."""

    def __init__(self) -> None:
        self._callbacks: dict[str | None, _Callback] = {}
        self._streamed: WeakKeyDictionary[Response, str | None] = WeakKeyDictionary()

    def access(self, response: Response) -> HtmlAccess:
        """How to read this page: its own tree if its callback parses (most of the time),
        else streamed."""
        name = _callback_name(response)
        callback = self._callbacks.setdefault(name, _Callback())
        if callback.parses and callback.shared < PROBE_EVERY - 1:
            callback.shared += 1
            return SHARED_TREE
        callback.shared = 0
        self._streamed[response] = name
        return SCRAPY_HTML

    def learn(self, response: Response) -> None:
        """Once the callback of a page is done with it: if the page was streamed, whether
        the callback built its tree."""
        if response in self._streamed:
            name = self._streamed.pop(response)
            self._callbacks[name].parses = SCRAPY_HTML.tree(response) is not None


def _callback_name(response: Response) -> str | None:
    """The qualified name of the callback the page goes to (None for the spider's
    ``parse``): a name, so that callbacks made anew per request (lambdas, bound methods)
    share what is known of them, and what is kept stays as small as the spider's code."""
    request = getattr(response, "request", None)
    callback = getattr(request, "callback", None)
    return None if callback is None else getattr(callback, "__qualname__", None)
