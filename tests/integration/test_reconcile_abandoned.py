"""Stage rows left ``running`` under a run the store records closed (fault suite, bug B4:
an attempt that claimed its row after its execution's finish settled the run): the
reconciler's beat fails them retryably once the run has been closed for a grace, fenced
on their owner and attempt, so automatic recovery can take them up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from jobctrl.domain import errors
from jobctrl.domain.clock import utcnow
from jobctrl.domain.events import WorkflowCanceled, WorkflowFailed
from jobctrl.domain.executions import WorkflowType
from jobctrl.stages.context import StageContext
from jobctrl.store import events, jobs, recovery, run_verdicts, stage_states, workflow_runs
from jobctrl.worker import reconcile
from tests.support.clock import WallClock

GRACE = timedelta(seconds=run_verdicts.ABANDONED_GRACE_SECONDS)
LATER = timedelta(hours=2)


def _row(store, job_id, stage="enrich") -> dict:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage)


def _abandoned(store, n: int | str, *, close: bool = True) -> tuple[str, str]:
    """A job whose Enrich its preparation run claimed, then the run recorded closed
    with the row left running."""
    job_id = jobs.create_job(store, f"https://jobs.example/{n}").job_id
    run_id = f"run-{n}"
    workflow_runs.record_workflow_started(
        store,
        workflow_id=f"prep-{n}",
        run_id=run_id,
        workflow_type=WorkflowType.PREPARATION.value,
        job_id=job_id,
    )
    stage_states.claim_stage(store, job_id, "enrich", run_id)
    if close:  # its end recorded without settling the row (as a store before the fix did)
        with store.write() as tx:
            event = WorkflowFailed(workflow_id=f"prep-{n}", run_id=run_id, error_code="x")
            tx.append(event, key=f"workflow-closed:prep-{n}:{run_id}", job_id=job_id)
    return job_id, run_id


def _stage_failed(store, job_id) -> list[dict]:
    return [
        e["payload"]
        for e in events.events_after(store, 0, 10_000)
        if e["type"] == "StageFailed" and e["payload"]["jobId"] == job_id
    ]


def test_a_row_running_under_a_closed_run_is_settled_after_the_grace(store) -> None:
    job_id, run_id = _abandoned(store, "late")
    still_open, _ = _abandoned(store, "open", close=False)
    now = datetime.now(UTC)

    assert run_verdicts.settle_abandoned(store, clock=WallClock(now)) == 0  # within the grace
    assert _row(store, job_id)["state"] == "running"
    assert run_verdicts.settle_abandoned(store, clock=WallClock(now + GRACE * 2)) == 1

    row = _row(store, job_id)
    assert row["state"] == "failed" and row["error_code"] == errors.STAGE_INTERRUPTED
    assert row["retryable"] is True and row["attempts"] == 1 and row["owner_run_id"] == run_id
    assert _stage_failed(store, job_id) == [
        {
            "jobId": job_id,
            "stage": "enrich",
            "attempt": 1,
            "runId": run_id,
            "errorCode": errors.STAGE_INTERRUPTED,
            "retryable": True,
            "attemptsUsed": 1,
            "findings": None,
        }
    ]
    assert _row(store, still_open)["state"] == "running"  # its run is open: it owns it
    assert run_verdicts.settle_abandoned(store, clock=WallClock(now + GRACE * 3)) == 0
    cohort = recovery.reserve_cohort(
        store, stage_limit=3, stages=("enrich",), clock=WallClock(now + LATER)
    )
    assert cohort is not None and cohort.job_ids == (job_id,)  # recovery's to retry


def test_a_result_written_within_the_grace_is_kept(store) -> None:
    job_id, run_id = _abandoned(store, "won")
    with store.write() as tx:  # the late attempt finished after all
        stage_states.succeed_stage(tx, job_id, "enrich", run_id, 1)

    later = WallClock(datetime.now(UTC) + GRACE * 2)
    assert run_verdicts.settle_abandoned(store, clock=later) == 0
    assert _row(store, job_id)["state"] == "succeeded"


def test_a_row_left_running_under_a_closed_recovery_cohort_is_settled(store) -> None:
    job_id = jobs.create_job(store, "https://jobs.example/r").job_id
    claim = stage_states.claim_stage(store, job_id, "enrich", "run-first")
    error = errors.StageError(errors.ENRICH_TIMEOUT, "failed in a test", retryable=True)
    stage_states.fail_stage(store, job_id, "enrich", "run-first", claim.attempt, error)
    clock = WallClock(datetime.now(UTC) + LATER)
    cohort = recovery.reserve_cohort(store, stage_limit=3, stages=("enrich",), clock=clock)
    assert cohort is not None and recovery.bind_run(store, cohort.workflow_id, "run-r")
    stage_states.claim_stage(store, job_id, "enrich", "run-r", clock=clock)
    # The heartbeat saw its execution closed without its finish: the cohort is closed
    # (its run's end is left to the reconciler), the row still running.
    recovery.close_cohort(store, cohort.workflow_id, clock=clock)
    assert _row(store, job_id)["state"] == "running"

    clock.advance(GRACE * 2)
    assert run_verdicts.settle_abandoned(store, clock=clock) == 1

    row = _row(store, job_id)
    assert row["state"] == "failed" and row["error_code"] == errors.STAGE_INTERRUPTED
    assert row["auto_attempts"] == 1 and row["owner_run_id"] == "run-r"


async def test_the_reconciler_beat_settles_abandoned_rows(home, store, client) -> None:
    job_id, _ = _abandoned(store, "beat")
    ahead = StageContext(home=home, store=store, clock=lambda: utcnow() + GRACE * 2)

    done = await reconcile.reconcile_runs(client, ahead)

    assert done["abandoned"] == 1
    assert _row(store, job_id)["error_code"] == errors.STAGE_INTERRUPTED


def test_a_run_recorded_closed_settles_what_it_still_holds_in_that_transaction(store) -> None:
    """The finish read the run's rows, then an attempt's claim committed, then the finish
    recorded the run closed: the row is settled with the close, not left running."""
    failed, run_id = _abandoned(store, "raced", close=False)
    workflow_runs.record_workflow_closed(
        store, workflow_id="prep-raced", run_id=run_id, job_id=failed, outcome="failed",
        error_code="STAGE_TIMEOUT",
    )  # fmt: skip
    canceled, cancel_run = _abandoned(store, "cancel", close=False)
    workflow_runs.record_workflow_canceled(
        store, workflow_id="prep-cancel", run_id=cancel_run, job_id=canceled
    )

    row = _row(store, failed)
    assert row["state"] == "failed" and row["error_code"] == errors.STAGE_INTERRUPTED
    assert row["retryable"] is True and row["attempts"] == 1
    row = _row(store, canceled)
    assert row["state"] == "failed" and row["error_code"] == errors.CANCELED
    assert row["retryable"] is False
    assert [e["errorCode"] for e in _stage_failed(store, failed)] == [errors.STAGE_INTERRUPTED]


def test_a_row_left_running_under_a_cancelled_run_ends_canceled(store) -> None:
    job_id = jobs.create_job(store, "https://jobs.example/c").job_id
    workflow_runs.record_workflow_started(
        store, workflow_id="prep-c", run_id="run-c", workflow_type="JobPreparationWorkflow",
        job_id=job_id,
    )  # fmt: skip
    stage_states.claim_stage(store, job_id, "enrich", "run-c")
    with store.write() as tx:  # recorded cancelled without settling it
        tx.append(
            WorkflowCanceled(workflow_id="prep-c", run_id="run-c"),
            key="workflow-closed:prep-c:run-c",
            job_id=job_id,
        )

    later = WallClock(datetime.now(UTC) + GRACE * 2)
    assert run_verdicts.settle_abandoned(store, clock=later) == 1
    row = _row(store, job_id)
    assert row["error_code"] == errors.CANCELED and row["retryable"] is False


def test_a_recovery_finish_settles_a_member_claimed_after_it_read_the_rows(store) -> None:
    job_id = jobs.create_job(store, "https://jobs.example/m").job_id
    claim = stage_states.claim_stage(store, job_id, "enrich", "run-first")
    error = errors.StageError(errors.ENRICH_TIMEOUT, "failed in a test", retryable=True)
    stage_states.fail_stage(store, job_id, "enrich", "run-first", claim.attempt, error)
    clock = WallClock(datetime.now(UTC) + LATER)
    cohort = recovery.reserve_cohort(store, stage_limit=3, stages=("enrich",), clock=clock)
    assert cohort is not None and recovery.bind_run(store, cohort.workflow_id, "run-r")
    stage_states.claim_stage(store, job_id, "enrich", "run-r", clock=clock)

    recovery.close_cohort(store, cohort.workflow_id, run=("run-r", "failed", "x"), clock=clock)

    row = _row(store, job_id)
    assert row["state"] == "failed" and row["error_code"] == errors.STAGE_INTERRUPTED
    assert row["retryable"] is True and row["auto_attempts"] == 1
