"""What the whole suite needs, and says when it lacks.

Real ``redis-server`` processes for the tests that share robots.txt and Crawl-delay.

``redis-server`` (and ``redis-cli``, which creates the cluster where it is at hand) is the one
on PATH, else the one that the ``test`` extra installs from PyPI (see
``tests.support.REDIS_PACKAGES``). Without a ``redis-server`` these tests fail, saying how to
get one: a silent skip would hide that the cluster mode is untested.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import RedisCluster, RedisServer, redis_missing, redis_program


def _installed(*programs: str) -> None:
    for program in programs:
        if redis_program(program) is None:
            pytest.fail(redis_missing(program), pytrace=False)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    _installed("redis-server")
    server = RedisServer.start()
    yield server
    server.stop()


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    """Three masters in cluster mode, created with ``redis-cli --cluster create``, or with
    the same commands sent by the test where no redis-cli is at hand."""
    _installed("redis-server")
    cluster = RedisCluster.start(tmp_path)
    yield cluster
    cluster.stop()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One visible line when the differential tests against Google's parser did not run:
    their modules are skipped whole without it."""
    if importlib.util.find_spec("jwm") is None or importlib.util.find_spec(
            "jwm.robotstxt") is None:
        terminalreporter.write_line(
            "NOT RUN: the differential tests against Google's robots.txt parser "
            "(tests/robotstxt/test_robotstxt_google.py, test_robotstxt_escapes.py): "
            "jwm.robotstxt is not installed (the test extra installs it on CPython 3.10 "
            "to 3.12; it has no wheels for 3.13+)", yellow=True, bold=True)
