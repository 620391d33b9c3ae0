"""A paced request's host name, resolved before the request takes its pace or its turn.

Scrapy resolves the name of a connection's host after the request has left its download
slot (in a thread, even for an IP literal; for a real site, a DNS lookup of any length).
For the first request to a host that time would come between the request's turn and the
site, and bring it that much closer to the request before it, another process's in a
cluster. Resolved first, the name is in Scrapy's DNS cache when the request leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy.resolver import dnscache
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.reactor import is_reactor_installed

from scrapy_robots_policy.cache.memory import LRUCache

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request


#: Hosts remembered as not resolved ahead.
_UNKEPT = 4096


class NameResolutions:
    """Starts each host's resolution once and tells whether a request may go on."""

    def __init__(self, crawler: Crawler) -> None:
        # Without Scrapy's DNS cache a resolution ahead would be done again on sending.
        self._cached = crawler.settings.getbool("DNSCACHE_ENABLED")
        self._resolving: dict[str, bool] = {}  # host: whether its resolution has ended
        # Hosts whose resolution ended with nothing in the cache (a failure, or a resolver
        # of the user's that keeps its own): not resolved ahead again.
        self._unkept: LRUCache[str, bool] = LRUCache(_UNKEPT)

    def ready(self, request: Request) -> bool:
        """Whether ``request``'s connection host is resolved (or need not be): if not,
        its resolution is started and the request should ask again in a moment."""
        host = _connection_host(request)
        if host is None or not self._cached or not is_reactor_installed():
            return True
        if host in dnscache or self._unkept.get(host):
            self._resolving.pop(host, None)
            return True
        ended = self._resolving.get(host)
        if ended is None:
            self._resolving[host] = False
            self._start(host)
            return host in dnscache  # a resolver may answer at once
        if ended:  # failed, or kept elsewhere: the download resolves it as it would have
            del self._resolving[host]
            self._unkept.put(host, True)
        return ended

    def _start(self, host: str) -> None:
        from twisted.internet import reactor

        def ended() -> None:
            if host in self._resolving:
                self._resolving[host] = True

        try:
            reactor.nameResolver.resolveHostName(_Receiver(ended), host)
        except Exception:  # a resolver that cannot start: the download will say why
            ended()


class _Receiver:
    """What Twisted's IResolutionReceiver asks for: only the end is of interest."""

    def __init__(self, ended: Any) -> None:
        self._ended = ended

    def resolutionBegan(self, resolution: Any) -> None:
        pass

    def addressResolved(self, address: Any) -> None:
        pass

    def resolutionComplete(self) -> None:
        self._ended()


def _connection_host(request: Request) -> str | None:
    """The host Scrapy connects to for ``request``: its proxy's, or its URL's (http and
    https only: other schemes' handlers resolve names their own way, if at all)."""
    proxy = request.meta.get("proxy")
    try:
        # The request's URL as Scrapy parsed it already, once per request.
        parts = (urlsplit(proxy if "://" in proxy else f"http://{proxy}")
                 if isinstance(proxy, str) and proxy else urlparse_cached(request))
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host:
        return None
    return host
