"""The head of a compression bomb: what a robots.txt refused by HttpCompressionMiddleware
is read as (tests/scrapy/test_crawl_faults.py crawls the same bombs)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from scrapy_robots_policy.fetch.decompress import inflate_prefix
from tests.scrapy.test_crawl_faults import _module, bomb

HEAD = b"User-agent: *\nDisallow: /early\n"
LINE = b"Disallow: /x\n"
MODULES = {"br": ("brotli", "brotlicffi"),
           "zstd": ("compression.zstd", "backports.zstd", "zstandard")}


def needs(coding: str) -> None:
    if coding in MODULES and _module(*MODULES[coding]) is None:
        pytest.skip(f"no {coding} module installed (one of {', '.join(MODULES[coding])})")


def assert_head_of_bomb(prefix: bytes | None, limit: int = 512_000) -> None:
    assert prefix == (HEAD + LINE * (limit // len(LINE) + 1))[:limit]


@pytest.mark.parametrize("coding", ["br", "zstd"])
def test_inflate_prefix_keeps_the_first_bytes_of_a_br_or_zstd_bomb(coding: str) -> None:
    needs(coding)
    body = bomb(coding, HEAD, LINE, 20_000_000)
    assert_head_of_bomb(inflate_prefix(body, coding, 512_000))
    # A body that does not decode is no answer, and raises nothing.
    assert inflate_prefix(b"User-agent: *\nDisallow: /\n" * 10, coding, 512_000) is None


def test_inflate_prefix_with_a_brotli_that_cannot_bound_its_output(monkeypatch: Any) -> None:
    brotli = pytest.importorskip("brotli")
    real = brotli.Decompressor

    class Before12:
        """brotli < 1.2: process() takes no output_buffer_limit."""

        def __init__(self) -> None:
            self._decompressor = real()

        def process(self, data: bytes) -> bytes:
            return self._decompressor.process(data)  # type: ignore[no-any-return]

        def is_finished(self) -> bool:
            return self._decompressor.is_finished()  # type: ignore[no-any-return]

    body = bomb("br", HEAD, LINE, 20_000_000)
    monkeypatch.setattr(brotli, "Decompressor", Before12)
    assert_head_of_bomb(inflate_prefix(body, "br", 512_000))


def test_inflate_prefix_of_zstd_with_zstandard_alone(monkeypatch: Any) -> None:
    pytest.importorskip("zstandard")
    body = bomb("zstd", HEAD, LINE, 20_000_000)
    for name in ("compression.zstd", "backports.zstd"):  # as on Scrapy 2.13
        monkeypatch.setitem(sys.modules, name, None)
    assert_head_of_bomb(inflate_prefix(body, "zstd", 512_000))
