"""noai and noimageai as usage signals, with the directive that set them as evidence."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_policy import RobotsDirectives
from scrapy_robots_policy.usage import decide, noai_signals, refused


def test_noai_refuses_ai_training_and_input_for_the_page() -> None:
    directives = RobotsDirectives.from_html(
        '<meta name="robots" content="noai, noimageai">', "MyBot")
    reading = noai_signals(directives)
    assert {(s.purpose, s.allowed) for s in reading.signals} == {
        ("ai-train", False), ("ai-input", False)}
    assert reading.signals[0].evidence == \
        'noai (from <meta name="robots" content="noai, noimageai">)'
    assert refused(decide(reading.signals, ["search"])) is None


def test_noimageai_speaks_of_images_only() -> None:
    directives = RobotsDirectives.from_x_robots_tag("mybot: noimageai", "MyBot")
    assert noai_signals(directives).signals == ()
    reading = noai_signals(directives, images=True)
    assert {s.purpose for s in reading.signals} == {"ai-train", "ai-input"}
    assert reading.signals[0].evidence == \
        "noimageai (from X-Robots-Tag: mybot: noimageai), for the page's images"


def test_directives_for_other_crawlers_say_nothing() -> None:
    directives = RobotsDirectives.from_x_robots_tag("otherbot: noai", "MyBot")
    assert noai_signals(directives, images=True).signals == ()


@settings(max_examples=200, deadline=None)
@given(content=st.text(max_size=40))
def test_any_meta_content_never_raises(content: str) -> None:
    directives = RobotsDirectives.from_meta([("robots", content)], "MyBot")
    for signal in noai_signals(directives, images=True).signals:
        assert not signal.allowed
