"""Automatic recovery in the store (no Temporal): which rows a cohort reserves, what it
never picks, how a reservation is claimed, taken back and released, and the retry demand
the operations snapshot reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from jobctrl.domain import errors
from jobctrl.domain.availability import Availability
from jobctrl.domain.executions import WorkflowType
from jobctrl.domain.stages import StageState
from jobctrl.store import (
    availability,
    jobs,
    recovery,
    schema,
    stage_states,
    start_intents,
    tenancy,
    workflow_runs,
)
from tests.support.clock import WallClock

LATER = timedelta(hours=2)  # past every backoff


def _fail(store, job_id, stage, code, *, retryable=True, run="run-prep") -> None:
    claim = stage_states.claim_stage(store, job_id, stage, run)
    error = errors.StageError(code, "failed in a test", retryable=retryable)
    stage_states.fail_stage(store, job_id, stage, run, claim.attempt, error)


def _succeed(store, job_id, stage, run="run-prep") -> None:
    claim = stage_states.claim_stage(store, job_id, stage, run)
    with store.write() as tx:
        stage_states.succeed_stage(tx, job_id, stage, run, claim.attempt)


def _job(store, n: int | str) -> str:
    return jobs.create_job(store, f"https://jobs.example/{n}").job_id


def _score_failed(store, n, code=errors.PROVIDER_UNAVAILABLE, retryable=True) -> str:
    job_id = _job(store, n)
    _succeed(store, job_id, "enrich")
    _fail(store, job_id, "score", code, retryable=retryable)
    return job_id


def _row(store, job_id, stage) -> dict:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage)


def _reserve(store, clock, stages=("enrich", "score", "tailor", "cover", "pdf"), **kw):
    return recovery.reserve_cohort(store, stage_limit=3, stages=stages, clock=clock, **kw)


@pytest.fixture
def later() -> WallClock:
    return WallClock(datetime.now(UTC) + LATER)


def test_a_retryable_failure_past_its_backoff_is_reserved_in_one_cohort(store, later) -> None:
    job_id = _score_failed(store, 1)
    assert _reserve(store, WallClock()) is None  # its backoff (60 s) has not passed

    cohort = _reserve(store, later)

    assert cohort is not None and cohort.stage == "score" and cohort.job_ids == (job_id,)
    assert cohort.workflow_id.startswith("prepare-auto-local-score-")
    row = _row(store, job_id, "score")
    assert row["reserved_by"] == cohort.workflow_id
    assert row["state"] == "failed" and row["attempts"] == 1  # the state is kept as it was
    with store.read() as conn:
        queued = [
            e["payload"]
            for e in conn.execute(
                select(schema.job_events).where(
                    tenancy.scoped(schema.job_events, conn),
                    schema.job_events.c.type == "StageQueued",
                )
            ).mappings()
        ]
    assert queued == [
        {
            "jobId": job_id,
            "stage": "score",
            "workflowId": cohort.workflow_id,
            "priorState": "failed",
            "attempts": 1,
            "autoAttempt": 1,
        }
    ]
    assert recovery.open_cohorts(store) == [cohort]
    assert _reserve(store, later) is None  # reserved rows are never reserved twice


def test_a_cohort_is_one_stage_and_at_most_25_jobs(store, later) -> None:
    enrich_failed = _job(store, "e")
    _fail(store, enrich_failed, "enrich", errors.ENRICH_TIMEOUT)  # the oldest failure
    scored = [_score_failed(store, i) for i in range(30)]

    first = _reserve(store, later)
    second = _reserve(store, later)
    third = _reserve(store, later)

    assert first is not None and first.stage == "enrich" and first.job_ids == (enrich_failed,)
    assert second is not None and second.stage == "score" and len(second.job_ids) == 25
    assert third is not None and set(second.job_ids) | set(third.job_ids) == set(scored)
    assert _reserve(store, later) is None


def test_a_lane_that_may_not_run_is_passed_over(store, later) -> None:
    _score_failed(store, 1)
    assert _reserve(store, later, stages=("enrich",)) is None
    assert _reserve(store, later, stages=("score",)) is not None


def test_what_recovery_never_picks(store, later) -> None:
    auth = _score_failed(store, "auth", errors.PROVIDER_AUTH, retryable=False)
    canceled = _score_failed(store, "cancel", errors.CANCELED, retryable=False)
    budget = _score_failed(store, "budget", errors.BUDGET_EXCEEDED, retryable=False)
    fabricated = _job(store, "fab")
    _fail(store, fabricated, "enrich", errors.DETAIL_UNSAFE_URL, retryable=False)
    open_run = _score_failed(store, "running")
    workflow_runs.record_workflow_started(
        store,
        workflow_id="prep-x",
        run_id="r1",
        workflow_type="JobPreparationWorkflow",
        job_id=open_run,
    )
    intended = _score_failed(store, "intent")
    with store.write() as tx:
        start_intents.intend(tx, "prep-intent", intended)
    closed = _score_failed(store, "closed")
    availability.record_check(store, closed, Availability.UNAVAILABLE, None, datetime.now(UTC))
    never_admitted = _job(store, "new")  # a pending Enrich: not recovery's to start
    half_done = _job(store, "half")  # Score pending but Enrich failed for good
    _fail(store, half_done, "enrich", errors.ENRICH_HTTP_NOT_FOUND, retryable=False)

    assert _reserve(store, later) is None
    # The two whose jobs are busy now are still retry demand: recovery takes them later.
    assert recovery.retry_demand(store, later()) == {"due": 2, "waiting": 0}
    for job_id in (
        auth,
        canceled,
        budget,
        fabricated,
        open_run,
        intended,
        closed,
        never_admitted,
        half_done,
    ):
        assert all(r["reserved_by"] is None for r in stage_states.stage_rows(store, job_id))


def test_a_pending_stage_after_finished_ones_is_picked_after_its_grace(store) -> None:
    job_id = _job(store, 1)
    _succeed(store, job_id, "enrich")
    _succeed(store, job_id, "score")  # the run that did this stopped before Score's next stage
    with store.write() as tx:
        stage_states.ensure_stages(tx, job_id, ["tailor", "cover", "pdf"])
    assert _reserve(store, WallClock(datetime.now(UTC) + timedelta(seconds=5))) is None
    cohort = _reserve(store, WallClock(datetime.now(UTC) + timedelta(seconds=31)))
    assert cohort is not None and cohort.stage == "tailor" and cohort.job_ids == (job_id,)


def _recovery_attempt(store, job_id, stage, code, clock) -> str:
    """One automatic attempt through the real path: reserve, bind, claim, fail."""
    cohort = _reserve(store, clock)
    assert cohort is not None and cohort.job_ids == (job_id,)
    run = f"run-{cohort.workflow_id[-6:]}"
    assert recovery.bind_run(store, cohort.workflow_id, run)
    claim = stage_states.claim_stage(store, job_id, stage, run)
    error = errors.StageError(code, "failed again", retryable=True)
    stage_states.fail_stage(store, job_id, stage, run, claim.attempt, error)
    recovery.close_cohort(store, cohort.workflow_id)
    return cohort.workflow_id


def test_automatic_attempts_stop_at_the_cap(store) -> None:
    job_id = _score_failed(store, 1)
    clock = WallClock(datetime.now(UTC))
    for n in range(3):  # retry.max_attempts 3: three automatic attempts
        clock.advance(LATER)
        _recovery_attempt(store, job_id, "score", errors.PROVIDER_UNAVAILABLE, clock)
        assert _row(store, job_id, "score")["auto_attempts"] == n + 1
    clock.advance(LATER)
    assert _reserve(store, clock) is None
    assert recovery.retry_demand(store, clock()) == {"due": 0, "waiting": 0}
    assert _row(store, job_id, "score")["attempts"] == 4  # the first run's and three more


def test_the_backoff_grows_with_each_automatic_attempt(store) -> None:
    job_id = _score_failed(store, 1)
    clock = WallClock(datetime.now(UTC) + LATER)
    _recovery_attempt(store, job_id, "score", errors.PROVIDER_UNAVAILABLE, clock)
    failed_at = _row(store, job_id, "score")["finished_at"].replace(tzinfo=UTC)
    assert _reserve(store, WallClock(failed_at + timedelta(seconds=119))) is None  # 120 s now
    assert recovery.retry_demand(store, failed_at + timedelta(seconds=119)) == {
        "due": 0,
        "waiting": 1,
    }
    assert recovery.retry_demand(store, failed_at + timedelta(seconds=121)) == {
        "due": 1,
        "waiting": 0,
    }
    assert _reserve(store, WallClock(failed_at + timedelta(seconds=121))) is not None


def test_a_member_claims_only_while_its_cohort_holds_the_row(store, later) -> None:
    kept, reset, taken = (_score_failed(store, n) for n in ("kept", "reset", "taken"))
    cohort = _reserve(store, later)
    assert cohort is not None and set(cohort.job_ids) == {kept, reset, taken}
    assert recovery.bind_run(store, cohort.workflow_id, "run-r")
    run = workflow_runs.run_row(store, cohort.workflow_id, "run-r")
    assert (
        run is not None and run["workflow_type"] == WorkflowType.RECOVERY and run["job_id"] is None
    )

    stage_states.reset_stages(store, reset, ("score",), "retry")  # a person's retry
    stage_states.claim_stage(store, taken, "score", "run-person")  # a preparation took it

    claim = stage_states.claim_stage(store, kept, "score", "run-r")
    row = _row(store, kept, "score")
    assert row["state"] == "running" and row["owner_run_id"] == "run-r"
    assert row["reserved_by"] is None and row["auto_attempts"] == 1 and claim.attempt == 2
    for job_id in (reset, taken):
        with pytest.raises(errors.StageError) as lost:
            stage_states.claim_stage(store, job_id, "score", "run-r")
        assert lost.value.code == errors.OWNERSHIP_LOST
    assert _row(store, taken, "score")["owner_run_id"] == "run-person"
    assert _row(store, reset, "score")["state"] == "pending"


def test_closing_a_cohort_releases_its_unclaimed_members_as_they_were(store, later) -> None:
    job_id = _score_failed(store, 1)
    before = _row(store, job_id, "score")
    cohort = _reserve(store, later)
    assert cohort is not None

    assert recovery.close_cohort(store, cohort.workflow_id) == [job_id]

    after = _row(store, job_id, "score")
    assert after["reserved_by"] is None
    for key in ("state", "attempts", "auto_attempts", "error_code", "finished_at"):
        assert after[key] == before[key]
    assert recovery.open_cohorts(store) == []
    assert recovery.cohort(store, cohort.workflow_id).state == recovery.CLOSED
    assert not recovery.bind_run(store, cohort.workflow_id, "late-run")


def test_a_row_stopped_by_a_paused_lane_is_retried_without_backoff(store) -> None:
    job_id = _score_failed(store, 1, errors.AUTOMATION_PAUSED)
    assert recovery.retry_demand(store, datetime.now(UTC)) == {"due": 1, "waiting": 0}
    assert _reserve(store, WallClock(), stages=()) is None  # its lane still paused
    cohort = _reserve(store, WallClock())
    assert cohort is not None and cohort.job_ids == (job_id,)
    assert StageState(_row(store, job_id, "score")["state"]) == StageState.FAILED
