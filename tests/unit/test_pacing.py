"""The provider pacer (jobctrl.llm.pacing): holds shared by every thread, the pace from
the providers' rate-limit headers or learned from 429s, a bounded wait, a cancel ending a
wait, and the headers of both providers read right."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain.errors import PROVIDER_RATE_LIMITED
from jobctrl.llm.pacing import (
    LEARNED_FOR,
    MARGIN,
    WINDOW,
    Pacer,
    Ticket,
    endpoint_id,
    read_headers,
)
from jobctrl.llm.remote import ProviderError

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def never() -> None:
    return None


def test_openai_headers_are_read() -> None:
    seen = read_headers(
        {
            "X-RateLimit-Limit-Requests": "60",
            "x-ratelimit-remaining-requests": "59",
            "x-ratelimit-reset-requests": "6m0s",
            "retry-after": "7",
        },
        NOW,
    )
    assert (seen.limit, seen.remaining, seen.reset, seen.retry_after) == (60, 59, 360.0, 7.0)
    assert read_headers({"x-ratelimit-reset-requests": "20ms"}).reset == pytest.approx(0.02)
    assert read_headers({"x-ratelimit-reset-requests": "1m2.5s"}).reset == 62.5
    assert read_headers({"x-ratelimit-reset-requests": "soon"}).reset is None
    assert read_headers({"retry-after-ms": "1500", "retry-after": "9"}).retry_after == 1.5


def test_anthropic_headers_are_read() -> None:
    reset = (NOW + timedelta(seconds=12)).isoformat().replace("+00:00", "Z")
    seen = read_headers(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": reset,
            "retry-after": "12",
        },
        NOW,
    )
    assert (seen.limit, seen.remaining, seen.reset, seen.retry_after) == (50, 0, 12.0, 12.0)


def test_retry_after_as_an_http_date() -> None:
    seen = read_headers({"Retry-After": "Tue, 01 Dec 2026 12:00:30 GMT"}, NOW)
    assert seen.retry_after == 30.0


def test_a_hold_after_a_429_is_honoured_by_every_other_thread() -> None:
    pacer = Pacer()
    refused = pacer.acquire(never, time.monotonic() + 5)
    refused.observe(429, {"retry-after": "0.6"})  # the hook: the hold starts at once
    started: list[tuple[float, Ticket]] = []
    beats: list[float] = []
    t0 = time.monotonic()

    def other() -> None:
        ticket = pacer.acquire(lambda: beats.append(time.monotonic()), time.monotonic() + 5)
        started.append((time.monotonic() - t0, ticket))

    threads = [threading.Thread(target=other) for _ in range(3)]
    for thread in threads:
        thread.start()
    while not started and time.monotonic() - t0 < 5:
        time.sleep(0.01)
    time.sleep(0.3)
    assert len(started) == 1, "after the hold one request goes first (the probe)"
    assert started[0][0] >= 0.55, "nobody started during the hold"
    started[0][1].observe(200, {})  # answered: the provider admits again
    for thread in threads:
        thread.join(5)
    assert len(started) == 3
    assert beats, "the waiting requests heartbeat"
    assert pacer.limit is None, "a passing refusal teaches no rate"


def test_a_probe_that_got_no_answer_lets_the_next_one_probe() -> None:
    pacer = Pacer()
    pacer.acquire(never, time.monotonic() + 5).refused(0.0)
    probe = pacer.acquire(never, time.monotonic() + 5)
    with pytest.raises(ProviderError):
        pacer.acquire(never, time.monotonic() + 0.3)  # waits on the probe, then gives up
    probe.finish()  # a connection error, say
    second = pacer.acquire(never, time.monotonic() + 1)
    second.observe(200, {})
    pacer.acquire(never, time.monotonic() + 1)


def test_the_limit_in_the_headers_paces_starts_over_the_window() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    first = pacer.acquire(never, clock.now)
    first.observe(
        200,
        {"x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "1"},
    )
    assert pacer.limit == 2 and pacer.limit_from == "headers"
    clock.now += 1
    pacer.acquire(never, clock.now)
    assert pacer.ready_at(clock.now) == first.started + WINDOW + MARGIN
    with pytest.raises(ProviderError) as refused:
        pacer.acquire(never, clock.now + 10)  # the next start is ~60 s away
    assert refused.value.code == PROVIDER_RATE_LIMITED and refused.value.retryable
    assert refused.value.retry_after == timedelta(seconds=60)
    assert pacer.waiting() == 0


def test_none_remaining_holds_for_one_slot_at_the_stated_rate() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    ticket = pacer.acquire(never, clock.now)
    ticket.observe(
        200,
        {
            "x-ratelimit-limit-requests": "30",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "40s",
        },
    )
    assert pacer.hold_until == clock.now + 2.0  # 60 s / 30


def test_without_headers_the_rate_is_learned_from_the_first_429() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    for _ in range(3):
        pacer.acquire(never, clock.now)
        clock.now += 5
    refused = pacer.acquire(never, clock.now)
    clock.now += 0.5
    refused.refused(45.0)  # until the first of the three leaves the provider's window
    assert (pacer.limit, pacer.limit_from) == (3, "learned")
    assert pacer.hold_until == clock.now + 45.0
    refused.refused(99.0)  # told twice (hook and error): counted once
    assert pacer.hold_until == clock.now + 45.0


def test_a_refusal_asking_much_less_than_a_slot_teaches_no_rate() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    pacer.acquire(never, clock.now)  # one admitted request, then a passing refusal
    clock.now += 1
    refused = pacer.acquire(never, clock.now)
    refused.refused(3.0)  # a 1-per-minute limit would ask for ~59 s
    assert pacer.limit is None and pacer.hold_until == clock.now + 3.0


def test_a_429_without_retry_after_teaches_no_rate() -> None:
    """A quota's 429 (or any without Retry-After) is no evidence of a per-minute rate."""
    clock = Clock()
    pacer = Pacer(clock)
    for _ in range(3):
        pacer.acquire(never, clock.now)
        clock.now += 5
    pacer.acquire(never, clock.now).refused(None)
    assert pacer.limit is None


def test_a_learned_rate_lapses_after_a_quiet_while() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    for _ in range(3):
        pacer.acquire(never, clock.now)
        clock.now += 5
    refused = pacer.acquire(never, clock.now)
    refused.refused(45.0)
    refused.finish()
    assert pacer.limit == 3
    clock.now += LEARNED_FOR + 60  # no 429 since
    pacer.acquire(never, clock.now + 60).finish()
    assert pacer.limit is None, "the provider's rate again, not the one learned long ago"


def test_the_wait_is_bounded() -> None:
    pacer = Pacer()
    pacer.acquire(never, time.monotonic() + 1).refused(30.0)
    started = time.monotonic()
    with pytest.raises(ProviderError) as refused:
        pacer.acquire(never, time.monotonic() + 0.3)
    assert time.monotonic() - started < 0.2, "a hold past the bound fails at once"
    assert refused.value.retry_after is not None
    assert 29 <= refused.value.retry_after.total_seconds() <= 31


class Cancelled(BaseException):
    pass


def test_a_cancel_raised_by_the_heartbeat_ends_the_wait() -> None:
    pacer = Pacer()
    pacer.acquire(never, time.monotonic() + 1).refused(30.0)
    beats = 0

    def heartbeat() -> None:
        nonlocal beats
        beats += 1
        if beats == 2:
            raise Cancelled

    started = time.monotonic()
    with pytest.raises(Cancelled):
        pacer.acquire(heartbeat, time.monotonic() + 60)
    assert time.monotonic() - started < 2 and pacer.waiting() == 0


def test_waiters_start_in_arrival_order() -> None:
    pacer = Pacer()
    pacer.acquire(never, time.monotonic() + 1).refused(0.3)
    order: list[int] = []

    def wait(i: int) -> None:
        ticket = pacer.acquire(never, time.monotonic() + 5)
        order.append(i)
        ticket.observe(200, {})  # answered (the first is the probe after the hold)

    threads = []
    for i in range(4):
        threads.append(threading.Thread(target=wait, args=(i,)))
        threads[-1].start()
        while pacer.waiting() < i + 1:
            time.sleep(0.005)
    for thread in threads:
        thread.join(5)
    assert order == [0, 1, 2, 3]


def test_the_endpoint_names_a_digest_of_the_key_never_the_key() -> None:
    key = "sk-live-very-secret"
    one = endpoint_id("openai", "http://127.0.0.1:9/v1", key)
    assert key not in one and "secret" not in one
    assert one != endpoint_id("openai", "http://127.0.0.1:9/v1", key + "2")
    assert one == endpoint_id("openai", "http://127.0.0.1:9/v1", key)


def test_a_start_counts_from_the_moment_its_request_is_sent() -> None:
    clock = Clock()
    pacer = Pacer(clock)
    ticket = pacer.acquire(never, clock.now)
    ticket.observe(200, {"x-ratelimit-limit-requests": "1"})
    clock.now += 2  # a loaded machine: the request leaves two seconds after its turn
    ticket.sent()
    assert pacer.ready_at(clock.now) == 1002.0 + WINDOW + MARGIN
