"""The existing backlog a Discover execution sweeps: stale pending preparation work that
nothing owns, re-admitted deliberately as members of cohort ``existing_backlog``.

A job is swept when a preparation stage of it waits (``pending``, every earlier stage
succeeded — Enrich pending counts too) and nothing else owns it: no open preparation run
(``running`` or ``reconciled_not_found``), no row reserved by automatic recovery, no
unstarted start intent (the worker's reconciler owns that), not canceled, its posting not
confirmed closed, and not already a member of this execution. Oldest jobs first, bounded.

Admission links the member, fixes its preparation's workflow id and records a start
intent for it, in one transaction: a retried sweep starts that same id, and if the sweep
never gets to start it, the worker's intent reconciler does. Nothing is started twice.

Within the store's tenant (which must be the execution's: ``ExecutionRef.tenant_id``);
a swept job's preparation id names that tenant (``prepare-sweep-<tenant>-…``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Select, case, exists, func, or_, select, update

from jobctrl.domain import ids
from jobctrl.domain.availability import Availability
from jobctrl.domain.discovery import Cohort, ExecutionRef, PlanState
from jobctrl.domain.errors import CANCELED
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.domain.stages import LATER_STAGES, PREPARATION_STAGES, StageState
from jobctrl.store import discovery, schema, start_intents, tenancy
from jobctrl.store.store import Store, WriteTx

J = schema.jobs
S = schema.job_stage_states
WR = schema.workflow_run_projections
DEJ = schema.discovery_execution_jobs
SI = schema.start_intents

PREP_ORDER = {stage.value: i for i, stage in enumerate((*PREPARATION_STAGES, *LATER_STAGES))}
OPEN_RUN = (WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value)


@dataclass(frozen=True)
class Swept:
    job_id: str
    idempotency_key: str
    workflow_id: str


def sweep_workflow_id(ref: ExecutionRef, stage: str, job_id: str) -> str:
    """One preparation per swept job per Discover execution (in the run's tenant)."""
    return ids.stage_workflow_id(ids.SWEEP_KIND, stage, job_id, ref.run_id, ref.tenant_id)


def _candidates(tenant: str, ref: ExecutionRef, limit: int) -> Select[Any]:
    """(job id, idempotency key, waiting stage) of ``tenant``'s jobs to sweep, oldest
    first."""
    earlier = S.alias("earlier")
    other = S.alias("other")
    order = case(PREP_ORDER, value=S.c.stage)
    earlier_order = case(PREP_ORDER, value=earlier.c.stage)
    blocked = exists().where(
        earlier.c.job_id == S.c.job_id,
        earlier.c.stage.in_(list(PREP_ORDER)),
        earlier_order < order,
        earlier.c.state != StageState.SUCCEEDED.value,
        earlier.c.tenant_id == tenant,
    )
    owned_or_canceled = exists().where(
        other.c.job_id == J.c.id,
        or_(other.c.reserved_by.is_not(None), other.c.error_code == CANCELED),
        other.c.tenant_id == tenant,
    )
    # Not correlated: each set is read once, not looked up per candidate job.
    open_run = J.c.id.in_(
        select(WR.c.job_id).where(
            WR.c.tenant_id == tenant, WR.c.status.in_(OPEN_RUN), WR.c.job_id.is_not(None)
        )
    )
    member = exists().where(
        DEJ.c.tenant_id == tenant,
        DEJ.c.discover_workflow_id == ref.workflow_id,
        DEJ.c.discover_run_id == ref.run_id,
        DEJ.c.job_id == J.c.id,
    )
    intended = J.c.id.in_(
        select(SI.c.job_id).where(SI.c.tenant_id == tenant, SI.c.started_at.is_(None))
    )
    return (
        select(J.c.id, J.c.idempotency_key, S.c.stage)
        .join(S, S.c.job_id == J.c.id)
        .where(
            J.c.tenant_id == tenant,
            S.c.tenant_id == tenant,
            S.c.stage.in_(list(PREP_ORDER)),
            S.c.state == StageState.PENDING.value,
            ~blocked,
            ~owned_or_canceled,
            ~open_run,
            ~member,
            ~intended,
            or_(J.c.availability.is_(None), J.c.availability != Availability.UNAVAILABLE.value),
        )
        .order_by(J.c.created_at, J.c.id)
        .limit(limit)
    )


def candidates(store: Store, ref: ExecutionRef, limit: int) -> list[tuple[str, str, str]]:
    """What a sweep would admit now (a read, for tests and previews)."""
    with store.read() as conn:
        found = conn.execute(_candidates(discovery.run_tenant(conn, ref), ref, limit))
        return [(str(a), str(b), str(c)) for a, b, c in found]


def admit(tx: WriteTx, ref: ExecutionRef, limit: int) -> int:
    """Link up to ``limit`` swept jobs (fewer by those this execution swept already) as
    ``existing_backlog`` members with their preparation's id and a start intent for it;
    how many were linked now."""
    room = limit - backlog_count(tx.conn, ref)
    if room <= 0:
        return 0
    rows = tx.conn.execute(_candidates(discovery.run_tenant(tx.conn, ref), ref, room)).all()
    for job_id, _key, stage in rows:
        workflow_id = sweep_workflow_id(ref, str(stage), str(job_id))
        discovery.link_member(tx, ref, str(job_id), Cohort.BACKLOG)
        tx.conn.execute(
            update(DEJ)
            .where(
                *_member(tx.conn, ref, str(job_id)),
                DEJ.c.work_plan_state == PlanState.PENDING.value,
            )
            .values(prep_workflow_id=workflow_id, updated_at=tx.now)
        )
        start_intents.intend(tx, workflow_id, str(job_id))
    return len(rows)


def _member(conn: Connection, ref: ExecutionRef, job_id: str) -> tuple[ColumnElement[bool], ...]:
    return (
        DEJ.c.tenant_id == discovery.run_tenant(conn, ref),
        DEJ.c.discover_workflow_id == ref.workflow_id,
        DEJ.c.discover_run_id == ref.run_id,
        DEJ.c.job_id == job_id,
    )


def _of_run(conn: Connection, ref: ExecutionRef) -> tuple[ColumnElement[bool], ...]:
    return (
        DEJ.c.tenant_id == discovery.run_tenant(conn, ref),
        DEJ.c.discover_workflow_id == ref.workflow_id,
        DEJ.c.discover_run_id == ref.run_id,
        DEJ.c.cohort == Cohort.BACKLOG.value,
    )


def backlog_count(conn: Connection, ref: ExecutionRef) -> int:
    """Members this execution swept (still in the backlog cohort)."""
    return int(conn.execute(select(func.count()).where(*_of_run(conn, ref))).scalar_one())


def swept_count(store: Store, ref: ExecutionRef) -> int:
    with store.read() as conn:
        return backlog_count(conn, ref)


def to_start(store: Store, ref: ExecutionRef) -> list[Swept]:
    """The swept members whose preparation is not recorded as started yet."""
    with store.read() as conn:
        rows = conn.execute(
            select(DEJ.c.job_id, J.c.idempotency_key, DEJ.c.prep_workflow_id)
            .join(J, J.c.id == DEJ.c.job_id)
            .where(
                *_of_run(conn, ref),
                tenancy.scoped(J, conn),
                DEJ.c.work_plan_state == PlanState.PENDING.value,
                DEJ.c.prep_workflow_id.is_not(None),
            )
            .order_by(J.c.created_at, J.c.id)
        ).all()
    return [Swept(str(a), str(b), str(c)) for a, b, c in rows]
