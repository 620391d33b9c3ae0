"""The robots.txt fetch machine: the steps a driver is told to take, with no I/O at all."""

from __future__ import annotations

import pytest

from scrapy_robots_policy.fetch.machine import Download, NextStep, RobotsFetch, Settled, Wait
from scrapy_robots_policy.fetch.policy import CachedAnswer, Fetched, Policy, PolicySettings

URL = "http://example.com/robots.txt"
RULES = b"User-agent: *\nDisallow: /private\n"


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def policy(clock: Clock, **settings: float) -> Policy:
    return Policy(PolicySettings(**settings), now=clock)  # type: ignore[arg-type]


def drive(machine: RobotsFetch, answers: dict[str, list[Fetched]], clock: Clock
          ) -> tuple[Settled, list[str]]:
    """Run the machine as a driver would, on canned answers per URL; the URLs it fetched."""
    fetched: list[str] = []
    step: NextStep = machine.start()
    while not isinstance(step, Settled):
        if isinstance(step, Wait):
            clock.t += step.seconds
            step = machine.start()
            continue
        fetched.append(step.url)
        step = machine.received(answers[step.url].pop(0))
    return step, fetched


def test_a_2xx_settles_at_once_with_its_rules() -> None:
    clock = Clock()
    settled, fetched = drive(RobotsFetch(policy(clock), URL), {URL: [Fetched(200, RULES)]},
                             clock)
    assert fetched == [URL]
    assert settled.outcome == "fetched" and settled.chain == (URL,)
    assert not settled.entry.rules.allowed("/private/x", "bot")
    assert settled.entry.expires_at == clock.t + 86400


def test_redirects_are_followed_hop_by_hop_and_the_chain_is_reported() -> None:
    clock = Clock()
    answers = {URL: [Fetched(301, location="https://www.example.com/robots.txt")],
               "https://www.example.com/robots.txt": [Fetched(302, location="/r.txt")],
               "https://www.example.com/r.txt": [Fetched(200, RULES)]}
    settled, fetched = drive(RobotsFetch(policy(clock), URL), answers, clock)
    assert fetched == [URL, "https://www.example.com/robots.txt",
                       "https://www.example.com/r.txt"]
    assert settled.chain == tuple(fetched)
    assert not settled.entry.rules.allowed("/private", "bot")


def test_a_redirect_loop_ends_the_round_as_a_404() -> None:
    clock = Clock()
    other = "http://example.com/other.txt"
    answers = {URL: [Fetched(301, location=other)], other: [Fetched(301, location=URL)]}
    settled, fetched = drive(RobotsFetch(policy(clock), URL), answers, clock)
    assert fetched == [URL, other]
    assert settled.entry.rules.allowed("/private", "bot")
    assert "redirect loop" in settled.entry.summary


def test_5xx_waits_on_the_backoff_then_a_2xx_settles_the_same_round() -> None:
    clock = Clock()
    machine = RobotsFetch(policy(clock), URL)
    assert machine.start() == Download(URL)
    wait = machine.received(Fetched(503))
    assert isinstance(wait, Wait) and wait.seconds == 0.5  # 503: half the 1 s backoff
    assert wait.answer.summary == "503"
    clock.t += wait.seconds
    assert machine.start() == Download(URL)  # a new attempt starts from the robots.txt
    settled = machine.received(Fetched(200, RULES))
    assert isinstance(settled, Settled) and settled.outcome == "fetched"
    assert machine.attempt == 2


def test_past_the_patience_the_round_settles_unreachable() -> None:
    clock = Clock()
    settled, fetched = drive(RobotsFetch(policy(clock, patience=5.0), URL),
                             {URL: [Fetched(500)] * 10}, clock)
    assert settled.outcome == "unreachable"
    assert not settled.entry.rules.allowed("/anything", "bot")
    assert 2 <= len(fetched) <= 4  # 1 s, 2 s, then what is left of the 5 s
    assert clock.t - 1_000_000.0 <= 5.0


def test_zero_patience_settles_at_the_first_failure_as_the_command_line_wants() -> None:
    clock = Clock()
    settled, fetched = drive(RobotsFetch(policy(clock, patience=0.0), URL),
                             {URL: [Fetched(None, error="TimeoutError")]}, clock)
    assert fetched == [URL]
    assert settled.outcome == "unreachable" and settled.answer.summary == "TimeoutError"


def test_a_failed_refresh_keeps_serving_the_stale_copy_without_waiting() -> None:
    clock = Clock()
    good, _ = drive(RobotsFetch(policy(clock), URL), {URL: [Fetched(200, RULES)]}, clock)
    clock.t += 2 * 86400
    settled, fetched = drive(RobotsFetch(policy(clock), URL, good.entry),
                             {URL: [Fetched(503)]}, clock)
    assert fetched == [URL]
    assert settled.outcome == "stale"
    assert settled.entry.rules is good.entry.rules
    assert settled.entry.fetched_at == good.entry.fetched_at


@pytest.mark.parametrize("previous", [None, "good"])
def test_another_middleware_refusing_the_fetch_is_allow_all_never_retried(
        previous: str | None) -> None:
    clock = Clock()
    before: CachedAnswer | None = None
    if previous:
        before = drive(RobotsFetch(policy(clock), URL), {URL: [Fetched(200, RULES)]},
                       clock)[0].entry
    settled, fetched = drive(RobotsFetch(policy(clock), URL, before),
                             {URL: [Fetched(None, not_fetched="IgnoreRequest")]}, clock)
    assert fetched == [URL]
    assert settled.outcome == "not_fetched"
    assert settled.entry.rules.allowed("/private", "bot")
