"""Workflow executions the store started or saw: their lifecycle events and reads of
``workflow_run_projections``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from jobctrl.domain.clock import Clock
from jobctrl.domain.events import (
    WorkflowCanceled,
    WorkflowCompleted,
    WorkflowFailed,
    WorkflowStarted,
)
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.store import schema, start_intents
from jobctrl.store.store import Store, WriteTx

WR = schema.workflow_run_projections


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


def run_row(store: Store, workflow_id: str, run_id: str) -> dict[str, Any] | None:
    """One execution as ``workflow_run_projections`` has it (None: never recorded)."""
    with store.read() as conn:
        row = (
            conn.execute(select(WR).where(WR.c.workflow_id == workflow_id, WR.c.run_id == run_id))
            .mappings()
            .first()
        )
    return dict(row) if row else None


def latest_runs(store: Store, workflow_id: str, limit: int = 1) -> list[dict[str, Any]]:
    """The newest executions recorded under ``workflow_id``, newest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(WR)
            .where(WR.c.workflow_id == workflow_id)
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
            .where(WR.c.job_id == job_id, WR.c.workflow_type == WorkflowType.PREPARATION.value)
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
                )
            ).scalar_one()
        )
