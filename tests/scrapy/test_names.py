"""Which host a paced request's name lookup ahead is for: the one Scrapy connects to."""

from __future__ import annotations

import pytest
from scrapy.http import Request

from scrapy_robots_policy.scrapy.names import _connection_host


@pytest.mark.parametrize(("url", "proxy", "host"), [
    ("https://Example.com:8443/a", None, "example.com"),
    ("http://[::1]:8080/", None, "::1"),
    ("http://example.com/", "http://proxy.local:3128", "proxy.local"),
    ("https://example.com/", "proxy.local:3128", "proxy.local"),  # no scheme: its host still
    ("ftp://example.com/f", None, None),  # resolved by its own handler, if at all
    ("http://example.com/", "socks5://proxy.local:1080", None),
    ("data:,x", None, None),
])
def test_the_host_looked_up_ahead_is_the_one_connected_to(url, proxy, host):
    meta = {} if proxy is None else {"proxy": proxy}
    assert _connection_host(Request(url, meta=meta)) == host
