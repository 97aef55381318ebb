"""Fixes from the review of issue 13's change, each through the function a person's
command or the worker's heartbeat calls: a reconciled cancel stays a cancel, a stop-loss
refusal never makes a cancelled row retryable, and `retry` leaves a stage that an
execution works on now alone (a second one would ask the provider again)."""

from __future__ import annotations

import pytest

from jobctrl.app.jobs import retry_stage
from jobctrl.domain import errors
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.store import jobs, run_verdicts, stage_control, stage_states, workflow_runs
from jobctrl.store.store import Store


def _row(store: Store, job_id: str, stage: str = "enrich") -> dict:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage)


def _claimed(store: Store, name: str) -> tuple[str, str]:
    job_id = jobs.create_job(store, f"https://jobs.example/{name}").job_id
    run_id = f"run-{name}"
    workflow_runs.record_workflow_started(
        store,
        workflow_id=f"prep-{name}",
        run_id=run_id,
        workflow_type=WorkflowType.PREPARATION.value,
        job_id=job_id,
    )
    stage_states.claim_stage(store, job_id, "enrich", run_id)
    return job_id, run_id


def test_a_run_reconciled_as_cancelled_leaves_its_rows_cancelled_not_retryable(store) -> None:
    job_id, run_id = _claimed(store, "cancelled")
    changed = run_verdicts.reconcile(store, "prep-cancelled", run_id, WorkflowStatus.CANCELED.value)
    assert changed
    row = _row(store, job_id)
    assert (row["state"], row["error_code"], row["retryable"]) == ("failed", "canceled", False)


def test_a_run_reconciled_as_failed_leaves_its_rows_retryable(store) -> None:
    job_id, run_id = _claimed(store, "failed")
    run_verdicts.reconcile(
        store, "prep-failed", run_id, WorkflowStatus.FAILED.value, error_code="WORKFLOW_FAILED"
    )
    row = _row(store, job_id)
    assert (row["error_code"], row["retryable"]) == (errors.STAGE_INTERRUPTED, True)


def test_a_paused_lane_never_turns_a_cancelled_row_retryable(store) -> None:
    job_id = jobs.create_job(store, "https://jobs.example/paused").job_id
    stage_control.cancel_job(store, job_id, [])
    assert _row(store, job_id, "score")["error_code"] == errors.CANCELED
    refused = stage_control.refuse_paused(store, job_id, "score", "run-x", "provider_auth")
    assert refused is False
    row = _row(store, job_id, "score")
    assert (row["error_code"], row["retryable"]) == (errors.CANCELED, False)


async def test_retry_leaves_a_stage_an_execution_works_on_alone(home, store) -> None:
    job_id, _ = _claimed(store, "busy")  # Enrich running under its preparation
    with pytest.raises(errors.JobctrlError) as refused:
        await retry_stage(home, job_id)
    assert refused.value.code == errors.STAGE_BUSY
    assert _row(store, job_id)["state"] == "running"  # nothing reset


def test_a_paused_lane_refuses_the_retry_of_an_attempt_its_own_execution_lost(store) -> None:
    """Found by the fault suite under CI load: an attempt that timed out mid-call left its
    row running under its run; Temporal's next attempt of the same execution was not
    refused by the pause (the row was "running") and called the provider again."""
    job_id, run_id = _claimed(store, "lost-attempt")
    assert stage_control.refuse_paused(store, job_id, "enrich", run_id, "provider_auth")
    row = _row(store, job_id)
    assert (row["state"], row["error_code"], row["retryable"]) == (
        "failed",
        errors.AUTOMATION_PAUSED,
        True,
    )
    assert row["attempts"] == 1, "the refusal uses no attempt"


def test_a_paused_lane_leaves_a_row_another_execution_runs_alone(store) -> None:
    job_id, _run_id = _claimed(store, "other-run")
    assert not stage_control.refuse_paused(store, job_id, "enrich", "run-else", "provider_auth")
    assert _row(store, job_id)["state"] == "running"


def test_a_later_attempt_of_a_run_that_failed_a_stage_for_good_does_not_work_it_again(
    store,
) -> None:
    """Found by CI under load (the five-401 fault test): attempt 1 was timed out by
    Temporal while it was being answered 401; shielded, it finished and failed the row
    for good (`provider_auth`), but attempt 2 of the same run was already scheduled and
    claimed the row again — a request after the lane had paused."""
    job_id, run_id = _claimed(store, "failed-for-good")
    row = _row(store, job_id)
    auth = errors.StageError(errors.PROVIDER_AUTH, "the key was refused")
    stage_states.fail_stage(store, job_id, "enrich", run_id, row["attempts"], auth)

    with pytest.raises(errors.StageError) as again:
        stage_states.claim_stage(store, job_id, "enrich", run_id)

    assert again.value.code == errors.PROVIDER_AUTH and not again.value.retryable
    after = _row(store, job_id)
    assert (after["state"], after["attempts"]) == ("failed", 1), "not claimed again"
    # Another run (a person's retry, automatic recovery) may still claim it.
    assert stage_states.claim_stage(store, job_id, "enrich", "run-retry").attempt == 2
