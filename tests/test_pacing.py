"""The pacing rule on its own, with a fake clock: pace, pauses, Retry-After, back-off."""

from __future__ import annotations

import pytest

from scrapy_robots_policy.pacing import Pacer, PaceSettings, read_retry_after

A, B = "http://a.example", "http://b.example"


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock() -> Clock:
    return Clock()


def pacer(clock: Clock, **settings: object) -> Pacer:
    return Pacer(PaceSettings(**{"crawl_delay": True, **settings}),  # type: ignore[arg-type]
                 clock=clock, wall_clock=lambda: 0.0)


def test_crawl_delay_spaces_the_requests_of_its_origin_only(clock: Clock) -> None:
    p = pacer(clock)
    assert p.crawl_delay(A, 2.0).changed
    assert p.sent(A) == 0.0
    assert p.wait(A) == 2.0
    assert p.wait(B) == 0.0
    clock.t += 1.5
    assert p.wait(A) == pytest.approx(0.5)
    clock.t += 0.5
    assert p.wait(A) == 0.0


@pytest.mark.parametrize(("declared", "applied"), [
    (None, 0.0), (float("nan"), 0.0), (float("inf"), 0.0), (-1.0, 0.0), (0.5, 0.5),
    (1e308, 60.0)])
def test_unusable_crawl_delays_are_none_and_huge_ones_capped(clock: Clock,
                                                           declared: float | None,
                                                           applied: float) -> None:
    assert pacer(clock).crawl_delay(A, declared).seconds == applied


def test_crawl_delay_off_paces_nothing(clock: Clock) -> None:
    p = pacer(clock, crawl_delay=False)
    p.crawl_delay(A, 5.0)
    p.sent(A)
    assert p.wait(A) == 0.0


def test_a_request_sooner_than_the_pace_is_reported_early(clock: Clock) -> None:
    p = pacer(clock)
    p.crawl_delay(A, 1.0)
    p.sent(A)
    clock.t += 0.25
    assert p.sent(A) == pytest.approx(0.75)
    clock.t += 1.0
    assert p.sent(A) == 0.0


def test_shared_download_delay_is_part_of_every_origins_pace(clock: Clock) -> None:
    p = pacer(clock, download_delay=3.0)
    p.crawl_delay(A, 1.0)
    p.sent(A)
    p.sent(B)
    assert p.wait(A) == p.wait(B) == 3.0


def test_retry_after_pauses_the_origin_and_a_success_ends_the_row(clock: Clock) -> None:
    p = pacer(clock)
    pause = p.answered(A, 429, "5")
    assert pause is not None
    assert (pause.seconds, pause.asked, pause.started, pause.capped) == (5.0, 5.0, True, False)
    assert p.paused(A) and not p.paused(B)
    assert p.wait(A) == 5.0
    clock.t += 5
    assert p.wait(A) == 0.0
    assert p.answered(A, 200, None) is None


def test_without_retry_after_the_back_off_doubles_in_a_row(clock: Clock) -> None:
    p = pacer(clock)
    seconds = []
    for _ in range(4):
        pause = p.answered(A, 503, None)
        assert pause is not None
        seconds.append(pause.seconds)
        clock.t += pause.seconds
    assert seconds == [1.0, 2.0, 4.0, 8.0]
    p.answered(A, 200, None)
    pause = p.answered(A, 503, None)
    assert pause is not None and pause.seconds == 1.0


def test_answers_during_a_pause_do_not_double_it(clock: Clock) -> None:
    """Eight requests in flight when the site said 503: one pause, not 2**7 seconds."""
    p = pacer(clock)
    pauses = [p.answered(A, 503, None) for _ in range(8)]
    assert [pause.seconds for pause in pauses if pause] == [1.0] * 8
    assert [pause.started for pause in pauses if pause] == [True] + [False] * 7


def test_long_retry_after_is_capped_and_warned_once(clock: Clock) -> None:
    p = pacer(clock, backoff_max=300.0)
    first = p.answered(A, 429, "99999999999999999999")
    assert first is not None
    assert (first.seconds, first.capped, first.warn_cap) == (300.0, True, True)
    assert first.asked == 999999999999.0
    second = p.answered(A, 429, "86400")
    assert second is not None and second.capped and not second.warn_cap


@pytest.mark.parametrize("value", ["soon", "-5", "\xb2", "\u0663", "0",
                                   "Thu, 01 Jan 1970 00:00:00 GMT"])
def test_a_retry_after_naming_no_future_time_is_a_missing_one(clock: Clock,
                                                            value: str) -> None:
    p = pacer(clock)
    pause = p.answered(A, 503, value)
    assert pause is not None
    assert (pause.seconds, pause.asked) == (1.0, None)
    assert pause.problem and pause.tell_problem
    clock.t += 1
    again = p.answered(A, 503, value)
    assert again is not None and again.problem and not again.tell_problem  # said once


def test_other_statuses_and_back_off_off_pause_nothing(clock: Clock) -> None:
    assert pacer(clock).answered(A, 500, "5") is None
    assert pacer(clock, backoff=False).answered(A, 429, "5") is None
    assert pacer(clock, backoff_statuses=frozenset({500})).answered(A, 500, None)


def test_a_pause_from_another_process_holds_here_and_never_shortens_one(clock: Clock) -> None:
    p = pacer(clock)
    assert p.pause(A, 10.0)
    assert p.wait(A) == 10.0
    assert not p.pause(A, 2.0)
    assert p.wait(A) == 10.0
    assert p.pause(A, 1e9) and p.wait(A) == 300.0  # capped like the origin's own


def test_origins_owing_nothing_are_forgotten_past_the_bound(clock: Clock) -> None:
    p = pacer(clock, max_origins=3)
    for n in range(3):
        p.crawl_delay(f"http://{n}.example", 1.0)
        p.sent(f"http://{n}.example")
    clock.t += 2
    p.answered(A, 429, "60")
    assert p.paused(A)  # kept: it still owes its pause
    assert len(p._states) == 1


def test_http_date_retry_after_counts_from_the_wall_clock() -> None:
    assert read_retry_after("Thu, 01 Jan 1970 00:01:00 GMT", 30.0).seconds == 30.0
    assert read_retry_after("Wed, 21 Oct 2015 07:28:00", 0.0).seconds is None  # no zone
