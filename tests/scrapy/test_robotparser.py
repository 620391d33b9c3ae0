"""``scrapy_robots_policy.RobotParser``: Scrapy's RobotParser interface over this engine,
for ``ROBOTSTXT_PARSER`` with Scrapy's own middleware. Its answers are the engine's, for
str or bytes URLs, user agents and bodies alike, and no input makes it raise."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
import scrapy.robotstxt
from scrapy import Spider
from scrapy.utils.misc import load_object

from scrapy_robots_policy import RobotParser, RobotsTxt
from tests.support import idle_crawler

BODY = """User-agent: *
Disallow: /a$
Disallow: /q
Allow: /q%3F
Disallow: /plus
Allow: /plus+
Disallow: /tie
Allow: /tie
Disallow: /caf%C3%A9

User-agent: FooBot
Disallow: /foo
Crawl-delay: 2.5
"""

#: (path, allowed for "mybot") where Google's rules, and so this engine, answer so.
GOOGLE = [
    ("/a", False), ("/a$b", True),          # "$" anchors only at the end of a pattern
    ("/q?x", False), ("/q%3Fx", True),      # %3F is not the "?" that starts the query
    ("/plus+x", True), ("/plus%2Bx", False),  # nor is %2B a "+"
    ("/tie", True),                          # allow wins a tie
    ("/caf%C3%A9", False), ("/café", False), ("/caf%c3%a9", False),  # one encoding
    ("/page", True),
]


class Named(Spider):
    name = "named"


def parser(body: bytes | str = BODY) -> RobotParser:
    return RobotParser.from_crawler(idle_crawler(Named), body)  # type: ignore[arg-type]


def test_it_is_scrapys_robotparser_and_settings_can_name_it() -> None:
    assert issubclass(RobotParser, scrapy.robotstxt.RobotParser)
    assert load_object("scrapy_robots_policy.RobotParser") is RobotParser
    assert load_object("scrapy_robots_policy.scrapy.robotparser.RobotParser") is RobotParser
    assert isinstance(parser(b""), scrapy.robotstxt.RobotParser)


def test_from_crawler_keeps_the_spider_and_takes_no_crawler_like_scrapys_parsers() -> None:
    crawler = idle_crawler(Named)
    assert RobotParser.from_crawler(crawler, b"").spider is crawler.spider
    assert RobotParser.from_crawler(None, b"").spider is None  # type: ignore[arg-type]


@pytest.mark.parametrize("body", [BODY, BODY.encode(), "\ufeff" + BODY,
                                  b"\xef\xbb\xbf" + BODY.encode()])
@pytest.mark.parametrize("agent", ["mybot", b"mybot", "MyBot/1.0 (+https://example.com)",
                                   b"MyBot/1.0 (+https://example.com)"])
@pytest.mark.parametrize(("path", "expected"), GOOGLE)
def test_answers_are_the_engines_for_str_and_bytes(body: bytes | str, agent: str | bytes,
                                                    path: str, expected: bool) -> None:
    rp = parser(body)
    url = "https://example.com" + path
    assert rp.allowed(url, agent) is expected
    assert rp.allowed(url.encode(), agent) is expected
    assert RobotsTxt.parse(BODY).allowed(url, "mybot") is expected


@pytest.mark.parametrize("agent", ["FooBot", b"FooBot", b"FooBot/2.1", "foobot/2.1 (x)"])
def test_group_of_the_product_token_and_its_crawl_delay(agent: str | bytes) -> None:
    rp = parser()
    assert not rp.allowed("https://example.com/foo", agent)
    assert rp.allowed("https://example.com/q?x", agent)  # FooBot's group, not "*"
    assert rp.crawl_delay(agent) == 2.5
    assert rp.crawl_delay(b"mybot") is None


def test_rules_is_the_parsed_file() -> None:
    rp = parser(BODY + "Sitemap: https://example.com/s.xml\n")
    assert rp.rules.sitemaps == ("https://example.com/s.xml",)
    decision = rp.rules.decide("https://example.com/a", "mybot")
    assert not decision.allowed and decision.line == 2


def test_an_empty_body_allows_everything() -> None:
    # Scrapy's middleware builds one at start-up (its check that the backend loads).
    rp = parser(b"")
    assert rp.allowed("https://example.com/anything", b"mybot")
    assert rp.crawl_delay("mybot") is None


def test_not_utf8_agents_and_urls_are_read_not_refused() -> None:
    rp = parser(b"User-agent: *\nDisallow: /%FF\n")
    assert not rp.allowed(b"https://example.com/\xff", b"mybot")  # the octet %FF
    assert rp.allowed(b"https://example.com/\xfe", b"mybot")
    assert rp.allowed("https://example.com/\xff", "mybot")  # U+00FF: the octets %C3%BF
    assert not rp.allowed(b"https://example.com/\xff", b"caf\xe9bot/1.0")  # "*" applies
    assert rp.crawl_delay(b"\xff\xfe") is None


def garbage(seed: int) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096)))


@pytest.mark.parametrize("body", [
    *(garbage(seed) for seed in range(20)),
    b"\x00" * 1000, b"\xff\xfe" + "User-agent: *\nDisallow: /".encode("utf-16-le"),
    b"<html><body>Not found</body></html>", b"\xef\xbb", b"\r\r\n\n\r",
    b"User-agent: *\nDisallow: /" + b"a" * 700_000,
])
def test_any_bytes_as_body_never_raise(body: bytes) -> None:
    rp = parser(body)
    for url in ("https://example.com/", b"https://example.com/a?b=c", "/x\xff", b"/\xff%zz"):
        for agent in ("mybot", b"MyBot/1.0", b"\xff\xfe\x00", ""):
            assert rp.allowed(url, agent) in (True, False)
            assert rp.crawl_delay(agent) is None or rp.crawl_delay(agent) >= 0


def test_the_engine_still_imports_without_scrapy() -> None:
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'scrapy' or name.startswith(('scrapy.', 'twisted')):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from scrapy_robots_policy import RobotsTxt\n"
        "assert not RobotsTxt.parse('User-agent: *\\nDisallow: /').allowed('/x', 'a')\n"
        "try:\n"
        "    from scrapy_robots_policy import RobotParser\n"
        "except ImportError as e:\n"
        "    print('needs scrapy:', e)\n"
        "assert 'scrapy' not in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert result.returncode == 0, result.stderr
    assert "needs scrapy: blocked: scrapy" in result.stdout
