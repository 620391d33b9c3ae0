"""Which robots.txt governs which URL (SPEC.md section 1)."""

from __future__ import annotations

import pytest

from scrapy_robots_policy.fetch.origin import Origin, origin_of, robots_url

ROBOTS = "http://example.com/robots.txt"


@pytest.mark.parametrize(
    ("url", "governed"),
    [
        # SPEC.md section 1: http://example.com/robots.txt covers these ...
        ("http://example.com/", True),
        ("http://example.com:80/", True),
        ("http://EXAMPLE.com/Page", True),
        ("http://user:secret@example.com/x?y=z#f", True),
        # ... and not these.
        ("https://example.com/", False),
        ("http://example.com:8181/", False),
        ("http://other.example.com/", False),
        ("http://www.example.com/", False),
    ],
)
def test_one_robots_txt_per_origin(url: str, governed: bool) -> None:
    origin = origin_of(url)
    assert origin is not None
    assert (robots_url(origin) == ROBOTS) is governed


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("http://www.müller.eu/", "http://www.xn--mller-kva.eu/", True),
        ("http://WWW.MÜLLER.EU/", "http://www.xn--mller-kva.eu/", True),
        ("http://www.müller.eu/", "http://www.muller.eu/", False),
        ("https://example.com:443/", "https://example.com/", True),
        ("ftp://example.com:21/a", "ftp://example.com/b", True),
        ("http://example.com:443/", "https://example.com/", False),
        ("http://example.com/", "https://example.com/", False),
        ("http://127.0.0.1/", "http://localhost/", False),
    ],
)
def test_same_origin(a: str, b: str, same: bool) -> None:
    assert (origin_of(a) == origin_of(b)) is same


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.com/a/b.html", "http://example.com/robots.txt"),
        ("http://example.com:80/a", "http://example.com/robots.txt"),
        ("https://example.com:443/a", "https://example.com/robots.txt"),
        ("http://example.com:8181/a", "http://example.com:8181/robots.txt"),
        ("https://example.com:80/a", "https://example.com:80/robots.txt"),
        ("ftp://example.com/pub/file.txt", "ftp://example.com/robots.txt"),
        ("ftp://example.com:2121/pub", "ftp://example.com:2121/robots.txt"),
        ("http://www.Müller.eu/seite", "http://www.xn--mller-kva.eu/robots.txt"),
        ("http://[::1]:8080/x", "http://[::1]:8080/robots.txt"),
        ("http://[2001:DB8::1]/x", "http://[2001:db8::1]/robots.txt"),
        ("http://192.168.0.1:80/x", "http://192.168.0.1/robots.txt"),
        # Only the root file counts, whatever the depth of the URL.
        ("http://example.com/sub/dir/robots.txt", "http://example.com/robots.txt"),
    ],
)
def test_robots_url(url: str, expected: str) -> None:
    origin = origin_of(url)
    assert origin is not None
    assert robots_url(origin) == expected


def test_origin_fields() -> None:
    assert origin_of("HTTP://Example.COM/x") == Origin("http", "example.com", 80)
    assert origin_of("http://[::1]:8080/") == Origin("http", "::1", 8080)
    assert origin_of("s3://bucket/key") == Origin("s3", "bucket", None)
    assert str(Origin("s3", "bucket", None)) == "s3://bucket"


@pytest.mark.parametrize(
    "url",
    [
        "data:text/plain,hello",
        "file:///etc/passwd",
        "FILE:///tmp/x",
        "http:///no-host",
        "http://example.com:99999/",
        "http://example.com:port/",
        "http://[::1/",
        "/relative/path",
        "",
        "not a url at all",
    ],
)
def test_urls_without_a_robots_txt(url: str) -> None:
    assert origin_of(url) is None


def test_invalid_idna_host_still_has_a_stable_key() -> None:
    bad = "http://é" + "x" * 70 + ".com/"  # label over 63 characters: not valid IDNA
    assert origin_of(bad) == origin_of(bad)
    assert origin_of(bad) is not None


def test_remembered_origins_are_the_same_and_stay_bounded() -> None:
    """The downloader middleware's memo by scheme and authority answers as origin_of does,
    for hosts it has seen and new ones, and never holds more than its size."""
    from urllib.parse import urlsplit

    from scrapy_robots_policy.fetch.origin import Origins

    origins = Origins(size=3)
    urls = [f"http://host{n % 5}.example:{8000 + n % 5}/page{n}" for n in range(20)]
    urls += ["data:text/plain,x", "HTTP://Host0.Example:8000/again"]
    for url in urls:
        parts = urlsplit(url)
        assert origins.of(url, parts.scheme, parts.netloc) == origin_of(url)
        assert len(origins._known) <= 3
