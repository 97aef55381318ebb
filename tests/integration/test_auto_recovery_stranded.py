"""Stage rows an ended run would leave stranded (fault suite, bugs B3 and B4), in the store
(no Temporal): a pending Enrich whose preparation ended before claiming it is recovery's to
retry (a job never prepared stays excluded), and a run the store records closed claims
nothing (an attempt still running in its thread after its execution ended)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain import errors
from jobctrl.domain.executions import WorkflowType
from jobctrl.store import jobs, recovery, stage_states, workflow_runs
from tests.support.clock import WallClock

LATER = timedelta(hours=2)  # past every backoff
STAGES = ("enrich", "score", "tailor", "cover", "pdf")


def _job(store, n: int | str) -> str:
    job_id = jobs.create_job(store, f"https://jobs.example/{n}").job_id
    with store.write() as tx:
        stage_states.ensure_stages(tx, job_id, ["enrich"])
    return job_id


def _prep_run(store, job_id: str, run_id: str, *, ended: str | None = "failed") -> None:
    """The job's preparation run, recorded started and (unless ``ended`` is None) ended
    as ``failed``, ``completed`` or ``canceled`` without claiming any stage."""
    workflow_id = f"prep-{job_id}"
    workflow_runs.record_workflow_started(
        store,
        workflow_id=workflow_id,
        run_id=run_id,
        workflow_type=WorkflowType.PREPARATION.value,
        job_id=job_id,
    )
    if ended == "canceled":
        workflow_runs.record_workflow_canceled(
            store, workflow_id=workflow_id, run_id=run_id, job_id=job_id
        )
    elif ended is not None:
        workflow_runs.record_workflow_closed(
            store,
            workflow_id=workflow_id,
            run_id=run_id,
            job_id=job_id,
            outcome=ended,
            error_code="activity_timeout" if ended == "failed" else None,
        )


def _row(store, job_id, stage="enrich") -> dict:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage)


def _reserve(store, clock, **kw):
    return recovery.reserve_cohort(store, stage_limit=3, stages=STAGES, clock=clock, **kw)


def test_a_pending_enrich_whose_preparation_ended_unclaimed_is_retried_after_its_backoff(
    store,
) -> None:
    stranded = _job(store, "stranded")
    _prep_run(store, stranded, "run-1", ended=None)
    now = datetime.now(UTC)
    assert _reserve(store, WallClock(now + LATER)) is None  # its run is still open

    _prep_run(store, stranded, "run-1")  # every attempt failed before the claim
    changed = _row(store, stranded)["updated_at"].replace(tzinfo=UTC)
    assert _reserve(store, WallClock(changed + timedelta(seconds=59))) is None  # 60 s backoff
    cohort = _reserve(store, WallClock(changed + timedelta(seconds=61)))

    assert cohort is not None and cohort.stage == "enrich" and cohort.job_ids == (stranded,)
    claim = stage_states.claim_stage(store, stranded, "enrich", "run-r")  # unbound: a plain claim
    assert claim.attempt == 1


def test_a_pending_enrich_of_a_job_never_prepared_or_cancelled_stays_excluded(store) -> None:
    never = _job(store, "never")  # discovery.prepare_jobs off: never prepared
    canceled = _job(store, "canceled")
    _prep_run(store, canceled, "run-c", ended="canceled")
    completed_then_open = _job(store, "again")
    _prep_run(store, completed_then_open, "run-a")
    _prep_run(store, completed_then_open, "run-b", ended=None)  # a newer one runs

    assert _reserve(store, WallClock(datetime.now(UTC) + LATER)) is None
    for job_id in (never, canceled, completed_then_open):
        assert _row(store, job_id)["reserved_by"] is None


def test_a_pending_enrich_a_recovery_run_claimed_before_counts_as_prepared(store) -> None:
    """A recovery execution records no job: its claim (an automatic attempt on the row)
    says the job was being prepared."""
    job_id = _job(store, 1)
    error = errors.StageError(errors.ENRICH_TIMEOUT, "failed in a test", retryable=True)
    claim = stage_states.claim_stage(store, job_id, "enrich", "run-unrecorded")
    stage_states.fail_stage(store, job_id, "enrich", "run-unrecorded", claim.attempt, error)
    clock = WallClock(datetime.now(UTC) + LATER)
    first = _reserve(store, clock)
    assert first is not None and first.job_ids == (job_id,)
    assert recovery.bind_run(store, first.workflow_id, "run-r", clock=clock)
    claim = stage_states.claim_stage(store, job_id, "enrich", "run-r", clock=clock)
    stage_states.fail_stage(store, job_id, "enrich", "run-r", claim.attempt, error, clock=clock)
    recovery.close_cohort(store, first.workflow_id, run=("run-r", "failed", "x"), clock=clock)
    stage_states.reset_stages(store, job_id, ("enrich",), "reset", clock=clock)  # pending again
    assert _row(store, job_id)["auto_attempts"] == 1

    clock.advance(LATER)
    second = _reserve(store, clock)

    assert second is not None and second.stage == "enrich" and second.job_ids == (job_id,)


def test_a_preparation_run_the_store_records_closed_claims_nothing(store) -> None:
    job_id = _job(store, 1)
    _prep_run(store, job_id, "run-late")

    with pytest.raises(errors.StageError) as refused:
        stage_states.claim_stage(store, job_id, "enrich", "run-late")

    assert refused.value.code == errors.OWNERSHIP_LOST
    row = _row(store, job_id)
    assert row["state"] == "pending" and row["attempts"] == 0 and row["owner_run_id"] is None
    _prep_run(store, job_id, "run-next", ended=None)
    assert stage_states.claim_stage(store, job_id, "enrich", "run-next").attempt == 1


def test_a_recovery_run_whose_cohort_closed_claims_nothing(store) -> None:
    job_id = _job(store, 1)
    _prep_run(store, job_id, "run-1")
    with store.write() as tx:
        stage_states.ensure_stages(tx, job_id, ["score"])
    cohort = _reserve(store, WallClock(datetime.now(UTC) + LATER))
    assert cohort is not None and cohort.job_ids == (job_id,)
    assert recovery.bind_run(store, cohort.workflow_id, "run-r")
    recovery.close_cohort(store, cohort.workflow_id, run=("run-r", "failed", "activity_timeout"))

    with pytest.raises(errors.StageError) as refused:
        stage_states.claim_stage(store, job_id, "enrich", "run-r")

    assert refused.value.code == errors.OWNERSHIP_LOST
    row = _row(store, job_id)
    assert row["state"] == "pending" and row["reserved_by"] is None and row["auto_attempts"] == 0
