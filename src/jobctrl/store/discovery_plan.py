"""A Discover execution's plan as the store records it: each member with its job, its
recorded preparation's status and its stage rows, read in a few queries (the rules that
turn them into a member's state are in domain/discovery.py); and the source families'
recent durations the source-family ETA prices the families still to read with."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from jobctrl.domain import eta as eta_rules
from jobctrl.domain.clock import as_utc
from jobctrl.domain.discovery import ExecutionRef, StepKind, StepState
from jobctrl.domain.executions import WorkflowType
from jobctrl.store import schema, tenancy
from jobctrl.store.discovery import DEJ, DR, run_tenant
from jobctrl.store.store import Store

J = schema.jobs
S = schema.job_stage_states
W = schema.workflow_run_projections
H = schema.job_hides
PS = schema.pipeline_step_projections


def run_row(store: Store, run_id: str | None) -> dict[str, Any] | None:
    """The discovery run ``run_id`` (None: the newest), or None."""
    with store.read() as conn:
        query = select(DR).where(tenancy.scoped(DR, conn))
        if run_id is not None:
            query = query.where(DR.c.run_id == run_id)
        row = conn.execute(query.order_by(DR.c.started_at.desc()).limit(1)).mappings().first()
    return dict(row) if row is not None else None


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
                tenancy.keyed(W, conn),  # by the jobs' index, as the stage rows below
                W.c.workflow_type == WorkflowType.PREPARATION.value,
                W.c.job_id.in_(job_ids),
            )
            .order_by(W.c.started_at)
        ):
            preps[wf] = (status, started)  # the newest execution under the id wins
        stages: dict[str, dict[str, tuple[str, str | None, bool]]] = {}
        # By the jobs' key: offered the tenant as a column to match, SQLite (without
        # statistics) read every stage row of the tenant (157 ms at 20,000 jobs).
        for job_id, stage, state, code, retryable in conn.execute(
            select(S.c.job_id, S.c.stage, S.c.state, S.c.error_code, S.c.retryable).where(
                tenancy.keyed(S, tenancy.tenant_of(conn)), S.c.job_id.in_(job_ids)
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


def family_history(
    store: Store, now: datetime, *, besides: str
) -> tuple[dict[str, list[float]], dict[str, list[int]]]:
    """Per source family, the seconds its completed steps took (newest first) in runs
    other than ``besides`` (a run id): finished within the ETA's window, at most its
    sample cap each; and the jobs each of those steps linked (new and known): how many
    members a family yields. A family's time runs from the previous family's end in its
    run (its own start for the first), so the run's scheduling between families counts."""
    since = now - eta_rules.WINDOW
    with store.read() as conn:
        rows = conn.execute(
            select(
                PS.c.run_id,
                PS.c.item_key,
                PS.c.state,
                PS.c.started_at,
                PS.c.finished_at,
                PS.c.counts,
            )
            .where(
                tenancy.scoped(PS, conn),
                PS.c.step_kind == StepKind.SOURCE_FAMILY.value,
                PS.c.finished_at >= since,
                PS.c.started_at.is_not(None),
                PS.c.run_id != besides,
            )
            .order_by(PS.c.run_id, PS.c.started_at)
        ).all()
    found: list[tuple[datetime, str, float, int]] = []
    previous: tuple[str, datetime] | None = None
    for run_id, kind, state, start, done, counts in rows:
        start, done = as_utc(start), as_utc(done)
        began = previous[1] if previous is not None and previous[0] == run_id else start
        if state == StepState.COMPLETED.value:
            seconds = max(0.0, (done - min(began, start)).total_seconds())
            linked = int((counts or {}).get("new_jobs", 0)) + int(
                (counts or {}).get("known_jobs", 0)
            )
            found.append((done, str(kind), seconds, linked))
        previous = (run_id, done)
    durations: dict[str, list[float]] = {}
    yields: dict[str, list[int]] = {}
    for _, kind, seconds, linked in sorted(found, reverse=True):
        samples = durations.setdefault(kind, [])
        if len(samples) < eta_rules.MAX_SAMPLES:
            samples.append(seconds)
            yields.setdefault(kind, []).append(linked)
    return durations, yields


def family_steps(
    store: Store, ref: ExecutionRef
) -> dict[str, tuple[str, datetime | None, datetime | None]]:
    """The run's source-family steps recorded so far: family -> (state, started_at, the
    previous family's end or None), in the order they ran."""
    with store.read() as conn:
        rows = conn.execute(
            select(PS.c.item_key, PS.c.state, PS.c.started_at, PS.c.finished_at)
            .where(
                tenancy.scoped(PS, conn),
                PS.c.workflow_id == ref.workflow_id,
                PS.c.run_id == ref.run_id,
                PS.c.step_kind == StepKind.SOURCE_FAMILY.value,
            )
            .order_by(PS.c.started_at)
        ).all()
    out: dict[str, tuple[str, datetime | None, datetime | None]] = {}
    before: datetime | None = None
    for kind, state, start, done in rows:
        out[str(kind)] = (str(state), as_utc(start) if start else None, before)
        before = as_utc(done) if done else before
    return out
