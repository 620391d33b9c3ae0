"""snippet_text: the text left out by data-nosnippet."""

from __future__ import annotations

from datetime import timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scrapy.http import HtmlResponse

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.directives import snippet_text

UTC = timezone.utc
R = RobotsDirectives


@pytest.mark.parametrize(("html", "expected"), [
    # the examples of seeds/000_* (the newest edition)
    ("<p>This text can be shown in a snippet\n <span data-nosnippet>and this part would not "
     "be shown</span>.</p>", "This text can be shown in a snippet ."),
    ('<div data-nosnippet>not in snippet</div><div data-nosnippet="true">also not in snippet'
     "</div><p>shown</p>", "shown"),
    ("<p>before</p><div data-nosnippet>some text</html><p>after the unclosed div</p>",
     "before"),
    ("<mytag data-nosnippet>some text</mytag>", "some text"),  # not span, div or section
    # also: section, nesting, case, and what is never page text
    ("<section DATA-NOSNIPPET>x</section>a<div><span data-nosnippet>y<b>z</b></span>b</div>",
     "ab"),
    ("<head><title>t</title></head><body>a<!-- c -->b<script>s()</script>c</body>", "abc"),
    ("", ""),
])
def test_snippet_text_leaves_out_data_nosnippet(html, expected):
    assert snippet_text(html) == expected
    assert snippet_text(html.encode()) == expected


def test_snippet_text_of_a_response_selector():
    response = HtmlResponse("http://e.com/", body=b"<p>a<span data-nosnippet>b</span>c</p>")
    assert snippet_text(response.selector) == "ac"


@settings(max_examples=100, deadline=None)
@given(html=st.one_of(st.text(max_size=300), st.binary(max_size=300)))
def test_snippet_text_never_raises(html):
    assert isinstance(snippet_text(html), str)
