"""The apply workflow as the person sees and steers it: the standing apply loop
(``apply-auto-local``, "Standing apply loop" on the Runs page, ``/v1/apply/loop``) and the
one-shot apply of one job in the worker (``POST /v1/jobs/{id}/apply``).

The loop's desired state is the ``auto_apply`` setting, which the worker's heartbeat
reconciles: stopping it turns the setting off (so it is not started again) and asks the
running loop to cancel at once when Temporal answers; starting it turns the setting on.
Neither the loop nor a one-shot apply ever sends or submits: they prepare applications
that wait for the person.
"""

from __future__ import annotations

from datetime import datetime

from jobctrl.app import runtime
from jobctrl.app.models import Timestamp, View
from jobctrl.domain import ids
from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.domain.errors import BUDGET_EXCEEDED, UnavailableError
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.home import Home
from jobctrl.stages.material_files import material_files
from jobctrl.store import apply_claims, jobs, workflow_runs
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.workflows import starts

__all__ = [
    "LOOP_LABEL",
    "ApplyLoopStatus",
    "ApplyLoopSwitched",
    "ApplyRun",
    "apply_in_worker",
    "apply_loop_status",
    "set_apply_loop",
]

LOOP_LABEL = "Standing apply loop"


class ApplyLoopStatus(View):
    """The standing apply loop: whether ``auto_apply`` wants it, its latest run (status,
    error code, when; ``absent`` if none), whether a spent budget halts it today, what its
    claims came to, the approved jobs it would take now and those it passes over (a
    count per code)."""

    workflow_id: str
    label: str
    enabled: bool
    status: str
    run_id: str | None
    outcome: str | None
    error_code: str | None
    started_at: Timestamp | None
    closed_at: Timestamp | None
    halted: bool
    prepared: int
    failed: int
    in_progress: int
    queued: int
    passed_over: dict[str, int]
    concurrency: int
    approval_required: bool


class ApplyLoopSwitched(ApplyLoopStatus):
    """The loop's status after turning it on or off: ``cancel_requested`` when the running
    loop was asked to cancel now."""

    cancel_requested: bool


class ApplyRun(View):
    """One job's apply in the worker: its workflow, run, and how it stands (``starting``
    before the run is recorded)."""

    job_id: str
    workflow_id: str
    run_id: str
    status: str
    outcome: str | None
    error_code: str | None


def apply_loop_status(home: Home, *, now: datetime | None = None) -> ApplyLoopStatus:
    """The standing apply loop: whether ``auto_apply`` wants it, its latest run as
    recorded (status, error code, when), whether a spent budget halts it today, what it
    has prepared, and the approved jobs it passes over now, by code."""
    store = Store.open(home)
    now = now or utcnow()
    values = Settings(store).all()
    loop_id = ids.apply_loop_id(store.tenant)
    latest = next(iter(workflow_runs.latest_runs(store, loop_id, 1)), None)
    status = latest["status"] if latest else "absent"
    closed_at = latest["closed_at"] if latest else None
    halted = bool(
        latest
        and status == WorkflowStatus.FAILED
        and latest["error_code"] == BUDGET_EXCEEDED
        and closed_at is not None
        and as_utc(closed_at).date() == as_utc(now).date()
    )
    claims = apply_claims.state_counts(store, loop_id)
    waiting = apply_claims.candidates(
        store,
        now,
        min_fit_score=int(values["min_fit_score"]),
        approval_required=bool(values["apply_approval_required"]),
        limit=1000,
    )
    started_at = latest["started_at"] if latest else None
    return ApplyLoopStatus(
        workflow_id=loop_id,
        label=LOOP_LABEL,
        enabled=bool(values["auto_apply"]),
        status=status,
        run_id=latest["run_id"] if latest else None,
        outcome=latest["outcome"] if latest else None,
        error_code=latest["error_code"] if latest else None,
        started_at=as_utc(started_at) if started_at else None,
        closed_at=as_utc(closed_at) if closed_at else None,
        halted=halted,
        prepared=claims.get("ready", 0),
        failed=claims.get("failed", 0),
        in_progress=claims.get("claimed", 0),
        queued=len(waiting.job_ids),
        passed_over=waiting.parked,
        concurrency=int(values["apply_concurrency"]),
        approval_required=bool(values["apply_approval_required"]),
    )


async def set_apply_loop(home: Home, *, enabled: bool) -> ApplyLoopSwitched:
    """Turn the standing loop on or off (``auto_apply``). Off also asks the running loop
    to cancel now when Temporal answers (else the worker's next heartbeat does); on is
    started by the worker's next heartbeat. The loop's status, with ``cancelRequested``."""
    store = Store.open(home)
    Settings(store).set_value("auto_apply", enabled)
    cancelled = False
    if not enabled:
        try:
            client = await runtime.client_for(home)
            loop_id = ids.apply_loop_id(store.tenant)
            cancelled = await starts.cancel_running(client, loop_id) is not None
        except UnavailableError:
            pass  # the setting is what counts: the worker stops it when it runs
    status = apply_loop_status(home)
    return ApplyLoopSwitched(**status.model_dump(by_alias=False), cancel_requested=cancelled)


async def apply_in_worker(
    home: Home, ref: str, *, wait: bool = False, timeout: float = 300.0
) -> ApplyRun:
    """Prepare one job's application through ApplyWorkflow (``apply-{jobId}-<12 hex>``,
    once per set of approved PDFs): claimed with the same rules as the standing loop,
    prepared, never sent. With ``wait``, until the run has ended."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    occasion = ",".join(f.sha256 for f in material_files(store, job_id, approved_only=True))
    client = await runtime.client_for(home)
    started = await starts.start_apply(client, store, job_id, occasion or "unapproved")
    if wait:
        await runtime.ensure_worker_polls(client, "the apply")
        await starts.wait_for_result(
            client, started, timeout, still_running=f"the apply of job {job_id} still runs"
        )
    run = workflow_runs.run_row(store, started.workflow_id, started.run_id)
    return ApplyRun(
        job_id=job_id,
        workflow_id=started.workflow_id,
        run_id=started.run_id,
        status=run["status"] if run else "starting",
        outcome=run["outcome"] if run else None,
        error_code=run["error_code"] if run else None,
    )
