"""Robots meta tags read from real HTML and XHTML, and whom their names address."""

from __future__ import annotations

from datetime import datetime, timezone
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parsel import Selector
from scrapy.http import HtmlResponse, Response, TextResponse, XmlResponse

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.directives import meta as meta_module
from scrapy_robots_policy.directives.meta import meta_tags, streamed_meta_tags
from scrapy_robots_policy.robotstxt import product_token
from tests.directives_pages import meta

UTC = timezone.utc
R = RobotsDirectives


@pytest.mark.parametrize(("html", "expected"), [
    # anywhere in the document, any attribute quoting and order
    ("<html><body><p>x</p><meta name=robots content=noindex></body></html>", R(noindex=True)),
    ("<meta content='nofollow' name='ROBOTS'>", R(nofollow=True)),
    ('<meta name=" robots " content="noindex">', R(noindex=True)),
    ('<META NAME="MyBot" CONTENT="NOINDEX">', R(noindex=True)),
    # after </html>: browsers put it in the body; libxml2 2.14 in a second root element
    ('<html><head><title>t</title></head><body><p>x</p></body></html>'
     '<meta name="robots" content="noindex">', R(noindex=True)),
    ("<!-- c --><html><body></body></html>\n<!-- c --><meta name=robots content=nofollow>"
     "<p>more</p><meta name=mybot content=noindex>", R(noindex=True, nofollow=True)),
    # what is not a meta tag does not count
    ("<!-- <meta name=robots content=noindex> -->", R()),
    ("<script>document.write('<meta name=robots content=noindex>')</script>", R()),
    ("<textarea><meta name=robots content=noindex></textarea>", R()),
    ('<meta name="description" content="x &gt; &lt;meta name=robots content=noindex&gt;">',
     R()),
    ('<meta name="description" content="<meta name=robots content=noindex>">', R()),
    ('<meta property="robots" content="noindex">', R()),
    ('<meta name="otherbot" content="noindex">', R()),
    ('<meta name="mybot-news" content="noindex">', R()),
    ('<meta name="robots">', R()),
    # broken and unusual documents
    ('<html><head><meta name="robots" content="noindex"', R()),
    ('<head><meta name="robots" content="noindex"><body><div><p>unclosed', R(noindex=True)),
    ('<meta name="robots" content="noindex"><meta name="robots" content="nofollow">',
     R(noindex=True, nofollow=True)),
    ("", R()),
    ("   ", R()),
])
def test_meta_tags_are_read_by_a_real_parser(html, expected):
    assert R.from_html(html, "MyBot/1.0") == expected


XHTML = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
         b'<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
         b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
         b'<html xmlns="http://www.w3.org/1999/xhtml"><head>'
         b'<meta name="robots" content="noindex" /><meta name="MyBot" content="nofollow" />'
         b"</head><body><p>x</p></body></html>")


def test_xhtml_pages_in_both_parsers():
    expected = R(noindex=True, nofollow=True)
    assert R.from_html(XHTML, "mybot") == expected
    html = HtmlResponse("http://example.com/", body=XHTML,
                        headers={"Content-Type": "application/xhtml+xml"})
    assert R.from_response(html, "mybot") == expected
    # parsed as XML the elements are namespaced: still found
    xml = XmlResponse("http://example.com/", body=XHTML,
                      headers={"Content-Type": "application/xhtml+xml"})
    assert R.from_response(xml, "mybot") == expected


def test_only_html_responses_get_meta_parsing():
    body = meta(("robots", "noindex")).encode()
    headers = {"X-Robots-Tag": "nofollow"}
    assert R.from_response(HtmlResponse("http://e.com/", body=body, headers=headers),
                           "mybot") == R(noindex=True, nofollow=True)
    for cls, content_type in [(TextResponse, "text/plain"), (XmlResponse, "application/xml"),
                              (Response, "application/pdf")]:
        response = cls("http://e.com/x", body=body,
                       headers={**headers, "Content-Type": content_type})
        assert R.from_response(response, "mybot") == R(nofollow=True), cls


def test_html_bytes_with_declared_encoding():
    html = '<meta charset="latin-1"><meta name="robots" content="noindex">é'.encode("latin-1")
    assert R.from_html(html, "mybot") == R(noindex=True)


def test_a_meta_tag_after_the_end_of_the_document_counts_in_a_response():
    body = b"<html><head></head><body><p>x</p></body></html><meta name=robots content=noindex>"
    assert R.from_response(HtmlResponse("http://e.com/", body=body), "mybot") == R(noindex=True)


def test_the_response_is_parsed_once_and_shared_with_the_spider():
    response = HtmlResponse("http://e.com/", body=meta(("robots", "noindex")).encode())
    selector = response.selector
    assert R.from_response(response, "mybot").noindex
    assert response.selector is selector


def test_the_user_agent_is_reduced_to_its_product_token():
    html = meta(("mybot", "noindex"))
    for agent in ("mybot", "MyBot", "MyBot/1.2", "MyBot/1.2 (+http://example.com/bot)",
                  "  mybot"):
        assert R.from_html(html, agent).noindex, agent
    # a browser-style User-Agent names the crawler after "compatible;"
    assert R.from_html(html, "Mozilla/5.0 (compatible; MyBot/1.0; +https://x)").noindex
    assert not R.from_html(html, "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0").noindex
    assert product_token("Scrapy/2.13 (+https://scrapy.org)") == "scrapy"
    assert product_token("") == ""
    assert product_token("123") == "123"


@pytest.mark.parametrize(("agent", "name", "applies"), [
    # the crawler's whole name, digits and dots included, case-insensitively
    ("MJ12bot/1.0", "mj12bot", True),
    ("MJ12bot/1.0", "MJ12BOT", True),
    ("MJ12bot/1.0", "mj", False),
    ("MJ12bot/1.0", "mj99bot", False),
    ("MJ12bot/1.0", "mj12botx", False),
    ("archive.org_bot", "archive.org_bot", True),
    ("archive.org_bot", "archive", False),
    ("mj", "mj12bot", False),
    ("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)", "mj12bot", True),
])
def test_names_are_compared_whole_in_meta_tags_and_headers(agent, name, applies):
    assert R.from_html(meta((name, "noindex")), agent).noindex is applies
    assert R.from_x_robots_tag([f"{name}: noindex"], agent).noindex is applies
    assert R.from_x_robots_tag([f"noarchive, {name}: noindex"], agent).noindex is applies


def test_valued_directives_are_never_taken_for_agents():
    agent = "archive.org_bot"
    assert R.from_x_robots_tag(["max-snippet: 20, archive.org_bot: noindex"], agent) == R(
        max_snippet=20, noindex=True)
    expected = R(unavailable_after=datetime(2023, 7, 1, 15, 0, tzinfo=UTC), noarchive=True)
    for value in ("unavailable_after: 2023-07-01T15:00:00Z, noarchive",
                  "unavailable_after: 2023-07-01T17:00:00+02:00, noarchive",
                  "archive.org_bot: unavailable_after: Sat, 01 Jul 2023 15:00:00 GMT, noarchive"):
        assert R.from_x_robots_tag([value], agent) == expected, value


def test_an_agent_without_product_token_only_sees_robots():
    html = '<meta name="" content="noindex"><meta name="robots" content="nofollow">'
    assert R.from_html(html, "") == R(nofollow=True)
    assert R.from_x_robots_tag([": noindex", "nofollow"], "") == R(nofollow=True)


def test_tdmrep_meta_tags_come_from_the_same_pass_bounded() -> None:
    html = ('<html><head><meta name="TDM-Reservation" content="1">'
            '<meta name="tdm-policy" content="https://example.com/policy.json">'
            '<meta name="robots" content="noai, noimageai">'
            + '<meta name="tdm-reservation" content="0">' * 50
            + '<meta name="tdm-policy">' + "</head><body>x</body></html>")
    response = HtmlResponse("https://example.com/", body=html.encode(),
                            headers={"X-Robots-Tag": "noindex"})
    directives = R.from_response(response, "mybot")
    assert directives == R(noindex=True, noai=True, noimageai=True)
    assert directives.usage_meta == (
        ("tdm-reservation", "1"), ("tdm-policy", "https://example.com/policy.json"),
        ("tdm-reservation", "0"), ("tdm-reservation", "0"))
    assert R.from_html(html, "mybot").usage_meta == directives.usage_meta


def test_a_page_with_only_tdmrep_meta_tags_is_not_blank() -> None:
    directives = R.from_html('<meta name="tdm-reservation" content="1">', "mybot")
    assert directives == R() and directives.usage_meta == (("tdm-reservation", "1"),)
    assert R().combine(directives).usage_meta == (("tdm-reservation", "1"),)
    # Robots meta tags are still bounded on their own, whatever the TDMRep tags.
    many = '<meta name="tdm-reservation" content="1">' * 40 + \
        '<meta name="robots" content="noindex">'
    assert R.from_html(many, "mybot").noindex


# Pieces of markup that change how a parser reads what follows: tags that hold raw text,
# comments, unclosed quotes and tags, namespaces, characters the parse drops or replaces.
MARKUP = [
    '<meta name="robots" content="noindex">', "<meta name=robots content=nofollow>",
    '<META NAME="MyBot" CONTENT="noarchive">', "<meta name=mybot/1.0 content=noindex>",
    "<meta name=' ROBOTS ' content='none'>", '<meta content="max-snippet:5" name="robots">',
    '<meta name="tdm-reservation" content="1">', '<meta name="description" content="x">',
    '<meta name="robots">', "<meta name='robots' content='a' content='b'>",
    '<meta name="rob\0ots" content="no\0index">', '<meta name="&#114;obots" content="none">',
    '<meta name=robots content="', '">', "<meta", " name=robots", " content=x", "/>",
    "<svg:meta name=robots content=noindex>", "<svg>", "</svg>", "<math>",
    "<!--", "-->", "<![CDATA[", "]]>", "<?xml version='1.0'?>", "<!DOCTYPE html>",
    "<script>", "</script>", "<style>", "</style>", "<textarea>", "</textarea>", "<title>",
    "</title>", "<xmp>", "<plaintext>", "<noscript>", "<template>", "<iframe>", "<select>",
    "<html>", "</html>", "<html xmlns='http://www.w3.org/1999/xhtml'>", "<head>", "</head>",
    "<body>", "</body>", "<frameset>", "<table>", "<p>", "<div>", "<br/>", "</",
    "&#114;", "&amp;", "\0", "<", ">", "'", '"', "=", " ", "\n", "\r", "\x0c", "é", "😀",
]


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.one_of(st.sampled_from(MARKUP), st.text(max_size=4)), max_size=40),
       repeated=st.integers(0, 40), piece=st.sampled_from([1, 3, 64, 1 << 16]),
       with_bytes=st.booleans())
def test_streamed_tags_are_those_of_the_tree_parsel_builds(parts, repeated, piece,
                                                           with_bytes):
    # Read as libxml2 parses, fed a piece at a time or given the page's bytes, or from
    # the tree parsel (so Scrapy) builds of the same text: the same tags, in the same
    # order, cut alike, past the bound alike (the parse stops early), or the same error.
    # 30,000 examples agreed when this was written.
    text = "".join(parts) + '<meta name="robots" content="noarchive">' * repeated + \
        "".join(parts[:3])

    def outcome(read):
        try:
            return read()
        except Exception as error:
            return type(error)

    with patch.object(meta_module, "_PIECE", piece):
        encoded = text.encode("utf-8", "surrogatepass") if with_bytes else None
        streamed = outcome(lambda: streamed_meta_tags(text, "mybot", encoded))
    assert streamed == outcome(
        lambda: meta_tags(Selector(text=text, type="html"), "mybot", len(text)))


@pytest.mark.parametrize("text", ["", "  ", "\0", " \0 ", "\xa0\u3000x\u2028 ", " " * 600,
                                  " " * 300 + "\n<p>" + " " * 700])
def test_streamed_documents_are_stripped_as_parsel_strips_them(text):
    expected = text.strip().replace("\0", "").encode() or b"<html/>"
    with patch.object(meta_module, "_PIECE", 7):
        assert b"".join(meta_module._parsed_pieces(text)) == expected


@pytest.mark.parametrize(("text", "encoded", "as_is"), [
    ("<p>é</p>", "<p>é</p>".encode(), True),
    ("<p>é</p>", "<p>é</p>".encode("latin-1"), False),  # decoded from another encoding
    ("<p>x</p>\n", b"<p>x</p>\n", False),  # parsel strips the text first
    ("\xa0<p>", "\xa0<p>".encode(), False),
    ("<p>\0</p>", b"<p>\0</p>", False),  # parsel drops NULs
    ("<p>\ud800</p>", "<p>\ud800</p>".encode("utf-8", "surrogatepass"), False),
    ("<p>x</p>", b"<p>x</p><p>y</p>", False),
    ("<p>" + "é" * 70_000, ("<p>" + "é" * 70_000).encode(), True),
])
def test_a_pages_bytes_are_parsed_as_they_are_only_when_parsel_parses_the_same(
        text, encoded, as_is):
    assert meta_module._parsed_as_is(text, encoded) is as_is


def test_a_parse_stopped_early_or_failed_leaves_the_parser_ready():
    many = '<meta name="robots" content="noarchive">' * 40
    assert len(streamed_meta_tags(many, "mybot")) == 33  # stopped at the 33rd
    assert len(streamed_meta_tags(many, "mybot", many.encode())) == 33  # in one call too
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate: parsel fails alike
        # after the first piece was fed: had the parse gone on, the next page would be
        # read inside this comment
        streamed_meta_tags("<!--" + "x" * 70_000 + "\ud800", "mybot")
    assert streamed_meta_tags('<meta name="robots" content="noindex">', "mybot") == (
        ("robots", "noindex"),)
