"""Discovery runs refused at their first step (issue 34): a run the schedule started while
another run of the tenant still found jobs or prepared them ends with ``discovery_busy``
and finds nothing, so it never gets a ``discovery_runs`` row (the gate, the plan and the
ETA read those and must not see it). Its refusal is kept here, with the run it yielded to,
for the Runs page, `jobctrl runs` and ``GET /v1/runs``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from jobctrl.domain.clock import Clock
from jobctrl.domain.discovery import ExecutionRef
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.discovery import run_tenant
from jobctrl.store.store import Store

__all__ = ["recent_refusals", "record_refusal"]

DRF = schema.discovery_refusals


def record_refusal(
    store: Store,
    ref: ExecutionRef,
    code: str,
    yielded_to_run_id: str,
    *,
    clock: Clock | None = None,
) -> None:
    """Keep ``ref``'s refusal (once: a step run again keeps the first)."""
    with store.write(clock=clock) as tx:
        upsert(
            tx.conn,
            DRF,
            {
                "tenant_id": run_tenant(tx.conn, ref),
                "workflow_id": ref.workflow_id,
                "run_id": ref.run_id,
                "error_code": code,
                "yielded_to_run_id": yielded_to_run_id,
                "refused_at": tx.now,
            },
            keys=["tenant_id", "workflow_id", "run_id"],
        )


def recent_refusals(store: Store, limit: int = 20) -> list[dict[str, Any]]:
    """The newest ``limit`` refusals' rows, newest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(DRF)
            .where(tenancy.scoped(DRF, conn))
            .order_by(DRF.c.refused_at.desc())
            .limit(limit)
        ).mappings()
        return [dict(r) for r in rows]
