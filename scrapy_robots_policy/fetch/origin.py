"""Which robots.txt governs a URL: its origin (scheme, host, effective port).

A robots.txt applies to exactly one origin, so this is the cache key of everything the
downloader middleware knows: ``http://Example.com/`` and ``http://example.com:80/x`` share
one file, ``https://example.com/`` and ``http://example.com:8181/`` each have their own.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlsplit

#: Ports that are the same origin as no port at all.
DEFAULT_PORTS: dict[str, int] = {"http": 80, "https": 443, "ftp": 21}

#: Schemes whose URLs are never checked: they name no server that could publish rules.
UNCHECKED_SCHEMES = frozenset({"data", "file"})


class Origin(NamedTuple):
    """Scheme, lower-case ASCII (IDNA) host and effective port of a URL.

    ``port`` is the explicit port, or the scheme's default one; ``None`` only for a scheme
    without a known default and no explicit port.
    """

    scheme: str
    host: str
    port: int | None

    def __str__(self) -> str:
        """The origin as a URL prefix, default port omitted: ``http://example.com:8181``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.port is None or DEFAULT_PORTS.get(self.scheme) == self.port:
            return f"{self.scheme}://{host}"
        return f"{self.scheme}://{host}:{self.port}"


def origin_of(url: str) -> Origin | None:
    """The origin whose robots.txt governs ``url``; ``None`` when none does.

    ``None`` for ``data:`` and ``file:`` URLs and for URLs without a usable host or port.

    >>> origin_of("HTTP://www.Müller.eu:80/page")
    Origin(scheme='http', host='www.xn--mller-kva.eu', port=80)
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # e.g. port out of range, malformed IPv6 brackets
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname  # already lower-case, IPv6 brackets removed
    if scheme in UNCHECKED_SCHEMES or not scheme or not host:
        return None
    if port is None:
        port = DEFAULT_PORTS.get(scheme)
    return Origin(scheme, _ascii_host(host), port)


class Origins:
    """The origins of a crawl's URLs, remembered by scheme and authority (all an origin
    depends on): normalising is most of a cached decision's cost. All are forgotten at
    once when ``size`` authorities are known, so a broad crawl's memo stays bounded."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._known: dict[tuple[str, str], Origin | None] = {}

    def of(self, url: str, scheme: str, authority: str) -> Origin | None:
        """``origin_of(url)``, given the ``scheme`` and ``authority`` (netloc) of ``url``."""
        key = (scheme, authority)
        origin = self._known.get(key, _UNKNOWN)
        if origin is _UNKNOWN:
            origin = origin_of(url)
            if len(self._known) >= self._size:
                self._known.clear()
            self._known[key] = origin
        return origin  # type: ignore[return-value]


_UNKNOWN = object()


def robots_url(origin: Origin) -> str:
    """Where the robots.txt of ``origin`` lives: always ``/robots.txt`` at the root.

    >>> robots_url(Origin("ftp", "example.com", 21))
    'ftp://example.com/robots.txt'
    """
    return f"{origin}/robots.txt"


def _ascii_host(host: str) -> str:
    """``host`` in its punycode form, so that ``müller`` and ``xn--mller-kva`` are one host."""
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        # Not a valid IDNA name (empty or over-long label): it cannot be resolved anyway,
        # but it still needs a stable key of its own.
        return host
