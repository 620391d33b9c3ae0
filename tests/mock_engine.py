"""Unit tests the way many users write them: a ``MagicMock`` crawler whose engine is mocked.

Scrapy's own tests of its robots.txt middleware build the crawler so, and users copy the
pattern to test their spiders. The mocked engine answers robots.txt requests with canned
responses (or errors) on a later turn of the reactor, as a real download would.

Each scenario runs in a forked child with its own installed reactor (:func:`in_reactor`):
installing one in the test process would make every later crawl child inherit it, and a
crawl asking for another reactor would then fail.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import multiprocessing
import traceback
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from scrapy.core.engine import ExecutionEngine
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Request, Response
from scrapy.settings import Settings
from scrapy.signalmanager import SignalManager

#: What the middleware calls to download robots.txt, as Scrapy's own middleware does:
#: ``engine.download_async`` from Scrapy 2.14, ``engine.download`` (a Deferred) before.
DOWNLOAD_ASYNC = hasattr(ExecutionEngine, "download_async")
#: ``SignalManager.send_catch_log_async`` (Scrapy 2.14+); Scrapy's tests mock it.
SEND_ASYNC = hasattr(SignalManager, "send_catch_log_async")

REACTORS = {
    "asyncio": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    "epoll": "twisted.internet.epollreactor.EPollReactor",
}

Outcome = Response | BaseException


def mock_crawler(settings: dict[str, Any] | None = None) -> mock.MagicMock:
    """A crawler as Scrapy's ``tests/test_downloadermiddleware_robotstxt.py`` builds it."""
    crawler = mock.MagicMock()
    crawler.settings = Settings(settings or {})
    if DOWNLOAD_ASYNC:
        crawler.engine.download_async = mock.AsyncMock()
    else:
        crawler.engine.download = mock.MagicMock()
    if SEND_ASYNC:
        crawler.signals.send_catch_log_async = mock.AsyncMock(return_value=[])
    return crawler


def engine_download(crawler: mock.MagicMock) -> mock.MagicMock:
    """The mocked engine method the middleware downloads through."""
    engine = crawler.engine
    return engine.download_async if DOWNLOAD_ASYNC else engine.download  # type: ignore[no-any-return]


def answer(crawler: mock.MagicMock, outcome: Outcome | Callable[[Request], Outcome],
           immediate: bool = False) -> None:
    """Make the mocked engine answer each download with ``outcome`` (or ``outcome(request)``):
    a response, or an exception raised by the download; on the next reactor turn, or at
    once with ``immediate``."""
    from scrapy.utils.defer import maybe_deferred_to_future
    from twisted.internet import defer
    from twisted.python.failure import Failure

    def deferred(request: Request) -> defer.Deferred[Response]:
        from twisted.internet import reactor  # the child's (importing it installs one)

        result = outcome(request) if callable(outcome) else outcome
        d: defer.Deferred[Response] = defer.Deferred()
        fire = ((lambda: d.errback(Failure(result))) if isinstance(result, BaseException)
                else (lambda: d.callback(result)))
        if immediate:
            fire()
        else:
            reactor.callLater(0, fire)  # type: ignore[attr-defined]
        return d

    if DOWNLOAD_ASYNC:
        async def download_async(request: Request) -> Response:
            if immediate:
                result = outcome(request) if callable(outcome) else outcome
                if isinstance(result, BaseException):
                    raise result
                return result
            return await maybe_deferred_to_future(deferred(request))

        crawler.engine.download_async.side_effect = download_async
    else:
        crawler.engine.download.side_effect = deferred


async def decide(middleware: Any, request: Request) -> None:
    """Run ``process_request`` to its end: None when allowed, IgnoreRequest when refused."""
    result = middleware.process_request(request)
    if inspect.isawaitable(result):
        await result


async def assert_allowed(middleware: Any, request: Request) -> None:
    try:
        await decide(middleware, request)
    except IgnoreRequest as exc:
        pytest.fail(f"{request} refused: {exc}")


async def assert_refused(middleware: Any, request: Request) -> IgnoreRequest:
    with pytest.raises(IgnoreRequest) as info:
        await decide(middleware, request)
    return info.value


class Records(logging.Handler):
    """Log lines of the child, as ``LEVEL logger: message``."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @classmethod
    @contextlib.contextmanager
    def attached(cls) -> Iterator[Records]:
        """Collect what every logger says at DEBUG and above while the block runs."""
        records = cls()
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.DEBUG)
        root.addHandler(records)
        try:
            yield records
        finally:
            root.removeHandler(records)
            root.setLevel(level)


def in_reactor(scenario: Callable[[], Awaitable[Any]], reactor: str = "asyncio",
               timeout: float = 60) -> Any:
    """Run ``scenario()`` to its end in a forked child with ``reactor`` installed and
    running; return what it returns, or fail the test with the child's traceback."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, scenario, REACTORS[reactor]))
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            proc.kill()
            pytest.fail(f"scenario did not finish within {timeout} s", pytrace=False)
        ok, value = parent.recv()
    finally:
        proc.join(10)
    if not ok:
        pytest.fail(f"in the child ({reactor} reactor):\n{value}", pytrace=False)
    return value


def _child(conn: Any, scenario: Callable[[], Awaitable[Any]], reactor_path: str) -> None:
    try:
        from scrapy.utils.defer import deferred_from_coro
        from scrapy.utils.reactor import install_reactor

        install_reactor(reactor_path)
        from twisted.internet import reactor

        outcome: list[tuple[bool, Any]] = []

        async def run() -> Any:
            return await scenario()

        def start() -> None:
            d = deferred_from_coro(run())
            d.addCallbacks(lambda value: outcome.append((True, value)),
                           lambda failure: outcome.append((False, failure.getTraceback())))
            d.addBoth(lambda _: reactor.stop())  # type: ignore[attr-defined]

        reactor.callWhenRunning(start)  # type: ignore[attr-defined]
        reactor.run(installSignalHandlers=False)  # type: ignore[attr-defined]
        conn.send(outcome[0] if outcome else (False, "the reactor stopped early"))
    except BaseException:
        conn.send((False, traceback.format_exc()))
    finally:
        conn.close()
