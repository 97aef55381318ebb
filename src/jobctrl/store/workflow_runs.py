"""Workflow executions the store started or saw: their lifecycle events and reads of
``workflow_run_projections`` (``open_runs``: what the run reconciler checks against
Temporal, whose verdicts ``store.run_verdicts`` records), adoption of an execution of ours
the store never recorded, and the repair of missing projection rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, String, func, literal, select, union_all

from jobctrl.domain.clock import Clock
from jobctrl.domain.events import (
    WorkflowCanceled,
    WorkflowCompleted,
    WorkflowFailed,
    WorkflowStarted,
    parse_event,
)
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.store import projections, run_verdicts, schema, start_intents, tenancy
from jobctrl.store.store import Store, WriteTx

WR = schema.workflow_run_projections
S = schema.job_stage_states
OPEN = (WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value)


def record_started(
    tx: WriteTx, *, workflow_id: str, run_id: str, workflow_type: str, job_id: str | None
) -> None:
    """Note a started (or joined) execution; the same execution twice is one event."""
    tx.append(
        WorkflowStarted(
            workflow_id=workflow_id, run_id=run_id, workflow_type=workflow_type, job_id=job_id
        ),
        key=f"workflow-started:{workflow_id}:{run_id}",
        job_id=job_id,
    )
    start_intents.mark_started(tx, workflow_id, run_id)


def record_workflow_started(
    store: Store,
    *,
    workflow_id: str,
    run_id: str,
    workflow_type: str,
    job_id: str | None,
    clock: Clock | None = None,
) -> None:
    with store.write(clock=clock) as tx:
        record_started(
            tx, workflow_id=workflow_id, run_id=run_id, workflow_type=workflow_type, job_id=job_id
        )


def record_workflow_closed(
    store: Store,
    *,
    workflow_id: str,
    run_id: str,
    job_id: str | None,
    outcome: str,
    error_code: str | None = None,
    clock: Clock | None = None,
) -> None:
    event = (
        WorkflowFailed(workflow_id=workflow_id, run_id=run_id, error_code=error_code)
        if error_code
        else WorkflowCompleted(workflow_id=workflow_id, run_id=run_id, outcome=outcome)
    )
    with store.write(clock=clock) as tx:
        tx.append(event, key=f"workflow-closed:{workflow_id}:{run_id}", job_id=job_id)
        if job_id:  # a late attempt's claim committed after its finish read the rows
            run_verdicts.settle_interrupted(tx, run_id, job_id=job_id)


def record_workflow_canceled(
    store: Store,
    *,
    workflow_id: str,
    run_id: str,
    job_id: str | None,
    clock: Clock | None = None,
) -> None:
    """The execution ended on a cancel (cooperatively: what it finished stays)."""
    with store.write(clock=clock) as tx:
        tx.append(
            WorkflowCanceled(workflow_id=workflow_id, run_id=run_id),
            key=f"workflow-closed:{workflow_id}:{run_id}",
            job_id=job_id,
        )
        if job_id:
            run_verdicts.settle_interrupted(tx, run_id, job_id=job_id, canceled=True)


def run_row(store: Store, workflow_id: str, run_id: str) -> dict[str, Any] | None:
    """One execution as ``workflow_run_projections`` has it (None: never recorded)."""
    with store.read() as conn:
        row = (
            conn.execute(
                select(WR).where(
                    WR.c.workflow_id == workflow_id,
                    WR.c.run_id == run_id,
                    tenancy.scoped(WR, conn),
                )
            )
            .mappings()
            .first()
        )
    return dict(row) if row else None


def latest_runs(store: Store, workflow_id: str, limit: int = 1) -> list[dict[str, Any]]:
    """The newest executions recorded under ``workflow_id``, newest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(WR)
            .where(WR.c.workflow_id == workflow_id, tenancy.scoped(WR, conn))
            .order_by(WR.c.started_at.desc(), WR.c.last_seq.desc())
            .limit(limit)
        ).mappings()
        return [dict(r) for r in rows]


def preparation_ids(store: Store, job_id: str) -> list[str]:
    """The workflow ids the job's preparations were started under (whether they still
    run is Temporal's to say: ``workflows.starts.any_running``)."""
    with store.read() as conn:
        rows = conn.execute(
            select(WR.c.workflow_id)
            .where(
                WR.c.job_id == job_id,
                WR.c.workflow_type == WorkflowType.PREPARATION.value,
                tenancy.scoped(WR, conn),
            )
            .distinct()
        ).all()
    return sorted(str(workflow_id) for (workflow_id,) in rows)


def running_count(store: Store, workflow_type: str) -> int:
    """How many executions of ``workflow_type`` the store believes are running."""
    with store.read() as conn:
        return int(
            conn.execute(
                select(func.count()).where(
                    WR.c.workflow_type == workflow_type,
                    WR.c.status == WorkflowStatus.RUNNING.value,
                    tenancy.scoped(WR, conn),
                )
            ).scalar_one()
        )


def open_runs(store: Store) -> list[dict[str, Any]]:
    """Every execution ``workflow_run_projections`` holds as open (``running``, or the
    provisional ``reconciled_not_found``), oldest first, as rows."""
    with store.read() as conn:
        rows = conn.execute(
            select(WR)
            .where(WR.c.status.in_(OPEN), tenancy.scoped(WR, conn))
            .order_by(WR.c.started_at)
        ).mappings()
        return [dict(r) for r in rows]


@dataclass(frozen=True)
class OpenExecution:
    """An execution the store believes open: in ``workflow_run_projections``, in
    ``discovery_runs``, or both (``status`` is the run row's, else the discovery row's)."""

    workflow_id: str
    run_id: str
    workflow_type: str
    status: str


def open_executions(store: Store) -> list[OpenExecution]:
    """What the reconciler checks against Temporal: open run rows and open discovery runs."""
    dr = schema.discovery_runs
    discovery = literal(WorkflowType.DISCOVERY.value, String)
    with store.read() as conn:  # one statement: the heartbeat asks it of each active tenant
        rows = conn.execute(
            union_all(
                select(
                    WR.c.workflow_id, WR.c.run_id, WR.c.workflow_type, WR.c.status, literal(0)
                ).where(WR.c.status.in_(OPEN), tenancy.scoped(WR, conn)),
                select(dr.c.workflow_id, dr.c.run_id, discovery, dr.c.status, literal(1)).where(
                    dr.c.status.in_(OPEN), tenancy.scoped(dr, conn)
                ),
            )
        ).all()
    out: dict[tuple[str, str], OpenExecution] = {}
    for wid, rid, kind, status, _ in sorted(rows, key=lambda r: r[4]):  # the run row first
        out.setdefault((wid, rid), OpenExecution(wid, rid, str(kind), str(status)))
    return list(out.values())


def adopt(
    store: Store, *, workflow_id: str, run_id: str, workflow_type: str, job_id: str | None
) -> bool:
    """Record an execution of ours that Temporal runs and the store never recorded (the
    discovery schedule's runs, a start whose record was lost) as started; True if new."""
    with store.write() as tx:
        known = tx.conn.execute(
            select(WR.c.status).where(
                WR.c.workflow_id == workflow_id,
                WR.c.run_id == run_id,
                tenancy.scoped(WR, tx.conn),
            )
        ).first()
        if known is not None:
            return False
        record_started(
            tx, workflow_id=workflow_id, run_id=run_id, workflow_type=workflow_type, job_id=job_id
        )
        return True


def repair_missing(store: Store) -> int:
    """Projection recovery: executions whose ``WorkflowStarted`` is in the log but whose
    ``workflow_run_projections`` row is missing get it back, folded again from their
    lifecycle events (the store's tenant's). Returns how many rows were rebuilt."""
    e = schema.job_events
    types = [cls.type for cls in projections.WORKFLOW_LIFECYCLE]
    with store.read() as conn:
        if not _missing(conn):
            return 0
    with store.write() as tx:
        missing = _missing(tx.conn)
        rows = tx.conn.execute(
            select(e.c.seq, e.c.type, e.c.payload, e.c.occurred_at)
            .where(e.c.type.in_(types), tenancy.scoped(e, tx.conn))
            .order_by(e.c.seq)
        ).all()
        for r in rows:
            if (r.payload.get("workflowId"), r.payload.get("runId")) in missing:
                item = projections.AppendedEvent(
                    r.seq, parse_event(r.type, r.payload), r.occurred_at, tx.tenant
                )
                projections.fold_workflow_run(tx.conn, item)
        return len(missing)


def _missing(conn: Connection) -> set[tuple[str, str]]:
    e = schema.job_events
    started = {
        (p.get("workflowId"), p.get("runId"))
        for (p,) in conn.execute(
            select(e.c.payload).where(e.c.type == WorkflowStarted.type, tenancy.scoped(e, conn))
        ).all()
    }
    if not started:
        return set()
    have = set(
        conn.execute(select(WR.c.workflow_id, WR.c.run_id).where(tenancy.scoped(WR, conn)))
        .tuples()
        .all()
    )
    return started - have
