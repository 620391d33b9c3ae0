"""Real ``redis-server`` processes for the tests that share robots.txt and Crawl-delay.

Without ``redis-server`` (and ``redis-cli`` for the cluster) these tests fail (CI
installs them): a silent skip would hide that the cluster mode is untested.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import RedisCluster, RedisServer


def _installed(*programs: str) -> None:
    for program in programs:
        if shutil.which(program) is None:
            pytest.fail(f"{program} is not installed (apt-get install redis-server); the "
                        "Redis tests must run, not be skipped", pytrace=False)


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
