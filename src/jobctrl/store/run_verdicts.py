"""What the run reconciler records when Temporal's answer about an exact execution
differs from what the store believes (issue 13).

One transaction per verdict: ``WorkflowReconciled`` with the status the store had (so a
false verdict stays in the audit trail), and for a closed execution the events its own
finish would have written (same idempotency keys, so whichever comes first is kept): the
closing ``Workflow*`` event, ``STAGE_INTERRUPTED`` for stage rows it left ``running``, and
a discovery run's terminal status and ``DiscoveryRun*`` event.

On every beat besides (``settle_abandoned``): a stage row left ``running`` under a run the
store recorded closed a while ago (an attempt that claimed it after that run's finish) is
settled the same way. Every statement keeps to the store's tenant: a verdict on another
tenant's execution finds nothing open and writes nothing.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from jobctrl.domain.clock import Clock, utcnow
from jobctrl.domain.discovery import ExecutionRef, RunStatus, StepState, total_counts
from jobctrl.domain.errors import CANCELED, OWNERSHIP_LOST, STAGE_INTERRUPTED, StageError
from jobctrl.domain.events import (
    DiscoveryRunCompleted,
    DiscoveryRunFailed,
    DomainEvent,
    WorkflowCanceled,
    WorkflowCompleted,
    WorkflowFailed,
    WorkflowReconciled,
)
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.domain.recovery import RECOVERABLE_STAGES
from jobctrl.domain.stages import StageState
from jobctrl.store import closed_runs, discovery, schema, stage_control, stage_states, tenancy
from jobctrl.store.store import Store, WriteTx

WR = schema.workflow_run_projections
DR = schema.discovery_runs
S = schema.job_stage_states
OPEN = (WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value)
CLOSED = (
    WorkflowStatus.COMPLETED.value,
    WorkflowStatus.FAILED.value,
    WorkflowStatus.CANCELED.value,
)
# Executions whose stage rows carry their run id as owner: settled when they end unfinished.
STAGE_OWNERS = (WorkflowType.PREPARATION.value, WorkflowType.RECOVERY.value)
# A row left running under a run closed this long is abandoned (a finish in flight, or a
# late attempt's result, has had its chance).
ABANDONED_GRACE_SECONDS = 60.0


def reconcile(
    store: Store,
    workflow_id: str,
    run_id: str,
    verdict: str,
    *,
    error_code: str | None = None,
    outcome: str | None = None,
    clock: Clock | None = None,
) -> bool:
    """Record what Temporal reports of an execution the store believed open, in one
    transaction: ``WorkflowReconciled`` (with the status the store had, so a false verdict
    stays in the log) and, for a closed one, the closing event its own finish would have
    written; stage rows it still held ``running`` fail as ``STAGE_INTERRUPTED``
    (retryable); a discovery run gets its terminal status and event. ``verdict`` is a
    ``WorkflowStatus`` value. False when the store already agrees (nothing written)."""
    with store.write(clock=clock) as tx:
        row = (
            tx.conn.execute(
                select(WR.c.status, WR.c.workflow_type, WR.c.job_id).where(
                    WR.c.workflow_id == workflow_id,
                    WR.c.run_id == run_id,
                    tenancy.scoped(WR, tx.conn),
                )
            )
            .mappings()
            .first()
        )
        found = tx.conn.execute(
            select(DR.c.status).where(
                DR.c.workflow_id == workflow_id,
                DR.c.run_id == run_id,
                tenancy.scoped(DR, tx.conn),
            )
        ).scalar()
        statuses = [s for s in (row["status"] if row else None, found) if s in OPEN]
        if all(s == verdict for s in statuses):  # none open, or all agree already
            return False
        previous = str(next(s for s in statuses if s != verdict))
        job_id = row["job_id"] if row else None
        tx.append(
            WorkflowReconciled(
                workflow_id=workflow_id,
                run_id=run_id,
                verdict=verdict,
                previous=previous,
                outcome=outcome,
                error_code=error_code,
            ),
            key=f"workflow-reconciled:{workflow_id}:{run_id}:{previous}:{verdict}:{tx.now}",
            job_id=job_id,
        )
        if found is not None:
            reconcile_discovery(tx, workflow_id, run_id, verdict, error_code)
        if verdict in CLOSED:
            _close(tx, workflow_id, run_id, verdict, job_id, outcome, error_code)
            if row and row["workflow_type"] in STAGE_OWNERS:  # a cancel stays a cancel
                settle_interrupted(tx, run_id, canceled=verdict == WorkflowStatus.CANCELED)
        return True


def _close(
    tx: WriteTx,
    workflow_id: str,
    run_id: str,
    verdict: str,
    job_id: str | None,
    outcome: str | None,
    error_code: str | None,
) -> None:
    event: DomainEvent
    if verdict == WorkflowStatus.CANCELED:
        event = WorkflowCanceled(workflow_id=workflow_id, run_id=run_id)
    elif verdict == WorkflowStatus.FAILED:
        event = WorkflowFailed(workflow_id=workflow_id, run_id=run_id, error_code=error_code or "")
    else:
        event = WorkflowCompleted(workflow_id=workflow_id, run_id=run_id, outcome=outcome or "")
    # The key its own finish uses: whichever of the two comes first is the one kept.
    tx.append(event, key=f"workflow-closed:{workflow_id}:{run_id}", job_id=job_id)


def settle_interrupted(
    tx: WriteTx, run_id: str, *, job_id: str | None = None, canceled: bool = False
) -> int:
    """Fail every stage row still ``running`` under ``run_id`` (whose execution closed
    without settling it) with ``STAGE_INTERRUPTED``, retryable: the attempt counts, and
    automatic recovery may try the stage again. ``job_id``: only that job's preparation
    stages (read by its key); ``canceled``: the run ended on a cancel, so they fail as
    ``canceled``, not retryable, as its finish does. Returns how many."""
    code = CANCELED if canceled else STAGE_INTERRUPTED
    scope = (S.c.job_id == job_id, S.c.stage.in_(RECOVERABLE_STAGES)) if job_id else ()
    rows = tx.conn.execute(
        select(S.c.job_id, S.c.stage, S.c.attempts).where(
            *scope,
            S.c.owner_run_id == run_id,
            S.c.state == StageState.RUNNING.value,
            tenancy.keyed(S, tx.tenant) if job_id else tenancy.scoped(S, tx.conn),
        )
    ).all()
    for job, stage, attempt in rows:
        stage_control.fail_row_in(
            tx,
            job,
            stage,
            run_id=run_id,
            attempt=attempt,
            code=code,
            message=f"the {stage} attempt stopped without a result",
            retryable=not canceled,
            key=f"stage-failed:{job}:{stage}:{run_id}:{attempt}",
            where=(
                S.c.owner_run_id == run_id,
                S.c.attempts == attempt,
                S.c.state == StageState.RUNNING.value,
            ),
        )
    return len(rows)


def settle_abandoned(
    store: Store, *, grace: float = ABANDONED_GRACE_SECONDS, clock: Clock | None = None
) -> int:
    """Fail, as ``STAGE_INTERRUPTED`` (retryable, with its ``StageFailed``; ``canceled``
    under a cancelled run), every preparation stage row still ``running`` under a run the
    store has recorded closed for more than ``grace`` seconds: an attempt that claimed it
    after its execution's finish settled the run's rows (it ran on in its thread after
    Temporal timed it out) when no finish settled it since. Each is fenced on its owner
    and attempt (a result written meanwhile wins). Returns how many. Read first: a beat
    with none writes nothing."""
    cutoff = (clock or utcnow)() - timedelta(seconds=grace)
    with store.read() as conn:
        running = conn.execute(
            select(S.c.job_id, S.c.stage, S.c.owner_run_id, S.c.attempts).where(
                S.c.stage.in_(RECOVERABLE_STAGES),
                S.c.state == StageState.RUNNING.value,
                tenancy.scoped(S, conn),
            )
        ).all()
        abandoned = [
            (str(job_id), str(stage), str(run_id), int(attempt), ended.status)
            for job_id, stage, run_id, attempt in running
            if run_id
            and (ended := closed_runs.closed_at(conn, job_id, run_id)) is not None
            and ended.at <= cutoff
        ]
    settled = 0
    for job_id, stage, run_id, attempt, status in abandoned:
        message = f"the {stage} attempt stopped without a result"
        error = (
            StageError(CANCELED, message)  # as the cancelled run's own finish does
            if status == WorkflowStatus.CANCELED
            else StageError(STAGE_INTERRUPTED, message, retryable=True)
        )
        try:
            stage_states.fail_stage(store, job_id, stage, run_id, attempt, error, clock=clock)
        except StageError as lost:
            if lost.code != OWNERSHIP_LOST:
                raise
            continue  # finished or taken over meanwhile
        settled += 1
    return settled


def reconcile_discovery(
    tx: WriteTx, workflow_id: str, run_id: str, verdict: str, error_code: str | None
) -> None:
    """The run reconciler's verdict on a discovery run whose row is still open (its own
    finish never ran): closed with its real outcome and the terminal event the finish
    would have written (``DiscoveryRunFailed`` for a failure), marked provisionally
    ``reconciled_not_found``, or restored to ``running`` when its history is found again.
    Counts and progress stay as the run left them."""
    was = [RunStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value]
    key = (
        DR.c.workflow_id == workflow_id,
        DR.c.run_id == run_id,
        DR.c.status.in_(was),
        tenancy.scoped(DR, tx.conn),
    )
    if verdict in was:
        tx.conn.execute(update(DR).where(*key).values(status=verdict))
        return
    rows = tx.conn.execute(select(DR.c.tenant_id, DR.c.counts).where(*key)).all()
    tx.conn.execute(
        update(DR).where(*key).values(status=verdict, error_code=error_code, finished_at=tx.now)
    )
    for tenant_id, counts in rows:
        ref = {"tenant_id": tenant_id, "workflow_id": workflow_id, "run_id": run_id}
        event: DomainEvent
        if verdict == RunStatus.FAILED:
            event = DiscoveryRunFailed(**ref, error_code=error_code or "")
        else:
            totals = total_counts(counts or {})
            event = DiscoveryRunCompleted(**ref, status=verdict, counts=totals)
        tx.append(event, key=f"discovery-finished:{workflow_id}:{run_id}")
        # Its steps left queued or running end with it (a terminal run holds no live step).
        ps = schema.pipeline_step_projections
        live = tx.conn.execute(
            select(ps.c.step_kind, ps.c.item_key, ps.c.attempt).where(
                ps.c.workflow_id == workflow_id,
                ps.c.run_id == run_id,
                ps.c.state.in_([StepState.QUEUED.value, StepState.RUNNING.value]),
                tenancy.scoped(ps, tx.conn),
            )
        ).all()
        ref_ = ExecutionRef(tenant_id, workflow_id, run_id)
        for kind, item, attempt in live:
            discovery.record_step(
                tx, ref_, kind, item, attempt, error=error_code or STAGE_INTERRUPTED
            )
