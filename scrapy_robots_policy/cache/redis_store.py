"""The Redis side of sharing robots.txt (and tdmrep.json): keys, Lua scripts, one server
or a Redis Cluster.

Every key of one origin carries the origin as its hash tag (``robots_policy:{origin}``,
``...#lease``, ``...#turn``; another document's entry and lease ``...#tdmrep.json`` and
``...#tdmrep.json#lease``), so on a Redis Cluster they live in one slot and every
script, which touches only the keys of one origin, runs there. A ``{`` or ``}`` in the
prefix or in an origin (and ``%``, to keep names distinct) is written percent-encoded,
so the origin is always the key's only hash tag. No Scrapy in here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.crc import key_slot
from redis.exceptions import RedisError, ResponseError

from scrapy_robots_policy.fetch.document import ROBOTS_TXT, Document
from scrapy_robots_policy.fetch.origin import Origin
from scrapy_robots_policy.fetch.policy import CachedAnswer
from scrapy_robots_policy.robotstxt import RobotsTxt


class UnreadableAnswer(ResponseError):
    """An answer no script of this package gives: Redis failed, as for any error of its
    own, but the log line says what came (redis-py's errors show only their class)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.args[0]!r})"


DEFAULT_PREFIX = "robots_policy:"
#: Socket timeouts of the Redis connection, unless the URL sets them (``?socket_timeout=``).
SOCKET_TIMEOUT = 1.0
#: URL schemes that name a Redis Cluster (any of its nodes, comma-separated).
CLUSTER_SCHEMES = {"redis+cluster": False, "rediss+cluster": True}  # scheme: TLS
ERRORS = (RedisError, OSError, asyncio.TimeoutError)

# KEYS: entry, lease. ARGV: now, token, lease ms. -> {"fresh", fields} | {"lease", fields}
# | {"wait", ms the lease has left}. One script, so that nobody takes a lease between a
# holder's write and release.
_CLAIM = """
local expires = redis.call('HGET', KEYS[1], 'expires_at')
if expires and tonumber(expires) > tonumber(ARGV[1]) then
  return {'fresh', redis.call('HGETALL', KEYS[1])}
end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then
  return {'lease', redis.call('HGETALL', KEYS[1])}
end
return {'wait', redis.call('PTTL', KEYS[2])}
"""
# KEYS: entry, lease. ARGV: version, ttl ms, token ('' for none), channel, origin, field,
# value, ... Writes only over an older version (a slow process never replaces a newer
# answer), then tells the waiting processes on ``channel`` to look again.
_WRITE = """
local stored = redis.call('HGET', KEYS[1], 'version')
local written = 0
if not stored or tonumber(stored) < tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], unpack(ARGV, 6))
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  written = 1
end
if ARGV[3] ~= '' and redis.call('GET', KEYS[2]) == ARGV[3] then
  redis.call('DEL', KEYS[2])
end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return written
"""
# KEYS: lease. ARGV: token, lease ms. Renews a lease only for its holder.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
# KEYS: the origin's next free turn (ms, Redis's clock). ARGV: delay ms. -> ms this request
# waits for its turn. Redis's clock, so that the hosts' clocks need not agree.
_TURN = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local at = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local delay = tonumber(ARGV[1])
redis.call('SET', KEYS[1], at + delay, 'PX', at + delay - now + 1000)
return at - now
"""
# KEYS: the origin's next free turn. ARGV: pause ms, channel, message. Pushes the turn past
# the pause (processes taking turns wait for it) and tells every process (the others).
_PAUSE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local till = now + tonumber(ARGV[1])
if till > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], till, 'PX', till - now + 1000)
end
redis.call('PUBLISH', ARGV[2], ARGV[3])
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


def escaped(text: str) -> str:
    """``text`` without braces, so that it cannot open or close a hash tag.

    >>> escaped("odd{host}%")
    'odd%7Bhost%7D%25'
    """
    return text.replace("%", "%25").replace("{", "%7B").replace("}", "%7D")


def connect(url: str) -> Redis | RedisCluster:
    """An asyncio client for ``url``: ``redis://``, ``rediss://``, ``unix://`` as redis-py
    reads them, or ``redis+cluster://[user:password@]host:port[,host:port...]``."""
    options: dict[str, Any] = {
        "socket_timeout": SOCKET_TIMEOUT, "socket_connect_timeout": SOCKET_TIMEOUT,
        "retry": Retry(NoBackoff(), 0)}  # we fall back at once; redis-py must not retry
    scheme, _, rest = url.partition("://")
    if scheme not in CLUSTER_SCHEMES:
        return Redis.from_url(url, **options)
    credentials, _, hosts = rest.split("/", 1)[0].rpartition("@")
    user, _, password = credentials.partition(":")
    nodes = []
    for host_port in hosts.split(","):
        host, _, port = host_port.rpartition(":")
        nodes.append(ClusterNode(host.strip("[]"), int(port)))
    # Slots of a dead master are unavailable, not the whole cluster: those origins fall
    # back (see RedisCache), the others are still shared.
    return RedisCluster(startup_nodes=nodes, username=unquote(user) or None,
                        password=unquote(password) or None, ssl=CLUSTER_SCHEMES[scheme],
                        require_full_coverage=False, **options)


class RedisStore:
    """Entries of one document by origin, leases, ordered writes, turns; one server or a
    cluster."""

    def __init__(self, url: str, prefix: str = DEFAULT_PREFIX, lease_time: float = 10.0,
                 stale_limit: float = 30 * 86400.0, document: Document = ROBOTS_TXT) -> None:
        self.client = connect(url)
        self._url = url
        self.cluster = isinstance(self.client, RedisCluster)
        self.prefix = escaped(prefix)
        # robots.txt's keys keep the names they had before other documents were shared.
        self._suffix = "" if document == ROBOTS_TXT else f"#{document.name}"
        #: Where writes are announced, to wake the processes waiting for them.
        self.channel = self.prefix + "written"
        #: Where pauses a site asked one process for are announced to the others.
        self.pause_channel = self.prefix + "paused"
        self.lease_ms = max(int(lease_time * 1000), 1)
        self.stale_limit = stale_limit
        self._claim = self.client.register_script(_CLAIM)
        self._write = self.client.register_script(_WRITE)
        self._renew = self.client.register_script(_RENEW)
        self._turn = self.client.register_script(_TURN)
        self._pause = self.client.register_script(_PAUSE)
        self._subscribed_nodes = 0

    def keys(self, origin: Origin) -> tuple[str, str]:
        """The entry's key (the prefixed origin, as hash tag) and its lease's."""
        key = self._origin_key(origin) + self._suffix
        return key, key + "#lease"

    def announced(self, origin: Origin) -> str:
        """What a write of ``origin``'s entry publishes on :attr:`channel`: the origin for
        robots.txt, as before; the origin and the document's name for another."""
        return str(origin) + self._suffix

    def _origin_key(self, origin: Origin) -> str:
        return f"{self.prefix}{{{escaped(str(origin))}}}"

    def scope(self, origin: Origin) -> int:
        """What fails together with ``origin``'s keys: its slot on a cluster, else 0."""
        return key_slot(self.keys(origin)[0].encode()) if self.cluster else 0

    async def claim(self, origin: Origin, now: float, token: str, known: CachedAnswer | None = None,
                    ) -> tuple[str, CachedAnswer | None, float]:
        """``("fresh", entry, 0)``, ``("lease", stored entry or None, 0)`` or ``("wait",
        None, seconds the holder's lease has left)``.

        ``known``: this process's copy, whose parsed rules are reused if the body is the same.
        """
        reply = await self._claim(keys=self.keys(origin), args=[repr(now), token,
                                                                self.lease_ms])
        state = reply[0].decode()
        if state == "wait":
            return state, None, max(int(reply[1]), 0) / 1000
        fields = reply[1]
        return state, (decode(fields, known) if fields else None), 0.0

    async def write(self, origin: Origin, entry: CachedAnswer, version: float, now: float,
                    token: str = "") -> bool:
        """Store ``entry`` unless a newer version is there; release the lease ``token``."""
        keep_until = max(entry.expires_at, (entry.fetched_at or 0.0) + self.stale_limit)
        ttl_ms = max(int((keep_until - now + 60.0) * 1000), 1000)
        fields: list[Any] = []
        for name, value in encode(entry).items():
            fields += [name, value]
        return bool(await self._write(keys=self.keys(origin),
                                      args=[repr(version), ttl_ms, token, self.channel,
                                            self.announced(origin), "version", repr(version),
                                            *fields]))

    async def renew(self, origin: Origin, token: str) -> bool:
        return bool(await self._renew(keys=[self.keys(origin)[1]],
                                      args=[token, self.lease_ms]))

    async def turn(self, origin: Origin, delay: float) -> float:
        """Seconds until this request's turn: the origin's requests, from every process,
        go one per ``delay``."""
        key = self._origin_key(origin) + "#turn"
        answer = await self._turn(keys=[key], args=[max(int(delay * 1000), 1)])
        try:
            return int(answer) / 1000
        except (TypeError, ValueError):  # not this package's script answering: Redis failed
            raise UnreadableAnswer(f"unreadable turn {answer!r}") from None

    async def pause(self, origin: Origin, seconds: float, sender: str) -> None:
        """No turn of ``origin`` for ``seconds``; announced on :attr:`pause_channel` as
        ``"<ms> <sender> <origin>"``."""
        ms = max(int(seconds * 1000), 1)
        await self._pause(keys=[self._origin_key(origin) + "#turn"],
                          args=[ms, self.pause_channel, f"{ms} {sender} {origin}"])

    @contextlib.asynccontextmanager
    async def subscription(self, channel: str) -> AsyncIterator[PubSub]:
        """A connection of its own subscribed to ``channel``, closed on exit whatever
        happened (its errors are the caller's)."""
        client = self.subscriber()
        pubsub = client.pubsub()
        try:
            await pubsub.subscribe(channel)
            yield pubsub
        finally:
            with contextlib.suppress(*ERRORS):
                # Typed from redis-py 8.2 on, untyped before (and 8.2 needs Python 3.11).
                await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]
                await client.aclose()

    def subscriber(self) -> Redis:
        """A client of its own for listening to :attr:`channel` (its connection lost must
        not leave a dead one in the pool of the scripts); on a cluster, to each node in
        turn (a PUBLISH reaches every node), so that a dead node is not asked again."""
        if not isinstance(self.client, RedisCluster):
            client = connect(self._url)
            assert isinstance(client, Redis)
            return client
        nodes = self.client.get_nodes() or self.client.startup_nodes
        node = sorted(nodes, key=lambda n: n.name)[self._subscribed_nodes % len(nodes)]
        self._subscribed_nodes += 1
        kwargs = node.connection_kwargs
        return Redis(host=node.host, port=int(node.port), username=kwargs.get("username"),
                     password=kwargs.get("password"), ssl=kwargs.get("ssl", False),
                     socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT)

    async def close(self) -> None:
        await self.client.aclose()


async def stop_reading(reader: asyncio.Future[None]) -> None:
    """End ``reader``, a task reading a subscription in a loop that its owner has already
    told to stop: cancelled, and waited for no longer than two socket timeouts.

    The loop's own check is what ends it for sure. On Python 3.10 and 3.11 a cancellation
    that lands as redis-py sends a command (``asyncio.wait_for`` with a socket timeout) is
    lost: ``wait_for`` returns the command's result instead (CPython gh-86296, fixed in
    3.12). The reader then reads on, and a close that only waited for it never ended."""
    reader.cancel()
    await asyncio.wait([reader], timeout=2 * SOCKET_TIMEOUT)


def encode(entry: CachedAnswer) -> dict[str, bytes | str]:
    """The fields stored for an entry: the body rather than the parsed rules."""
    if entry.rules is RobotsTxt.allow_all() and entry.body is not None:
        kind, body = "body", entry.body  # a body for its own reader (tdmrep.json)
    elif entry.rules is RobotsTxt.allow_all():
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
            "failures": str(entry.failures),
            "status": "" if entry.status is None else str(entry.status)}


def decode(fields: list[bytes], known: CachedAnswer | None = None) -> CachedAnswer:
    """The entry of a flat ``HGETALL`` reply, parsed here (reusing ``known``'s rules when
    its body is the same)."""
    try:
        f = dict(zip(fields[::2], fields[1::2], strict=True))
        kind, body = f[b"kind"], f[b"body"]
        fetched = f[b"fetched_at"]
        times = (float(f[b"expires_at"]), float(fetched) if fetched else None,
                 int(f[b"failures"]))
        # Absent from entries written before it was kept: unknown, as for no answer.
        status = int(f[b"status"]) if f.get(b"status") else None
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"unreadable entry ({exc!r})") from exc
    if kind == b"allow":
        rules, kept = RobotsTxt.allow_all(), None
    elif kind == b"body":
        rules, kept = RobotsTxt.allow_all(), body
    elif kind == b"deny":
        rules, kept = RobotsTxt.disallow_all(), None
    elif kind != b"rules":
        raise ValueError(f"unreadable entry (kind {kind!r})")
    elif known is not None and known.body == body:
        rules, kept = known.rules, known.body
    else:
        rules, kept = RobotsTxt.parse(body), body
    return CachedAnswer(rules, f[b"summary"].decode("utf-8", "replace"), *times, kept, status)
