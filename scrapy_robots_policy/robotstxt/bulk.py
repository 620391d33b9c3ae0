"""Indexes built in bulk, without the cyclic garbage collector's passes in between.

A first question can build 40,000 rules and their index: tens of thousands of small
objects, none of which refers back to another, so no collection during the build can
free anything. Yet every 700 allocations start one, and some of them traverse every
object of the crawl (the oldest generation): a tenth to a fifth of such a question.
The collector waits until the build is done; what it built is traversed once after.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_T = TypeVar("_T")


def without_collections(build: Callable[_P, _T]) -> Callable[_P, _T]:
    """``build``, run with the collector paused (if it was running: a crawl that turned it
    off keeps it off)."""

    @wraps(build)
    def in_bulk(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        if not gc.isenabled():
            return build(*args, **kwargs)
        gc.disable()
        try:
            return build(*args, **kwargs)
        finally:
            gc.enable()

    return in_bulk
