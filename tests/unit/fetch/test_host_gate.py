"""HostGate spaces request starts per host and fails fast during rate-limit cooldowns."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest

from jobctrl.domain.errors import ENRICH_RATE_LIMITED, StageError
from jobctrl.fetch.politeness import HostGate


def test_the_first_request_to_a_host_does_not_wait(clock) -> None:
    gate = HostGate(1.0, clock=clock, sleep=clock.sleep)

    gate.acquire("a.example")
    gate.acquire("b.example")

    assert clock.sleeps == []


def test_a_second_request_waits_out_the_interval(clock) -> None:
    gate = HostGate(1.0, clock=clock, sleep=clock.sleep)

    gate.acquire("a.example")
    clock.advance(0.25)
    gate.acquire("a.example")
    clock.advance(5)
    gate.acquire("a.example")

    assert clock.sleeps == [0.75]


def test_queued_requests_each_get_their_own_slot(clock) -> None:
    gate = HostGate(1.0, clock=clock, sleep=lambda seconds: clock.sleeps.append(seconds))

    for _ in range(4):
        gate.acquire("a.example")

    assert clock.sleeps == [1.0, 2.0, 3.0]


def test_a_long_wait_fails_fast_instead_of_sleeping(clock) -> None:
    gate = HostGate(10.0, clock=clock, sleep=clock.sleep)
    gate.acquire("a.example")

    with pytest.raises(StageError) as caught:
        gate.acquire("a.example")

    assert caught.value.code == ENRICH_RATE_LIMITED
    assert caught.value.retryable is True
    assert caught.value.retry_after == timedelta(seconds=10)
    assert clock.sleeps == []


def test_a_cooldown_refuses_the_host_until_it_ends(clock) -> None:
    gate = HostGate(0.0, clock=clock, sleep=clock.sleep)
    gate.cool_down("a.example", timedelta(seconds=30))
    clock.advance(10)

    with pytest.raises(StageError) as caught:
        gate.acquire("a.example")
    gate.acquire("b.example")
    clock.advance(20)
    gate.acquire("a.example")

    assert caught.value.code == ENRICH_RATE_LIMITED
    assert caught.value.retry_after == timedelta(seconds=20)


def test_a_shorter_cooldown_does_not_cut_a_longer_one(clock) -> None:
    gate = HostGate(0.0, clock=clock, sleep=clock.sleep)
    gate.cool_down("a.example", timedelta(seconds=60))
    gate.cool_down("a.example", timedelta(seconds=5))

    with pytest.raises(StageError) as caught:
        gate.check_cooldown("a.example")

    assert caught.value.retry_after == timedelta(seconds=60)


def test_threads_share_the_gate() -> None:
    gate = HostGate(0.02)
    starts: list[float] = []
    lock = threading.Lock()

    def request() -> None:
        gate.acquire("a.example")
        with lock:
            starts.append(time.monotonic())

    threads = [threading.Thread(target=request) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(starts) == 5
    assert max(starts) - min(starts) >= 4 * 0.02 * 0.8  # five starts, four intervals apart
