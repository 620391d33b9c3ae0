"""What a robots.txt fetch means (SPEC.md section 2), decided without a crawl, on a fake clock."""

from __future__ import annotations

import pytest

from scrapy_robots_policy.fetch.policy import (
    DAY,
    Answer,
    CachedAnswer,
    Fetched,
    Lookup,
    Policy,
    PolicySettings,
)

URL = "http://example.com/robots.txt"
RULES = b"User-agent: *\nDisallow: /private\n"


class Clock:
    def __init__(self, start: float = 1_000_000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def policy(clock: Clock) -> Policy:
    return Policy(PolicySettings(), now=clock)


def answer_of(policy: Policy, fetched: Fetched, chain: list[str] | None = None) -> Answer:
    result = policy.read(chain or [URL], fetched)
    assert isinstance(result, Answer)
    return result


# -- outcomes of one answer ------------------------------------------------------------------


@pytest.mark.parametrize("status", [200, 203, 206])
def test_2xx_is_parsed(policy: Policy, status: int) -> None:
    answer = answer_of(policy, Fetched(status, RULES))
    assert answer.definitive
    assert not answer.rules.allowed("/private/x", "Bot")
    assert answer.rules.allowed("/public", "Bot")


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 418, 451])
def test_4xx_allows_everything_and_never_reads_the_error_page(policy: Policy,
                                                               status: int) -> None:
    answer = answer_of(policy, Fetched(status, RULES))
    assert answer.definitive
    assert answer.rules.allowed("/private/x", "Bot")


@pytest.mark.parametrize("status", [500, 502, 503, 504, 429, 599, 99, 600, 999])
def test_5xx_429_and_nonsense_statuses_forbid_everything_for_now(policy: Policy,
                                                                 status: int) -> None:
    answer = answer_of(policy, Fetched(status, b"User-agent: *\nAllow: /\n"))
    assert not answer.definitive
    assert not answer.rules.allowed("/", "Bot")


@pytest.mark.parametrize("error", ["TimeoutError", "DNSLookupError", "ConnectionLost",
                                   "truncated body"])
def test_network_errors_are_like_5xx(policy: Policy, error: str) -> None:
    answer = answer_of(policy, Fetched(None, error=error))
    assert not answer.definitive
    assert not answer.rules.allowed("/", "Bot")
    assert error in answer.summary


def test_body_is_cut_at_512000_bytes(policy: Policy) -> None:
    head = b"User-agent: *\nDisallow: /early\n"
    kept = head + b"#" * (512_000 - len(head) - 1) + b"\n"
    answer = answer_of(policy, Fetched(200, kept + b"Disallow: /late\n" * 1000))
    assert not answer.rules.allowed("/early", "Bot")
    assert answer.rules.allowed("/late", "Bot")
    assert "512000 bytes, cut" in answer.summary


@pytest.mark.parametrize(("body", "unparsable"), [
    (b"<!doctype html><html><body><h1>Welcome!</h1></body></html>", True),
    (bytes(range(256)) * 4, True),
    (b"Disallow: /\n", True),  # a rule before any user-agent line is no rule
    (b"", False),
    (b"# nothing to say\n\n", False),
    (b"Sitemap: https://example.com/sitemap.xml\n", False),
    (RULES, False),
])
def test_a_2xx_body_without_one_robots_txt_line_is_allow_all_and_said(
        policy: Policy, body: bytes, unparsable: bool) -> None:
    answer = answer_of(policy, Fetched(200, body))
    assert answer.unparsable is unparsable
    assert ("no robots.txt line in it: allow all" in answer.summary) is unparsable
    if unparsable:
        assert answer.rules.allowed("/anything", "Bot")


# -- redirects -----------------------------------------------------------------------------


def test_redirect_is_followed_relative_and_across_hosts(policy: Policy) -> None:
    assert policy.read([URL], Fetched(301, location="/moved.txt")) == \
        "http://example.com/moved.txt"
    assert policy.read([URL], Fetched(302, location="https://cdn.example.net/r.txt")) == \
        "https://cdn.example.net/r.txt"


def test_five_hops_are_followed_a_sixth_is_a_404(policy: Policy) -> None:
    chain = [URL]
    for hop in range(1, 6):
        target = policy.read(chain, Fetched(301, location=f"/hop{hop}"))
        assert target == f"http://example.com/hop{hop}"
        chain.append(target)
    answer = answer_of(policy, Fetched(301, location="/hop6"), chain)
    assert answer.definitive
    assert answer.rules.allowed("/anything", "Bot")
    assert "more than 5 redirects" in answer.summary


def test_redirect_loop_is_a_404(policy: Policy) -> None:
    chain = [URL, "http://example.com/a"]
    answer = answer_of(policy, Fetched(302, location="/robots.txt"), chain)
    assert answer.definitive and answer.rules.allowed("/x", "Bot")
    assert "loop" in answer.summary


@pytest.mark.parametrize("location", [None, "", "file:///etc/passwd", "data:,Disallow: /",
                                      "http://[::1/x"])
def test_unusable_redirects_are_a_404(policy: Policy, location: str | None) -> None:
    answer = answer_of(policy, Fetched(301, location=location))
    assert answer.definitive and answer.rules.allowed("/x", "Bot")


def test_max_redirects_is_a_setting(clock: Clock) -> None:
    policy = Policy(PolicySettings(max_redirects=0), now=clock)
    assert answer_of(policy, Fetched(301, location="/a")).rules.allowed("/x", "Bot")


# -- caching ---------------------------------------------------------------------------------


def test_answers_hold_24_hours_by_default(policy: Policy, clock: Clock) -> None:
    step = policy.settle(None, answer_of(policy, Fetched(200, RULES)), clock.t)
    assert step.done and step.entry is not None
    assert step.entry.expires_at == clock.t + DAY
    assert policy.lookup(step.entry) is Lookup.USE
    clock.t += DAY
    assert policy.lookup(step.entry) is Lookup.USE_AND_REFRESH


@pytest.mark.parametrize(
    ("header", "ttl"),
    [
        ("max-age=3600", 3600.0),
        ("public, max-age=120, must-revalidate", 120.0),
        ('max-age="7200"', 7200.0),
        ("MAX-AGE = 300", 300.0),
        ("max-age=1", 60.0),  # below the minimum
        ("max-age=99999999999999999999", 7 * DAY),  # above the maximum
        ("no-store", 60.0),
        ("no-cache", 60.0),
        ("private", None),
        ("s-maxage=10", None),
        ("max-age=soon", None),
        ("", None),
        (None, None),
    ],
)
def test_cache_control_max_age_within_bounds(policy: Policy, header: str | None,
                                             ttl: float | None) -> None:
    assert policy.ttl(header) == ttl


def test_max_age_sets_expiry_of_2xx_and_4xx(policy: Policy, clock: Clock) -> None:
    for status in (200, 404):
        answer = answer_of(policy, Fetched(status, RULES, cache_control="max-age=600"))
        entry = policy.settle(None, answer, clock.t).entry
        assert entry is not None and entry.expires_at == clock.t + 600


def test_ttl_bounds_are_settings(clock: Clock) -> None:
    policy = Policy(PolicySettings(min_ttl=0, max_ttl=10 * DAY), now=clock)
    assert policy.ttl("max-age=1") == 1
    assert policy.ttl("max-age=864000") == 10 * DAY


def test_nothing_cached_means_fetch(policy: Policy) -> None:
    assert policy.lookup(None) is Lookup.FETCH


# -- retries while requests wait ------------------------------------------------------------


def test_backoff_doubles_up_to_a_maximum_and_503_is_retried_sooner(policy: Policy) -> None:
    assert [policy.backoff(n) for n in range(1, 9)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert policy.backoff(3, 503) == 2
    assert policy.backoff(10**6) == 60  # no overflow however long the outage


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 5 ", 5.0),
        ("Thu, 01 Jan 1970 00:01:00 GMT", 60.0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),  # in the past: now
        ("Wed, 21 Oct 2015 07:28:00", None),  # no zone: unusable
        ("-5", None),
        ("soon", None),
        ("", None),
        (None, None),
        ("99999999999999999999", 7 * DAY),
    ],
)
def test_retry_after_seconds_or_http_date(value: str | None, seconds: float | None) -> None:
    policy = Policy(now=lambda: 0.0)
    assert policy.retry_after(value) == seconds


def test_unavailable_robots_txt_is_retried_with_backoff_then_refused(policy: Policy,
                                                                     clock: Clock) -> None:
    """Requests wait while retries back off; once the patience is spent, they are refused."""
    started = clock.t
    waits = []
    for attempt in range(1, 100):
        step = policy.settle(None, answer_of(policy, Fetched(500)), started, attempt)
        if step.done:
            break
        waits.append(step.retry_in)
        clock.t += step.retry_in
    assert waits == [1, 2, 4, 8, 5]  # the last wait is cut to the end of the patience (20 s)
    assert clock.t == started + 20
    entry = step.entry
    assert entry is not None and entry.unreachable
    assert not entry.rules.allowed("/", "Bot")
    assert policy.lookup(entry) is Lookup.USE  # later requests are refused at once ...
    clock.t = entry.expires_at
    assert policy.lookup(entry) is Lookup.FETCH  # ... until a new round of fetching


def test_an_answer_during_retries_settles_the_round(policy: Policy, clock: Clock) -> None:
    started = clock.t
    step = policy.settle(None, answer_of(policy, Fetched(503)), started)
    assert step.retry_in == 0.5
    clock.t += step.retry_in
    step = policy.settle(None, answer_of(policy, Fetched(200, RULES)), started, 2)
    assert step.done and step.entry is not None and not step.entry.unreachable
    assert not step.entry.rules.allowed("/private", "Bot")


def test_retry_after_is_honoured(policy: Policy, clock: Clock) -> None:
    step = policy.settle(None, answer_of(policy, Fetched(503, retry_after="7")), clock.t)
    assert step.retry_in == 7


def test_retry_after_beyond_the_patience_refuses_at_once_and_holds(policy: Policy,
                                                                  clock: Clock) -> None:
    step = policy.settle(None, answer_of(policy, Fetched(429, retry_after="3600")), clock.t)
    assert step.done and step.entry is not None and step.entry.unreachable
    assert step.entry.expires_at == clock.t + 3600  # no new try before the server allows


def test_zero_patience_refuses_on_the_first_failure(clock: Clock) -> None:
    policy = Policy(PolicySettings(patience=0), now=clock)
    step = policy.settle(None, answer_of(policy, Fetched(None, error="TimeoutError")), clock.t)
    assert step.done and step.entry is not None and step.entry.unreachable


def test_long_patience_keeps_retrying(clock: Clock) -> None:
    policy = Policy(PolicySettings(patience=3600), now=clock)
    started = clock.t
    clock.t += 3000
    step = policy.settle(None, answer_of(policy, Fetched(500)), started)
    assert step.retry_in == 1


# -- stale copies ----------------------------------------------------------------------------


def good_entry(policy: Policy, clock: Clock) -> CachedAnswer:
    entry = policy.settle(None, answer_of(policy, Fetched(200, RULES)), clock.t).entry
    assert entry is not None
    return entry


def test_failed_refresh_keeps_the_last_good_copy_without_waiting(policy: Policy,
                                                                 clock: Clock) -> None:
    good = good_entry(policy, clock)
    clock.t += DAY + 1
    assert policy.lookup(good) is Lookup.USE_AND_REFRESH
    step = policy.settle(good, answer_of(policy, Fetched(503)), clock.t)
    assert step.done and step.entry is not None
    assert step.entry.rules is good.rules and not step.entry.unreachable
    assert step.entry.expires_at == clock.t + 0.5  # refreshed again soon, with backoff
    assert step.entry.failures == 1
    clock.t = step.entry.expires_at
    step = policy.settle(step.entry, answer_of(policy, Fetched(503)), clock.t)
    assert step.entry is not None and step.entry.failures == 2
    assert step.entry.expires_at == clock.t + 1


def test_stale_copy_serves_30_days_then_the_5xx_rule(policy: Policy, clock: Clock) -> None:
    good = good_entry(policy, clock)
    clock.t += 30 * DAY
    assert policy.lookup(good) is Lookup.USE_AND_REFRESH
    clock.t += 1
    assert policy.lookup(good) is Lookup.FETCH
    step = policy.settle(good, answer_of(policy, Fetched(500)), clock.t)
    assert not step.done  # no copy left: requests wait for a retry


def test_successful_refresh_replaces_the_copy(policy: Policy, clock: Clock) -> None:
    good = good_entry(policy, clock)
    clock.t += DAY + 1
    answer = answer_of(policy, Fetched(200, b"User-agent: *\nDisallow: /\n"))
    entry = policy.settle(good, answer, clock.t).entry
    assert entry is not None and entry.failures == 0 and entry.fetched_at == clock.t
    assert not entry.rules.allowed("/public", "Bot")


def test_a_404_is_a_good_copy_too(policy: Policy, clock: Clock) -> None:
    entry = policy.settle(None, answer_of(policy, Fetched(404)), clock.t).entry
    assert entry is not None
    clock.t += DAY + 1
    kept = policy.settle(entry, answer_of(policy, Fetched(500)), clock.t).entry
    assert kept is not None and kept.rules.allowed("/x", "Bot")



def test_each_entry_keeps_the_status_a_spiders_own_request_is_answered_with(
        policy: Policy, clock: Clock) -> None:
    good = policy.settle(None, answer_of(policy, Fetched(200, RULES)), clock.t).entry
    assert good is not None and (good.status, good.body) == (200, RULES)
    clock.t += DAY + 1
    kept = policy.settle(good, answer_of(policy, Fetched(503)), clock.t).entry
    assert kept is not None and (kept.status, kept.body) == (200, RULES)  # the copy's
    gone = policy.settle(None, answer_of(policy, Fetched(503)), clock.t - 21.0).entry
    assert gone is not None and gone.unreachable and gone.status == 503
    missing = policy.settle(None, answer_of(policy, Fetched(404, b"<html>")), clock.t).entry
    assert missing is not None and (missing.status, missing.body) == (404, None)
    lost = policy.settle(None, answer_of(policy, Fetched(None, error="reset")),
                         clock.t - 21.0).entry
    assert lost is not None and lost.status is None  # no HTTP answer to pass on

# -- faults: header values and answers that must not break anything --------------------------


@pytest.mark.parametrize("value", ["0", "Thu, 01 Jan 1970 00:00:00 GMT"])
def test_retry_after_now_retries_within_the_patience_on_the_backoff(policy: Policy,
                                                                    clock: Clock,
                                                                    value: str) -> None:
    """'Retry-After: 0' (or a past date) means "try again now", not "give up now"."""
    started = clock.t
    waits = []
    for attempt in range(1, 1000):
        step = policy.settle(None, answer_of(policy, Fetched(503, retry_after=value)),
                             started, attempt)
        if step.done:
            break
        waits.append(step.retry_in)
        clock.t += step.retry_in
    # The 503 backoff schedule is the floor: 6 fetches in 20 s, not one nor thousands.
    assert waits == [0.5, 1, 2, 4, 8, 4.5]
    assert step.entry is not None and step.entry.unreachable


def test_retry_after_now_with_a_zero_backoff_cannot_spin(clock: Clock) -> None:
    policy = Policy(PolicySettings(backoff=0), now=clock)
    started = clock.t
    attempt = 0
    step = None
    while step is None or not step.done:
        attempt += 1
        step = policy.settle(None, answer_of(policy, Fetched(503, retry_after="0")),
                             started, attempt)
        clock.t += step.retry_in or 0
    assert attempt <= 202  # one fetch per 0.1 s over the 20 s of patience (and a last one)


def test_retry_after_shorter_than_the_backoff_does_not_shorten_it(policy: Policy,
                                                                  clock: Clock) -> None:
    step = policy.settle(None, answer_of(policy, Fetched(500, retry_after="1")), clock.t, 4)
    assert step.retry_in == 8


def test_failed_refresh_with_retry_after_now_keeps_a_floor(policy: Policy,
                                                           clock: Clock) -> None:
    """A good copy, a refresh answered '503, Retry-After: 0': not a refetch per request."""
    entry = good_entry(policy, clock)
    clock.t += DAY + 1
    gaps = []
    for _ in range(4):
        step = policy.settle(entry, answer_of(policy, Fetched(503, retry_after="0")), clock.t)
        assert step.done and step.entry is not None and step.entry.rules is entry.rules
        entry = step.entry
        assert policy.lookup(entry) is Lookup.USE  # the next request does not refetch
        gaps.append(entry.expires_at - clock.t)
        clock.t = entry.expires_at
    assert gaps == [0.5, 1, 2, 4]


@pytest.mark.parametrize("value", ["\xb2", "1\xb2", "\xb3\xb9", "\u0663", "1e3", "0x10",
                                   "Thu, 01 Jan 99999 00:00:00 GMT",
                                   "Thu, 01 Jan 1970 99:00:00 GMT"])
def test_unusable_retry_after_is_no_header(value: str) -> None:
    policy = Policy(now=lambda: 0.0)
    assert policy.retry_after(value) is None
    assert answer_of(policy, Fetched(503, retry_after=value)).retry_after is None


@pytest.mark.parametrize("value", ["max-age=\xb2", "max-age=\u0663", "max-age=\xb2\xb3"])
def test_unusable_max_age_is_no_header(policy: Policy, value: str) -> None:
    assert policy.ttl(value) is None
    assert answer_of(policy, Fetched(200, RULES, cache_control=value)).ttl is None


@pytest.mark.parametrize("location", ["http://127.0.0.1:99999/robots.txt", "http://h:abc/x",
                                      "//h:-1/robots.txt", "http://[::1/robots.txt"])
def test_redirect_to_a_bad_port_is_an_unusable_redirect(policy: Policy, location: str) -> None:
    answer = answer_of(policy, Fetched(301, location=location))
    assert answer.definitive and answer.rules.allowed("/x", "Bot")
    assert "unusable redirect" in answer.summary


def test_not_fetched_is_allow_all_cached_like_a_404(policy: Policy, clock: Clock) -> None:
    answer = answer_of(policy, Fetched(None, not_fetched="IgnoreRequest: not in cache"))
    assert answer.definitive and answer.not_fetched
    assert answer.rules.allowed("/x", "Bot")
    assert answer.summary == "not fetched (IgnoreRequest: not in cache): allow all"
    entry = policy.settle(None, answer, clock.t).entry
    assert entry is not None and entry.expires_at == clock.t + DAY


def test_an_entry_keeps_the_body_its_rules_come_from_for_other_processes(
        policy: Policy, clock: Clock) -> None:
    good = good_entry(policy, clock)
    assert good.body == RULES  # what the Redis cache shares; other processes parse it
    clock.t += DAY + 1
    kept = policy.settle(good, answer_of(policy, Fetched(503)), clock.t).entry
    assert kept is not None and kept.body == RULES  # the last good copy, body included
    missing = policy.settle(None, answer_of(policy, Fetched(404)), clock.t).entry
    assert missing is not None and missing.body is None  # allow all: nothing to parse
