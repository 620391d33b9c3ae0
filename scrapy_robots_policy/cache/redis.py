"""One robots.txt fetch per origin across many Scrapy processes: answers shared in Redis.

With ``ROBOTS_POLICY_REDIS_URL`` set, every process (on any host) keeps its in-memory
cache, which answers requests while its copy is fresh without talking to Redis, and goes
to Redis only when its copy is missing or expired (:meth:`RedisCache.claim`):

- a fresh answer in Redis (another process fetched it) is used as it is;
- otherwise one process takes the origin's lease (``SET NX PX``) and fetches; the others
  poll until the answer appears, or until the lease lapses (its holder died) and one of
  them takes over. The holder renews its lease while its fetch (and retries) run;
- the outcome is written with a Lua script that keeps the newer of two answers (by the time
  each was settled), with a TTL, and releases the lease.

What is stored is what an :class:`~.policy.Entry` needs (the capped body, not the parsed
rules, and the times), so every process parses locally and the same expiry, retry and 5xx
rules of :mod:`..fetch.policy` apply everywhere. The client is redis-py's asyncio one: Scrapy runs
on the asyncio reactor by default (2.13+), so no call blocks the reactor and no thread is
used. When Redis cannot be reached, each process fetches for itself (a WARNING and the
``robotstxt/redis_errors`` stat), never allowing more than its robots.txt does, and tries
Redis again after a while.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from scrapy import signals

from scrapy_robots_policy.cache.memory import MemoryCache
from scrapy_robots_policy.fetch.policy import Entry, Policy
from scrapy_robots_policy.origin import Origin
from scrapy_robots_policy.robotstxt import RobotsTxt
from scrapy_robots_policy.settings import RobotsPolicySettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

DEFAULT_PREFIX = "robots_policy:"
#: After a Redis error, Redis is left alone (each process fetches its own) this long.
RECONNECT_AFTER = 10.0
#: Socket timeouts of the Redis connection, unless the URL sets them (``?socket_timeout=``).
SOCKET_TIMEOUT = 1.0
#: Polling while another process holds a lease: first and longest wait, in seconds.
POLL_FIRST, POLL_MAX = 0.05, 0.5
_ERRORS = (RedisError, OSError, asyncio.TimeoutError)

# KEYS: entry, lease. ARGV: now, token, lease ms. -> {"fresh", fields} | {"lease", fields}
# | {"wait"}. One script, so that nobody takes a lease between a holder's write and release.
_CLAIM = """
local expires = redis.call('HGET', KEYS[1], 'expires_at')
if expires and tonumber(expires) > tonumber(ARGV[1]) then
  return {'fresh', redis.call('HGETALL', KEYS[1])}
end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then
  return {'lease', redis.call('HGETALL', KEYS[1])}
end
return {'wait'}
"""
# KEYS: entry, lease. ARGV: version, ttl ms, token ('' for none), field, value, ...
# Writes only over an older version (a slow process never replaces a newer answer).
_WRITE = """
local stored = redis.call('HGET', KEYS[1], 'version')
local written = 0
if not stored or tonumber(stored) < tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], unpack(ARGV, 4))
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  written = 1
end
if ARGV[3] ~= '' and redis.call('GET', KEYS[2]) == ARGV[3] then
  redis.call('DEL', KEYS[2])
end
return written
"""
# KEYS: lease. ARGV: token, lease ms. Renews a lease only for its holder.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


def redacted(url: str) -> str:
    """A Redis URL fit for a log line: without its password.

    >>> redacted("redis://user:secret@cache.local:6379/2")
    'redis://cache.local:6379/2'
    """
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=netloc, query="").geturl()


class RedisStore:
    """The Redis side: entries by origin, leases, ordered writes. No Scrapy in here."""

    def __init__(self, url: str, prefix: str = DEFAULT_PREFIX, lease_time: float = 10.0,
                 stale_limit: float = 30 * 86400.0) -> None:
        self.client: Redis = Redis.from_url(
            url, socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT,
            retry=Retry(NoBackoff(), 0),  # we fall back at once; redis-py must not retry
        )
        self.prefix = prefix
        self.lease_ms = max(int(lease_time * 1000), 1)
        self.stale_limit = stale_limit
        self._claim = self.client.register_script(_CLAIM)
        self._write = self.client.register_script(_WRITE)
        self._renew = self.client.register_script(_RENEW)

    def keys(self, origin: Origin) -> tuple[str, str]:
        """The entry's key (the prefixed origin) and its lease's."""
        key = f"{self.prefix}{origin}"
        return key, key + "#lease"  # "#" never appears in an origin

    async def claim(self, origin: Origin, now: float, token: str, known: Entry | None = None,
                    ) -> tuple[str, Entry | None]:
        """``("fresh", entry)``, ``("lease", stored entry or None)`` or ``("wait", None)``.

        ``known``: this process's copy, whose parsed rules are reused if the body is the same.
        """
        reply = await self._claim(keys=self.keys(origin), args=[repr(now), token,
                                                                self.lease_ms])
        state = reply[0].decode()
        fields = reply[1] if len(reply) > 1 else []
        return state, (decode(fields, known) if fields else None)

    async def write(self, origin: Origin, entry: Entry, version: float, now: float,
                    token: str = "") -> bool:
        """Store ``entry`` unless a newer version is there; release the lease ``token``."""
        keep_until = max(entry.expires_at, (entry.fetched_at or 0.0) + self.stale_limit)
        ttl_ms = max(int((keep_until - now + 60.0) * 1000), 1000)
        fields: list[Any] = []
        for name, value in encode(entry).items():
            fields += [name, value]
        return bool(await self._write(keys=self.keys(origin),
                                      args=[repr(version), ttl_ms, token, "version",
                                            repr(version), *fields]))

    async def renew(self, origin: Origin, token: str) -> bool:
        return bool(await self._renew(keys=[self.keys(origin)[1]],
                                      args=[token, self.lease_ms]))

    async def version(self, origin: Origin) -> float | None:
        """The version of the stored entry (for tests and tools)."""
        value = await self.client.hget(self.keys(origin)[0], "version")
        return None if value is None else float(value)

    async def close(self) -> None:
        await self.client.aclose()


def encode(entry: Entry) -> dict[str, bytes | str]:
    """The fields stored for an entry: the body rather than the parsed rules."""
    if entry.rules is RobotsTxt.allow_all():
        kind, body = "allow", b""
    elif entry.rules is RobotsTxt.disallow_all():
        kind, body = "deny", b""
    elif entry.body is not None:
        kind, body = "rules", entry.body
    else:
        raise ValueError("an entry with parsed rules but no body cannot be shared")
    return {"kind": kind, "body": body, "summary": entry.summary,
            "expires_at": repr(entry.expires_at),
            "fetched_at": "" if entry.fetched_at is None else repr(entry.fetched_at),
            "failures": str(entry.failures)}


def decode(fields: list[bytes], known: Entry | None = None) -> Entry:
    """The entry of a flat ``HGETALL`` reply, parsed here (reusing ``known``'s rules when
    its body is the same)."""
    try:
        f = dict(zip(fields[::2], fields[1::2], strict=True))
        kind, body = f[b"kind"], f[b"body"]
        fetched = f[b"fetched_at"]
        times = (float(f[b"expires_at"]), float(fetched) if fetched else None,
                 int(f[b"failures"]))
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"unreadable entry ({exc!r})") from exc
    if kind == b"allow":
        rules, kept = RobotsTxt.allow_all(), None
    elif kind == b"deny":
        rules, kept = RobotsTxt.disallow_all(), None
    elif kind != b"rules":
        raise ValueError(f"unreadable entry (kind {kind!r})")
    elif known is not None and known.body == body:
        rules, kept = known.rules, known.body
    else:
        rules, kept = RobotsTxt.parse(body), body
    return Entry(rules, f[b"summary"].decode("utf-8", "replace"), *times, kept)


class RedisCache(MemoryCache):
    """The in-memory cache of one process, shared with the others through Redis."""

    def __init__(self, settings: RobotsPolicySettings, crawler: Crawler, policy: Policy,
                 ) -> None:
        super().__init__(settings.max_origins)
        if not _asyncio_available():
            raise RuntimeError("the Redis cache needs Scrapy's asyncio reactor "
                               "(TWISTED_REACTOR)")
        url = settings.redis_url or ""
        self._policy = policy
        assert crawler.stats is not None  # a crawler has its stats before its components
        self._stats = crawler.stats
        self._crawler = crawler
        self._url = redacted(url)
        lease_time = settings.redis_lease_time
        self.store = RedisStore(url, settings.redis_prefix, lease_time,
                                policy.settings.stale_limit)
        # Past this, a process stops waiting for a holder that renews its lease but never
        # answers, and fetches itself: the longest a healthy round can last, plus a lease.
        s = policy.settings
        self._max_wait = (s.patience + (s.max_redirects + 1) * settings.fetch_timeout * 2
                          + lease_time)
        self._renew_every = lease_time / 3
        self._fetching: dict[Origin, str] = {}  # origins this process fetches: lease token
        self._renewals: dict[Origin, asyncio.Task[None]] = {}
        self._writes: set[asyncio.Task[None]] = set()
        self._down_until: float | None = None  # monotonic; None while Redis answers
        self._closed = False
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    async def claim(self, origin: Origin) -> Entry | None:
        """A fresh answer from Redis; else ``None`` once this process holds the lease (or
        Redis is down): it fetches. Waits while another process holds the lease."""
        if self._down_until is not None and time.monotonic() < self._down_until:
            return None
        token = os.urandom(8).hex()
        started = time.monotonic()
        wait = POLL_FIRST
        while not self._closed:
            try:
                state, stored = await self.store.claim(origin, self._policy.now(), token,
                                                       super().get(origin))
            except _ERRORS as exc:
                self._failed(exc)
                return None
            except ValueError as exc:  # not written by this package (or by an older one)
                self._stats.inc_value("robotstxt/redis_errors")
                logger.warning("robots.txt of %(origin)s: %(error)s in Redis; fetching it "
                               "here", {"origin": origin, "error": exc},
                               extra={"spider": self._crawler.spider})
                self._fetching[origin] = ""  # the answer fetched here replaces it
                return None
            self._reached()
            if state == "fresh":
                assert stored is not None
                self._stats.inc_value("robotstxt/redis_shared")
                logger.debug("robots.txt of %(origin)s: taken from Redis (%(why)s)",
                             {"origin": origin, "why": stored.summary},
                             extra={"spider": self._crawler.spider})
                return stored
            if state == "lease":
                if stored is not None:  # the cluster's last word is this fetch's "previous"
                    self.put(origin, stored)
                self._fetching[origin] = token
                self._renewals[origin] = asyncio.ensure_future(self._keep(origin, token))
                return None
            if time.monotonic() - started > self._max_wait:
                logger.warning("robots.txt of %(origin)s: another process has held the "
                               "fetch for %(waited).0f s; fetching it here too",
                               {"origin": origin, "waited": time.monotonic() - started},
                               extra={"spider": self._crawler.spider})
                self._fetching[origin] = ""
                return None
            await asyncio.sleep(wait)
            wait = min(wait * 2, POLL_MAX)
        return None

    def put(self, key: Origin, value: Entry) -> None:
        """Cache locally; when this process fetched ``value``, share it (in the background:
        the requests waiting for it go on at once) and release the lease."""
        super().put(key, value)
        token = self._fetching.pop(key, None)
        if token is None:
            return
        renewal = self._renewals.pop(key, None)
        if renewal is not None:
            renewal.cancel()
        now = self._policy.now()
        task = asyncio.ensure_future(self._share(key, value, now, token))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _share(self, origin: Origin, entry: Entry, version: float, token: str) -> None:
        if self._down_until is not None and time.monotonic() < self._down_until:
            return
        try:
            await self.store.write(origin, entry, version, self._policy.now(), token)
        except _ERRORS as exc:
            self._failed(exc)
        else:
            self._reached()

    async def _keep(self, origin: Origin, token: str) -> None:
        """Renew the lease while this process fetches (retries included), for as long as
        a round may last (a round that ends without an answer then frees it too)."""
        until = time.monotonic() + self._max_wait
        while time.monotonic() < until:
            await asyncio.sleep(self._renew_every)
            try:
                await self.store.renew(origin, token)
            except _ERRORS as exc:
                self._failed(exc)
                return  # the lease lapses: another process may fetch too, harmless

    def _failed(self, exc: BaseException) -> None:
        self._stats.inc_value("robotstxt/redis_errors")
        if self._down_until is None:
            logger.warning("Redis at %(url)s unreachable (%(error)s): robots.txt is fetched "
                           "by this process alone until Redis answers again",
                           {"url": self._url, "error": repr(exc)},
                           extra={"spider": self._crawler.spider})
        self._down_until = time.monotonic() + RECONNECT_AFTER

    def _reached(self) -> None:
        if self._down_until is not None:
            self._down_until = None
            logger.info("Redis at %(url)s reachable again: robots.txt shared again",
                        {"url": self._url}, extra={"spider": self._crawler.spider})

    async def _spider_closed(self, spider: Any) -> None:
        """Stop waiting and renewing, let the last writes finish, close the connections."""
        self._closed = True
        for renewal in self._renewals.values():
            renewal.cancel()
        if self._writes:
            await asyncio.wait(list(self._writes), timeout=2 * SOCKET_TIMEOUT)
        with contextlib.suppress(*_ERRORS):
            await self.store.close()


def _asyncio_available() -> bool:
    try:
        from scrapy.utils.asyncio import is_asyncio_available  # Scrapy 2.14+
    except ImportError:
        from scrapy.utils.reactor import is_asyncio_reactor_installed as is_asyncio_available
    return is_asyncio_available()
