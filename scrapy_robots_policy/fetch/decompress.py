"""The first bytes of a compressed body, however far the whole would inflate.

For a robots.txt whose full decompression a middleware refused (a compression bomb):
its head is read as rules, like a long file cut at ``ROBOTS_POLICY_MAX_SIZE``, instead
of the site being locked out.
"""

from __future__ import annotations

import importlib
import io
import zlib
from typing import Any


def inflate_prefix(body: bytes, coding: str, limit: int) -> bytes | None:
    """The first ``limit`` bytes of a gzip, deflate, br or zstd ``body``; ``None`` for other
    codings, a body that does not decode, or a missing brotli / zstd module.

    Memory stays within ``limit`` whatever the ratio (with brotli older than 1.2, which
    cannot bound its output, within what one 64-byte slice of input inflates to).
    """
    coding = coding.strip().lower()
    tries: tuple[int, ...]
    if coding in ("gzip", "x-gzip"):
        tries = (16 + zlib.MAX_WBITS,)
    elif coding == "deflate":  # zlib-wrapped as HTTP says, or raw as some servers send
        tries = (zlib.MAX_WBITS, -zlib.MAX_WBITS)
    elif coding == "br":
        return _unbrotli_prefix(body, limit)
    elif coding == "zstd":
        return _unzstd_prefix(body, limit)
    else:
        return None
    for wbits in tries:
        try:
            return zlib.decompressobj(wbits).decompress(body, limit)
        except zlib.error:
            continue
    return None


def _module(*names: str) -> Any:
    """The first of ``names`` that imports (they are optional in Scrapy), else ``None``."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


#: Bytes of input given at once to a brotli decompressor that cannot bound its output.
_BROTLI_SLICE = 64


def _unbrotli_prefix(body: bytes, limit: int) -> bytes | None:
    # The modules Scrapy decodes br with.
    brotli = _module("brotli", "brotlicffi")
    if brotli is None:
        return None
    error: type[BaseException] = getattr(brotli, "error", ValueError)
    out = bytearray()
    try:
        decompressor = brotli.Decompressor()
        try:
            out += decompressor.process(body, output_buffer_limit=limit)
        except TypeError:  # brotli < 1.2, brotlicffi < 1.2: no output limit
            decompressor = brotli.Decompressor()
            for start in range(0, len(body), _BROTLI_SLICE):
                out += decompressor.process(body[start:start + _BROTLI_SLICE])
                if len(out) >= limit or decompressor.is_finished():
                    break
            return bytes(out[:limit])
        while len(out) < limit and not decompressor.is_finished():
            more = decompressor.process(b"", output_buffer_limit=limit - len(out))
            if not more:
                break
            out += more
    except error:
        return None
    return bytes(out[:limit])


def _unzstd_prefix(body: bytes, limit: int) -> bytes | None:
    # The modules Scrapy decodes zstd with: from Scrapy 2.18, the standard library's from
    # Python 3.14 or its backport; before, zstandard.
    zstd = _module("compression.zstd", "backports.zstd")
    if zstd is not None:
        reader: Any = zstd.ZstdFile(io.BytesIO(body))
        errors: tuple[type[BaseException], ...] = (zstd.ZstdError, EOFError)
    else:
        zstandard = _module("zstandard")
        if zstandard is None:
            return None
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(body),
                                                            read_across_frames=True)
        errors = (zstandard.ZstdError,)
    out = bytearray()
    try:
        with reader:
            while len(out) < limit:
                more = reader.read(limit - len(out))
                if not more:
                    break
                out += more
    except errors:
        return None
    return bytes(out)
