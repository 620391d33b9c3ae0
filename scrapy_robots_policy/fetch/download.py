"""One robots.txt download through Scrapy's engine, reduced to a :class:`~.policy.Fetched`.

Through the engine, so that proxies, headers, the HTTP cache and other middlewares apply
as to any request; but with Scrapy's redirects, retries and size limit turned off for it:
the fetch machine follows redirects and retries itself, and a long file is cut at
``ROBOTS_POLICY_MAX_SIZE`` rather than failed (SPEC.md 3).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.core.engine import ExecutionEngine
from scrapy.exceptions import IgnoreRequest, StopDownload
from scrapy.http import Request
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import maybe_deferred_to_future

from scrapy_robots_policy.fetch.decompress import inflate_prefix
from scrapy_robots_policy.fetch.policy import Fetched
from scrapy_robots_policy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Meta key of our own robots.txt requests: bytes received so far (for the size cap).
_RECEIVED = "_robots_policy_received"
#: Meta key of our own robots.txt requests: the response as downloaded, before another
#: middleware (HttpCompressionMiddleware refusing a bomb) turns it into an IgnoreRequest.
_DOWNLOADED = "_robots_policy_downloaded"
#: Decompressing a robots.txt beyond this many times the size cap is refused (a bomb).
_DECOMPRESSED_BOUND = 64
#: Longest error message kept in a log line or an IgnoreRequest reason.
_MESSAGE_MAX = 200
#: How robots.txt is downloaded: ``engine.download_async`` (Scrapy 2.14+), else
#: ``engine.download``. Known from Scrapy's class, not from the engine at hand: a mocked
#: engine has every attribute, and the method its canned responses come from is the one
#: Scrapy's own middleware calls.
_DOWNLOAD_ASYNC = hasattr(ExecutionEngine, "download_async")



def is_document_request(request: Request) -> bool:
    """Whether ``request`` is one of this package's robots.txt (or tdmrep.json) downloads,
    which follow their own retry schedule rather than a site's back-off."""
    return _RECEIVED in request.meta

class RobotsDownload:
    """Downloads robots.txt URLs with ``priority``, counting Scrapy's ``robotstxt/`` stats
    (or those of another per-origin document: ``stats`` is the prefix)."""

    def __init__(self, crawler: Crawler, settings: RobotsPolicySettings, priority: int,
                 stats: str = "robotstxt") -> None:
        self._crawler = crawler
        self._stats = crawler.stats
        self._prefix = stats
        self._priority = priority
        self._timeout = settings.fetch_timeout
        self._max_size = settings.fetch.max_size
        self._downloading = 0  # downloads in flight

    async def fetched(self, url: str) -> Fetched:
        """GET ``url``: its status, headers and (capped) body, or why there are none."""
        request = Request(
            url,
            priority=self._priority,
            callback=NO_CALLBACK,
            dont_filter=True,  # neither the dupe filter nor OffsiteMiddleware (2.13) stop it
            meta={
                "dont_obey_robotstxt": True,
                "dont_redirect": True,
                "dont_retry": True,  # retries follow the policy's schedule instead
                "allow_offsite": True,
                "download_timeout": self._timeout,
                "download_fail_on_dataloss": True,
                # Scrapy's size limit would fail the download; ours keeps the first bytes
                # instead (see _bytes_received).
                "download_maxsize": 0,
                "download_warnsize": 0,
                _RECEIVED: 0,
            },
        )
        self._stats.inc_value(f"{self._prefix}/request_count")
        # Listen to bytes_received only while a robots.txt downloads: the signal is sent
        # for every chunk of every response of the crawl.
        if not self._downloading:
            self._listen(self._crawler.signals.connect)
        self._downloading += 1
        try:
            response = await self._engine_download(request)
        except IgnoreRequest as exc:
            self._stats.inc_value(f"{self._prefix}/exception_count/{type(exc)}")
            downloaded = request.meta.get(_DOWNLOADED)
            if downloaded is None:
                # Refused before any download (HttpCacheMiddleware with
                # HTTPCACHE_IGNORE_MISSING, a filter): a local choice, not an outage.
                return Fetched(None, not_fetched=_error_summary(exc))
            return self._salvaged(downloaded, exc)
        except Exception as exc:
            # Scrapy's own key format, e.g. "robotstxt/exception_count/<class '...'>".
            self._stats.inc_value(f"{self._prefix}/exception_count/{type(exc)}")
            return Fetched(None, error=_error_summary(exc))
        finally:
            self._downloading -= 1
            if not self._downloading:
                self._listen(self._crawler.signals.disconnect)
        self._count_response(response)
        if "dataloss" in response.flags:  # a truncated body is an error, not a short file
            return Fetched(None, error="truncated body")
        return _fetched(response, response.body, "download_stopped" in response.flags)

    def _listen(self, connect_or_disconnect: Callable[..., object]) -> None:
        connect_or_disconnect(self._bytes_received, signal=signals.bytes_received)
        connect_or_disconnect(self._response_downloaded, signal=signals.response_downloaded)

    async def _engine_download(self, request: Request) -> Response:
        engine = self._crawler.engine
        assert engine is not None
        if _DOWNLOAD_ASYNC:
            return await engine.download_async(request)
        return await maybe_deferred_to_future(engine.download(request))

    def _count_response(self, response: Response) -> None:
        self._stats.inc_value(f"{self._prefix}/response_count")
        self._stats.inc_value(f"{self._prefix}/response_status_count/{response.status}")

    def _salvaged(self, response: Response, exc: IgnoreRequest) -> Fetched:
        """A downloaded robots.txt that a middleware refused: its decompressed head, if any.

        HttpCompressionMiddleware refuses a body that inflates past its bound (a bomb).
        Like a long file, it is read up to the size cap instead of locking the site out.
        """
        self._count_response(response)
        codings = response.headers.getlist(b"Content-Encoding")
        body = None
        if len(codings) == 1 and "dataloss" not in response.flags:
            body = inflate_prefix(response.body, codings[0].decode("latin-1"), self._max_size)
        if body is None:
            return Fetched(None, error=_error_summary(exc))
        logger.info("robots.txt %(url)s refused by a middleware (%(why)s): reading its "
                    "first %(size)d bytes instead", {"url": response.url, "size": len(body),
                                                     "why": _error_summary(exc)},
                    extra={"spider": self._crawler.spider})
        return _fetched(response, body, truncated=True)

    def _bytes_received(self, data: bytes, request: Request, **kwargs: Any) -> None:
        """Stop a robots.txt download at the size cap, keeping what came (SPEC.md 3)."""
        received = request.meta.get(_RECEIVED)
        if received is None:
            return
        received += len(data)
        request.meta[_RECEIVED] = received
        # Download handlers have read their size limit (0: none) before the first bytes;
        # HttpCompressionMiddleware reads it after the download: from now on it bounds
        # decompression, against compression bombs. The decompressed body is cut again
        # to the cap by the policy.
        request.meta["download_maxsize"] = _DECOMPRESSED_BOUND * self._max_size
        if received >= self._max_size:
            raise StopDownload(fail=False)

    def _response_downloaded(self, response: Response, request: Request, **kwargs: Any) -> None:
        """Keep our robots.txt responses as downloaded, in case a middleware refuses them."""
        if _RECEIVED in request.meta:
            request.meta[_DOWNLOADED] = response


def _header(value: bytes | None) -> str | None:
    return value.decode("latin-1") if value else None


def _fetched(response: Response, body: bytes, truncated: bool) -> Fetched:
    headers = response.headers
    return Fetched(
        response.status,
        body,
        location=_header(headers.get(b"Location")),
        cache_control=_header(b", ".join(headers.getlist(b"Cache-Control"))),
        retry_after=_header(headers.get(b"Retry-After")),
        truncated=truncated,
    )


def _error_summary(exc: BaseException) -> str:
    """``TypeName: message`` on one line, the message shortened: the log and the refusal
    reason must say *why* (which host did not resolve), not only what kind of error."""
    message = " ".join(str(exc).split())
    if len(message) > _MESSAGE_MAX:
        message = message[: _MESSAGE_MAX - 3] + "..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
