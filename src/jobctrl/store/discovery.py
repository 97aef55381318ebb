"""Discovery runs in the store: the ``discovery_runs`` aggregate, the jobs each execution
saw (``discovery_execution_jobs``), the listings sources gave (``source_observations``)
and the run's pipeline-step events.

A run's progress counts one step per source family plus the terminal enrichment pass and
preparation fan-out, and only ever moves forward.

Every statement keeps to the store's tenant; an ``ExecutionRef`` of another tenant is a
bug (``tenancy.TenancyError``), never a way into its rows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, and_, func, select, update

from jobctrl.domain.clock import Clock
from jobctrl.domain.discovery import (
    Cohort,
    DiscoverFinish,
    ExecutionRef,
    PlanState,
    RunStatus,
    StepKind,
)
from jobctrl.domain.events import (
    DiscoveryRunCompleted,
    DiscoveryRunFailed,
    DiscoveryRunStarted,
    DomainEvent,
    PipelineStepCompleted,
    PipelineStepFailed,
    PipelineStepStarted,
    WorkflowCanceled,
    WorkflowCompleted,
    WorkflowFailed,
)
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.store import Store, WriteTx

DR = schema.discovery_runs
DEJ = schema.discovery_execution_jobs
SO = schema.source_observations


def run_tenant(conn: Connection, ref: ExecutionRef) -> str:
    """The connection's tenant, which must be ``ref``'s."""
    tenant = tenancy.tenant_of(conn)
    if ref.tenant_id != tenant:
        raise tenancy.TenancyError(f"run {ref.workflow_id} is {ref.tenant_id}'s, not {tenant}'s")
    return tenant


def _run_key(conn: Connection, ref: ExecutionRef) -> tuple[ColumnElement[bool], ...]:
    return (
        DR.c.tenant_id == run_tenant(conn, ref),
        DR.c.workflow_id == ref.workflow_id,
        DR.c.run_id == ref.run_id,
    )


def _member_key(
    conn: Connection, ref: ExecutionRef, job_id: str
) -> tuple[ColumnElement[bool], ...]:
    return (
        DEJ.c.tenant_id == run_tenant(conn, ref),
        DEJ.c.discover_workflow_id == ref.workflow_id,
        DEJ.c.discover_run_id == ref.run_id,
        DEJ.c.job_id == job_id,
    )


def record_step(
    tx: WriteTx,
    ref: ExecutionRef,
    kind: str,
    item: str,
    attempt: int,
    *,
    counts: dict[str, int] | None = None,
    error: str | None = None,
) -> None:
    """A step's event: started, or completed with its counts, or failed with its code."""
    common = {
        "workflow_id": ref.workflow_id,
        "run_id": ref.run_id,
        "step_kind": kind,
        "item_key": item,
        "attempt": attempt,
    }
    base = f"step:{ref.workflow_id}:{ref.run_id}:{kind}:{item}:{attempt}"
    if error is not None:
        tx.append(PipelineStepFailed(**common, error_code=error), key=f"{base}:failed")
    elif counts is not None:
        tx.append(PipelineStepCompleted(**common, counts=counts), key=f"{base}:completed")
    else:
        tx.append(PipelineStepStarted(**common), key=f"{base}:started")


def advance(tx: WriteTx, ref: ExecutionRef, done: int) -> None:
    """Move progress forward to ``done``; never back."""
    tx.conn.execute(
        update(DR)
        .where(*_run_key(tx.conn, ref), DR.c.progress_done < done)
        .values(progress_done=done)
    )


def set_counts(tx: WriteTx, ref: ExecutionRef, item: str, counts: dict[str, int]) -> None:
    """Record one step's counts; a retried step replaces its earlier attempt's counts."""
    row = dict(tx.conn.execute(select(DR.c.counts).where(*_run_key(tx.conn, ref))).scalar() or {})
    row[item] = counts
    tx.conn.execute(update(DR).where(*_run_key(tx.conn, ref)).values(counts=row))


def open_run(
    store: Store,
    ref: ExecutionRef,
    families: list[str],
    total: int,
    attempt: int,
    sources: int,
    *,
    clock: Clock | None = None,
) -> None:
    """The run's aggregate row and its start event, with the planning step's result."""
    with store.write(clock=clock) as tx:
        upsert(
            tx.conn,
            DR,
            {
                "tenant_id": run_tenant(tx.conn, ref),
                "workflow_id": ref.workflow_id,
                "run_id": ref.run_id,
                "status": RunStatus.RUNNING.value,
                "progress_done": 0,
                "progress_total": total,
                "families": families,
                "counts": {},
                "started_at": tx.now,
            },
            keys=["tenant_id", "workflow_id", "run_id"],
        )
        tx.append(
            DiscoveryRunStarted(
                tenant_id=ref.tenant_id,
                workflow_id=ref.workflow_id,
                run_id=ref.run_id,
                families=families,
                progress_total=total,
            ),
            key=f"discovery-started:{ref.workflow_id}:{ref.run_id}",
        )
        record_step(
            tx,
            ref,
            StepKind.SOURCE_PLANNING,
            "plan",
            attempt,
            counts={"families": len(families), "sources": sources},
        )


def step_started(
    store: Store,
    ref: ExecutionRef,
    kind: str,
    item: str,
    attempt: int,
    *,
    clock: Clock | None = None,
) -> None:
    with store.write(clock=clock) as tx:
        record_step(tx, ref, kind, item, attempt)


def family_finished(
    store: Store,
    ref: ExecutionRef,
    kind: str,
    done: int,
    attempt: int,
    counts: dict[str, int],
    error_code: str | None,
    *,
    clock: Clock | None = None,
) -> None:
    """A family step's result: failed with the first source's code (progress stays), or
    completed (progress moves to ``done``); its counts are kept either way."""
    with store.write(clock=clock) as tx:
        if error_code is not None:
            record_step(tx, ref, StepKind.SOURCE_FAMILY, kind, attempt, error=error_code)
        else:
            record_step(tx, ref, StepKind.SOURCE_FAMILY, kind, attempt, counts=counts)
            advance(tx, ref, done)
        set_counts(tx, ref, kind, counts)


def terminal_step(
    store: Store,
    ref: ExecutionRef,
    kind: str,
    done: int,
    attempt: int,
    counts: dict[str, int],
    *,
    clock: Clock | None = None,
) -> None:
    with store.write(clock=clock) as tx:
        record_step(tx, ref, kind, kind, attempt, counts=counts)
        advance(tx, ref, done)
        set_counts(tx, ref, kind, counts)


def finish_run(store: Store, fin: DiscoverFinish, *, clock: Clock | None = None) -> None:
    """How the run ended: the aggregate row, its terminal event (``DiscoveryRunFailed``
    for a failed run, else ``DiscoveryRunCompleted`` with the status: completed, partial
    or canceled), and the closing event of its execution (a partial run fails in
    Temporal with its source's code)."""
    ref = fin.ref
    with store.write(clock=clock) as tx:
        tx.conn.execute(
            update(DR)
            .where(*_run_key(tx.conn, ref))
            .values(status=fin.status, error_code=fin.error_code, finished_at=tx.now)
        )
        run = {"tenant_id": ref.tenant_id, "workflow_id": ref.workflow_id, "run_id": ref.run_id}
        ended: DomainEvent
        if fin.status == RunStatus.FAILED:
            ended = DiscoveryRunFailed(**run, error_code=fin.error_code or "")
        else:
            ended = DiscoveryRunCompleted(
                **run, status=fin.status, error_code=fin.error_code, counts=fin.counts
            )
        tx.append(ended, key=f"discovery-finished:{ref.workflow_id}:{ref.run_id}")
        closed: DomainEvent
        if fin.status == RunStatus.CANCELED:
            closed = WorkflowCanceled(workflow_id=ref.workflow_id, run_id=ref.run_id)
        elif fin.error_code:
            closed = WorkflowFailed(
                workflow_id=ref.workflow_id, run_id=ref.run_id, error_code=fin.error_code
            )
        else:
            closed = WorkflowCompleted(
                workflow_id=ref.workflow_id, run_id=ref.run_id, outcome=fin.status
            )
        tx.append(closed, key=f"workflow-closed:{ref.workflow_id}:{ref.run_id}")


# -- members and listings ------------------------------------------------------------------


def link_member(tx: WriteTx, ref: ExecutionRef, job_id: str, cohort: Cohort) -> None:
    """Link a job to the execution; observed_this_run promotes a backlog row, never back."""
    upsert(
        tx.conn,
        DEJ,
        {
            "tenant_id": run_tenant(tx.conn, ref),
            "discover_workflow_id": ref.workflow_id,
            "discover_run_id": ref.run_id,
            "job_id": job_id,
            "cohort": cohort.value,
            "work_plan_state": PlanState.PENDING.value,
            "created_at": tx.now,
            "updated_at": tx.now,
        },
        keys=["tenant_id", "discover_workflow_id", "discover_run_id", "job_id"],
    )
    if cohort == Cohort.OBSERVED:
        tx.conn.execute(
            update(DEJ)
            .where(*_member_key(tx.conn, ref, job_id), DEJ.c.cohort == Cohort.BACKLOG.value)
            .values(cohort=Cohort.OBSERVED.value, updated_at=tx.now)
        )


def pending_members(store: Store, ref: ExecutionRef) -> list[tuple[str, str, str | None]]:
    """(job id, idempotency key, its preparation workflow id if one was started) of each
    member still waiting for a preparation: one query for the whole cohort."""
    wr, j = schema.workflow_run_projections, schema.jobs
    with store.read() as conn:
        existing = (
            select(wr.c.workflow_id)
            .where(
                wr.c.job_id == DEJ.c.job_id,
                wr.c.workflow_type == WorkflowType.PREPARATION.value,
                tenancy.scoped(wr, conn),
            )
            .limit(1)
            .scalar_subquery()
        )
        rows = conn.execute(
            select(DEJ.c.job_id, j.c.idempotency_key, existing)
            .join(j, j.c.id == DEJ.c.job_id)
            .where(
                DEJ.c.tenant_id == run_tenant(conn, ref),
                tenancy.scoped(j, conn),
                DEJ.c.discover_workflow_id == ref.workflow_id,
                DEJ.c.discover_run_id == ref.run_id,
                DEJ.c.work_plan_state == PlanState.PENDING.value,
            )
        ).all()
    return [(str(job_id), str(key), wf) for job_id, key, wf in rows]


def mark_planned(tx: WriteTx, ref: ExecutionRef, job_id: str, workflow_id: str) -> None:
    """The member's preparation is started (as ``workflow_id``)."""
    tx.conn.execute(
        update(DEJ)
        .where(*_member_key(tx.conn, ref, job_id))
        .values(
            work_plan_state=PlanState.PLANNED.value, prep_workflow_id=workflow_id, updated_at=tx.now
        )
    )


def member_count(store: Store, ref: ExecutionRef) -> int:
    with store.read() as conn:
        return int(
            conn.execute(
                select(func.count()).where(
                    DEJ.c.tenant_id == run_tenant(conn, ref),
                    DEJ.c.discover_workflow_id == ref.workflow_id,
                    DEJ.c.discover_run_id == ref.run_id,
                )
            ).scalar_one()
        )


def jobs_created_by(store: Store, ref: ExecutionRef) -> int:
    """Members of this run whose job did not exist before the run started."""
    j = schema.jobs
    with store.read() as conn:
        started = conn.execute(select(DR.c.started_at).where(*_run_key(conn, ref))).scalar()
        return int(
            conn.execute(
                select(func.count())
                .select_from(DEJ.join(j, j.c.id == DEJ.c.job_id))
                .where(
                    DEJ.c.tenant_id == run_tenant(conn, ref),
                    DEJ.c.discover_workflow_id == ref.workflow_id,
                    DEJ.c.discover_run_id == ref.run_id,
                    tenancy.scoped(j, conn),
                    j.c.created_at >= started,
                )
            ).scalar_one()
        )


def open_preparations(store: Store, ref: ExecutionRef) -> list[tuple[str, str, str]]:
    """(job id, workflow id, run id) of each preparation this execution started that is
    still open: a member's recorded preparation whose execution began once the run had
    (one it merely joined, started earlier by the person or another run, is not its)."""
    wr = schema.workflow_run_projections
    with store.read() as conn:
        began = select(DR.c.started_at).where(*_run_key(conn, ref)).scalar_subquery()
        rows = conn.execute(
            select(DEJ.c.job_id, wr.c.workflow_id, wr.c.run_id)
            .join(
                wr,
                and_(wr.c.workflow_id == DEJ.c.prep_workflow_id, wr.c.tenant_id == DEJ.c.tenant_id),
            )
            .where(
                DEJ.c.tenant_id == run_tenant(conn, ref),
                DEJ.c.discover_workflow_id == ref.workflow_id,
                DEJ.c.discover_run_id == ref.run_id,
                tenancy.scoped(wr, conn),
                wr.c.workflow_type == WorkflowType.PREPARATION.value,
                wr.c.status == WorkflowStatus.RUNNING.value,
                wr.c.started_at >= began,
            )
            .order_by(DEJ.c.job_id)
        ).all()
    return [(str(job_id), str(wf), str(run)) for job_id, wf, run in rows]


def progress_total(store: Store, ref: ExecutionRef) -> int:
    with store.read() as conn:
        return int(
            conn.execute(select(DR.c.progress_total).where(*_run_key(conn, ref))).scalar() or 0
        )


def recent_runs(store: Store, limit: int = 20) -> list[dict[str, Any]]:
    """The newest ``limit`` discovery runs' rows, newest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(DR).where(tenancy.scoped(DR, conn)).order_by(DR.c.started_at.desc()).limit(limit)
        ).mappings()
        return [dict(r) for r in rows]
