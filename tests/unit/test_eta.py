"""pipeline-eta-v1: each reason a number is withheld, calibration, and the range's
arithmetic."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain.eta import (
    CONTRACT,
    MIN_SAMPLES,
    EtaInputs,
    estimate,
    observed_parallelism,
    quantile,
    running_for,
)

FIVE = [10.0, 20.0, 30.0, 40.0, 50.0]


def ready(**overrides: object) -> EtaInputs:
    """Fresh runtime, 4 of 8 slots busy, 10 Enrich and 10 Score rows left, 5 samples each."""
    values: dict[str, object] = {
        "phase": "draining",
        "runtime_state": "fresh",
        "active_slots": 4,
        "capacity": 8,
        "demand": {"enrich": 10, "score": 10},
        "jobs_with_demand": 10,
        "samples": {"enrich": FIVE, "score": FIVE},
    }
    values.update(overrides)
    return EtaInputs(**values)  # type: ignore[arg-type]


def test_quantile_is_nearest_rank() -> None:
    assert quantile(FIVE, 0.5) == 30.0
    assert quantile(FIVE, 0.9) == 50.0
    assert quantile([7.0], 0.9) == 7.0


def test_range_is_work_over_parallelism() -> None:
    eta = estimate(ready())
    assert eta["contract"] == CONTRACT and eta["state"] == "available"
    # low: 10 x p50 30 s per stage, 2 stages, over min(capacity 8, 10 jobs) = 8 slots
    assert eta["low"] == pytest.approx(2 * 10 * 30 / 8)
    # high: 10 x p90 50 s per stage over the 4 slots in use now
    assert eta["high"] == pytest.approx(2 * 10 * 50 / 4)
    assert eta["per_stage"]["enrich"]["low"] == pytest.approx(10 * 30 / 8)
    assert eta["per_stage"]["tailor"]["state"] == "done"
    assert eta["reason"] is None


def test_a_stage_running_far_past_its_recent_runs_withholds_the_number() -> None:
    # Samples of 10-50 s: a row running 90 s is within 2 x p90 + 1 s and priced as usual;
    # one running 120 s shows the samples no longer say what is left (a slow site today).
    assert estimate(ready(running_for={"enrich": 90.0}))["state"] == "available"
    eta = estimate(ready(running_for={"enrich": 120.0, "score": 5.0}))
    assert (eta["state"], eta["reason"], eta["low"], eta["high"]) == (
        "unavailable",
        "overrunning",
        None,
        None,
    )
    assert "enrich has run 120 s, its recent runs 50 s" in eta["detail"]
    assert "score" not in eta["detail"].split(":", 1)[1]
    assert eta["per_stage"]["enrich"]["low"] is None  # no stage priced either
    at = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    longest = running_for(
        [("enrich", at), ("enrich", at + timedelta(seconds=30))], at + timedelta(seconds=40)
    )
    assert longest == {"enrich": 40.0}


def test_one_job_is_never_faster_than_its_stages_in_a_row() -> None:
    eta = estimate(ready(demand={"enrich": 1, "score": 1}, jobs_with_demand=1, active_slots=8))
    assert eta["low"] == pytest.approx(30 + 30)
    assert eta["high"] == pytest.approx(50 + 50)


def test_unscored_jobs_may_still_need_materials() -> None:
    samples = {s: FIVE for s in ("enrich", "score", "tailor", "cover", "pdf")}
    eta = estimate(
        ready(
            demand={"score": 40},
            unscored_jobs=40,
            pass_rate=0.5,
            samples=samples,
            jobs_with_demand=40,
            capacity=4,
        )
    )
    per = eta["per_stage"]
    assert per["tailor"]["expected"] == 20.0 and per["tailor"]["possible"] == 40
    assert eta["low"] == pytest.approx((40 * 30 + 3 * 20 * 30) / 4)
    assert eta["high"] == pytest.approx((40 * 50 + 3 * 40 * 50) / 4)
    assert eta["low"] <= eta["high"]


def test_nothing_remaining_is_zero() -> None:
    eta = estimate(ready(demand={}, jobs_with_demand=0))
    assert (eta["state"], eta["low"], eta["high"]) == ("available", 0.0, 0.0)


def test_fewer_than_five_samples_is_calibrating_and_names_the_stage() -> None:
    eta = estimate(ready(samples={"enrich": FIVE, "score": FIVE[:3]}))
    assert eta["state"] == "calibrating" and eta["low"] is None and eta["high"] is None
    assert eta["reason"] == "insufficient_samples"
    assert "score has 3 of 5" in eta["detail"]
    assert eta["calibrating"] == [{"stage": "score", "samples": 3, "needed": MIN_SAMPLES}]


def test_a_stage_without_work_needs_no_samples() -> None:
    eta = estimate(ready(demand={"enrich": 3}, samples={"enrich": FIVE}))
    assert eta["state"] == "available"


@pytest.mark.parametrize(
    ("overrides", "state", "reason"),
    [
        ({"runtime_state": "stale", "active_slots": None}, "stale", "runtime_stale"),
        (
            {"runtime_state": "unavailable", "active_slots": None},
            "unavailable",
            "worker_unavailable",
        ),
        ({"budget_blocked": frozenset({"score"})}, "paused", "budget_exhausted"),
        ({"paused_lanes": frozenset({"enrich"})}, "paused", "stop_loss"),
        ({"retries_waiting": 2}, "unavailable", "unbounded_retries"),
        ({"truncated": True}, "unavailable", "unbounded_contention"),
        ({"phase": "discovering"}, "unavailable", "membership_open"),
    ],
)
def test_each_reason_withholds_the_number(
    overrides: dict[str, object], state: str, reason: str
) -> None:
    eta = estimate(ready(**overrides))
    assert (eta["state"], eta["reason"]) == (state, reason)
    assert eta["low"] is None and eta["high"] is None
    assert eta["detail"]
    priced = {s for s, e in eta["per_stage"].items() if e.get("low") is not None}
    # Only a run still adding jobs may price each known stage; any other reason withholds
    # every number (a stale report's capacity would make them wrong besides).
    assert priced == ({"enrich", "score"} if reason == "membership_open" else set())


# Work that only waits (every row left failed with a blocking code) is not "nothing
# left": the range is withheld with the reason, whether or not other work remains.
NOTHING_LEFT = {"demand": {}, "jobs_with_demand": 0}


@pytest.mark.parametrize(
    ("overrides", "state", "reason"),
    [
        ({"held": frozenset({"budget_exceeded"})}, "paused", "budget_exhausted"),
        (
            {"held": frozenset({"automation_paused"}), "pauses_active": True},
            "paused",
            "stop_loss",
        ),
        ({"held": frozenset({"config_invalid"})}, "paused", "config_invalid"),
        ({"held": frozenset({"automation_paused"})}, "unavailable", "awaiting_dispatch"),
    ],
)
@pytest.mark.parametrize("other_work", [False, True])
def test_work_waiting_on_a_block_withholds_the_number(
    overrides: dict[str, object], state: str, reason: str, other_work: bool
) -> None:
    eta = estimate(ready(**overrides, **({} if other_work else NOTHING_LEFT)))
    assert (eta["state"], eta["reason"]) == (state, reason)
    assert eta["low"] is None and eta["high"] is None and eta["detail"]


def test_with_nothing_left_and_nothing_waiting_the_range_is_zero() -> None:
    eta = estimate(ready(**NOTHING_LEFT))
    assert (eta["state"], eta["low"], eta["high"]) == ("available", 0.0, 0.0)


def test_membership_open_still_prices_each_known_stage() -> None:
    eta = estimate(ready(phase="discovering"))
    assert eta["per_stage"]["enrich"]["low"] == pytest.approx(10 * 30 / 8)


def test_a_budget_or_pause_on_a_lane_without_work_does_not_withhold() -> None:
    eta = estimate(ready(budget_blocked=frozenset({"cover"}), paused_lanes=frozenset({"pdf"})))
    assert eta["state"] == "available"


def test_only_the_fifty_most_recent_samples_count() -> None:
    recent = [10.0] * 50 + [1000.0] * 10  # newest first: the old slow ones are ignored
    eta = estimate(ready(samples={"enrich": recent, "score": recent}))
    assert eta["per_stage"]["enrich"]["samples"] == 50
    assert eta["per_stage"]["enrich"]["p90"] == 10.0


T = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _at(seconds: float) -> datetime:
    return T + timedelta(seconds=seconds)


def test_observed_parallelism_is_stage_seconds_per_second_since_work_began() -> None:
    # Two stages of 10 s each, back to back, in the 20 s since work began: 1 at a time.
    spans = {"enrich": [(_at(0), _at(10))], "score": [(_at(10), _at(20))]}
    assert observed_parallelism(spans, [], _at(20)) == pytest.approx(1.0)
    # Plus a row running for the last 10 s: 1.5 at a time.
    assert observed_parallelism(spans, [_at(10)], _at(20)) == pytest.approx(1.5)


def test_observed_parallelism_looks_back_one_minute_at_most() -> None:
    spans = {"enrich": [(_at(0), _at(100)), (_at(-500), _at(-400))]}
    # Only the last 60 s count: 60 stage-seconds in 60 s.
    assert observed_parallelism(spans, [], _at(100)) == pytest.approx(1.0)


def test_nothing_recent_observes_nothing() -> None:
    assert observed_parallelism({"enrich": [(_at(0), _at(10))]}, [], _at(500)) is None
    assert observed_parallelism({}, [], _at(0)) is None


def test_the_observed_parallelism_divides_the_work() -> None:
    eta = estimate(ready(observed_parallelism=2.0))
    assert eta["low"] == pytest.approx(2 * 10 * 30 / 2)
    assert eta["high"] == pytest.approx(2 * 10 * 50 / 2)
    assert eta["parallelism"]["observed"] is True
    # Never more than the slots (8) or the jobs left (10) allow.
    assert estimate(ready(observed_parallelism=40.0))["parallelism"]["low"] == 8
