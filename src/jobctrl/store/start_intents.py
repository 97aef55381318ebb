"""Durable start intents: a preparation a command means to start, recorded in the same
transaction as its job, and marked started in the same transaction as its
``WorkflowStarted`` event. An intent left unstarted (the command failed after its commit)
is started by the worker's reconciler; nothing is lost between the two writes. Each
tenant's intents are its own."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update

from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.store import Store, WriteTx

SI = schema.start_intents


def intend(tx: WriteTx, workflow_id: str, job_id: str) -> None:
    """Record that ``workflow_id`` is to be started for ``job_id`` (once)."""
    upsert(
        tx.conn,
        SI,
        {
            "workflow_id": workflow_id,
            "job_id": job_id,
            "created_at": tx.now,
            "tenant_id": tx.tenant,
        },
        keys=["workflow_id"],
    )


def mark_started(tx: WriteTx, workflow_id: str, run_id: str) -> None:
    """The intent (if any) is fulfilled by this execution."""
    tx.conn.execute(
        update(SI)
        .where(
            SI.c.workflow_id == workflow_id,
            SI.c.started_at.is_(None),
            tenancy.scoped(SI, tx.conn),
        )
        .values(started_at=tx.now, run_id=run_id)
    )


def unstarted(store: Store, older_than: datetime, limit: int = 25) -> list[tuple[str, str]]:
    """(workflow id, job id) of intents recorded before ``older_than`` and not started,
    oldest first: a command still about to start one is given the time to do it."""
    with store.read() as conn:
        rows = conn.execute(
            select(SI.c.workflow_id, SI.c.job_id)
            .where(
                tenancy.scoped(SI, conn),  # ix_start_intents_open leads with it
                SI.c.started_at.is_(None),
                SI.c.created_at < older_than,
            )
            .order_by(SI.c.created_at)
            .limit(limit)
        ).all()
    return [(str(workflow_id), str(job_id)) for workflow_id, job_id in rows]


def unstarted_for(store: Store, job_id: str) -> str | None:
    """The workflow id of ``job_id``'s intent not started yet, if it has one."""
    with store.read() as conn:
        workflow_id = conn.execute(
            select(SI.c.workflow_id)
            .where(SI.c.job_id == job_id, SI.c.started_at.is_(None), tenancy.scoped(SI, conn))
            .order_by(SI.c.created_at)
            .limit(1)
        ).scalar()
    return None if workflow_id is None else str(workflow_id)
