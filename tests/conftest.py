"""Real ``redis-server`` processes for the tests that share robots.txt and Crawl-delay.

``redis-server`` (and ``redis-cli``, which creates the cluster where it is at hand) is the one
on PATH, else the one that the ``test`` extra installs from PyPI (see
``tests.support.REDIS_PACKAGES``). Without a ``redis-server`` these tests fail, saying how to
get one: a silent skip would hide that the cluster mode is untested.
"""

from __future__ import annotations

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
