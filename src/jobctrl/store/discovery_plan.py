"""A Discover execution's plan as the store records it: each member with its job, its
recorded preparation's status and its stage rows, read in a few queries (the rules that
turn them into a member's state are in domain/discovery.py)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from jobctrl.domain.discovery import ExecutionRef
from jobctrl.domain.executions import WorkflowType
from jobctrl.store import schema, tenancy
from jobctrl.store.discovery import DEJ, DR, run_tenant
from jobctrl.store.store import Store

J = schema.jobs
S = schema.job_stage_states
W = schema.workflow_run_projections
H = schema.job_hides


def plan_rows(
    store: Store, ref: ExecutionRef
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The run's row (None: it recorded no plan) and one row per member: ``job_id``,
    ``title``, ``company``, ``cohort``, ``work_plan_state``, ``existed_before``,
    ``availability``, ``hidden``, ``prep_status`` and ``prep_started_at`` (its recorded
    preparation's newest execution; None when none was seen) and ``stages`` (stage ->
    (state, code, retryable))."""
    with store.read() as conn:
        tenant = run_tenant(conn, ref)
        run = (
            conn.execute(
                select(DR).where(
                    DR.c.tenant_id == tenant,
                    DR.c.workflow_id == ref.workflow_id,
                    DR.c.run_id == ref.run_id,
                )
            )
            .mappings()
            .first()
        )
        if run is None:
            return None, []
        members = [
            dict(r)
            for r in conn.execute(
                select(
                    DEJ.c.job_id,
                    DEJ.c.cohort,
                    DEJ.c.work_plan_state,
                    DEJ.c.prep_workflow_id,
                    J.c.title,
                    J.c.company,
                    J.c.idempotency_key,
                    J.c.availability,
                    J.c.created_at,
                )
                .join(J, J.c.id == DEJ.c.job_id)
                .where(
                    DEJ.c.tenant_id == tenant,
                    tenancy.scoped(J, conn),
                    DEJ.c.discover_workflow_id == ref.workflow_id,
                    DEJ.c.discover_run_id == ref.run_id,
                )
                .order_by(DEJ.c.created_at, DEJ.c.job_id)
            ).mappings()
        ]
        job_ids = [m["job_id"] for m in members]
        preps: dict[str, tuple[str, Any]] = {}
        for wf, status, started in conn.execute(
            select(W.c.workflow_id, W.c.status, W.c.started_at)
            .where(
                tenancy.scoped(W, conn),
                W.c.workflow_type == WorkflowType.PREPARATION.value,
                W.c.job_id.in_(job_ids),
            )
            .order_by(W.c.started_at)
        ):
            preps[wf] = (status, started)  # the newest execution under the id wins
        stages: dict[str, dict[str, tuple[str, str | None, bool]]] = {}
        for job_id, stage, state, code, retryable in conn.execute(
            select(S.c.job_id, S.c.stage, S.c.state, S.c.error_code, S.c.retryable).where(
                tenancy.scoped(S, conn), S.c.job_id.in_(job_ids)
            )
        ):
            stages.setdefault(job_id, {})[stage] = (state, code, bool(retryable))
        hidden = set(
            conn.execute(
                select(H.c.job_id).where(tenancy.scoped(H, conn), H.c.job_id.in_(job_ids))
            ).scalars()
        )
    began = run["started_at"]
    for m in members:
        status, started = preps.get(m.pop("prep_workflow_id") or "", (None, None))
        m["prep_status"], m["prep_started_at"] = status, started
        m["existed_before"] = m.pop("created_at") < began
        m["hidden"] = m["job_id"] in hidden
        m["stages"] = stages.get(m["job_id"], {})
        m.pop("idempotency_key")
    return dict(run), members
