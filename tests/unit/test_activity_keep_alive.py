"""A provider call that holds a sync activity's thread keeps the attempt alive (B1):
``activity_keep_alive`` heartbeats every third of the heartbeat timeout from a thread of
its own, and not one beat once the block returns or raises."""

from __future__ import annotations

import dataclasses
import threading
import time
from datetime import timedelta

import pytest
from temporalio.exceptions import CancelledError
from temporalio.testing import ActivityEnvironment

from jobctrl.workflows.activities import activity_heartbeat, activity_keep_alive, cooperative


def _env(timeout: float | None) -> tuple[ActivityEnvironment, list[str]]:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(
        ActivityEnvironment.default_info(),
        heartbeat_timeout=None if timeout is None else timedelta(seconds=timeout),
    )
    beats: list[str] = []
    env.on_heartbeat = lambda *details: beats.append(threading.current_thread().name)
    return env, beats


def test_a_blocked_attempt_heartbeats_from_another_thread_until_the_call_returns():
    env, beats = _env(0.3)  # a beat every 0.1 s

    def call() -> None:
        with activity_keep_alive():
            time.sleep(0.55)  # the provider call, holding the attempt's thread

    env.run(call)
    sent = len(beats)
    time.sleep(0.35)
    assert 3 <= sent <= 6, beats
    assert set(beats) == {"keep-alive"}, "sent from the keep-alive thread, not the attempt's"
    assert len(beats) == sent, "no beat after the call returned"


def test_the_keep_alive_stops_when_the_call_raises():
    env, beats = _env(0.3)

    def call() -> None:
        with activity_keep_alive():
            time.sleep(0.25)
            raise RuntimeError("the provider call failed")

    with pytest.raises(RuntimeError):
        env.run(call)
    sent = len(beats)
    time.sleep(0.35)
    assert sent >= 1 and len(beats) == sent


def test_nothing_to_keep_alive_without_a_heartbeat_timeout_or_outside_an_activity():
    env, beats = _env(None)

    def call() -> None:
        with activity_keep_alive():
            time.sleep(0.2)

    env.run(call)
    with activity_keep_alive():  # not in an activity: a no-op
        time.sleep(0.05)
    assert beats == []


def test_a_cancellation_lands_when_the_call_returns_not_while_it_runs():
    """Raised into the attempt's thread mid-call, a cancellation would land the moment the
    paid answer arrives, before it is recorded (B6): it waits for the block's end."""
    env, _ = _env(0.3)
    env.on_heartbeat = lambda *details: env.cancel()  # the first beat brings a cancel back
    done: list[str] = []

    def call() -> None:
        with activity_keep_alive():
            for _ in range(6):  # bytecode between the waits: an unshielded cancel lands here
                time.sleep(0.1)
            done.append("answer recorded")

    with pytest.raises(CancelledError):
        env.run(call)
    assert done == ["answer recorded"]


def test_a_cooperative_activity_stops_at_its_next_heartbeat_not_mid_work():
    """A cancel (or a heartbeat timeout) is not raised wherever the attempt's thread is —
    inside a store transaction, holding the canary's turn — but at its next heartbeat,
    and the SDK's own exception when the body ends."""
    env, _ = _env(0.3)
    reached: list[str] = []

    @cooperative
    def attempt() -> None:
        env.cancel()
        for _ in range(5):  # bytecode between the waits: an unshielded cancel lands here
            time.sleep(0.02)
        reached.append("write committed")
        activity_heartbeat()  # the next unit of work starts here: it stops instead
        reached.append("next unit")

    with pytest.raises(CancelledError):
        env.run(attempt)
    assert reached == ["write committed"]
