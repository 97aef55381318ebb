"""What automatic recovery may run now, in the store: the share of
``pipeline_internal_concurrency`` its open cohorts hold, and the Apply decline veto
(the person abandoned the job's application: no automatic Tailor/Cover for it). The
rules are in ``domain/recovery.py``; selection (``store/recovery.py``) and the locked
per-job claim (``store/stage_states.claim_stage``) both use this one veto, and so does the
retry demand the operations snapshot shows (``retry_demand``). All keep to the store's
tenant: its cohorts hold its share, its applications veto its rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, false, func, not_, or_, select, update

from jobctrl.domain import recovery as rules
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import Clock, as_utc
from jobctrl.domain.events import StageDeclined, StageReservationReleased
from jobctrl.domain.stages import StageState
from jobctrl.store import schema, tenancy
from jobctrl.store.application_tables import applications
from jobctrl.store.operations_tables import recovery_cohorts
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store, WriteTx

S = schema.job_stage_states
RC = recovery_cohorts
OPEN_STATES = ("reserved", "started")


def _declined_jobs(tenant: str) -> Any:
    return select(applications.c.job_id).where(
        applications.c.tenant_id == tenant,
        applications.c.job_id.is_not(None),
        applications.c.status == rules.DECLINED_APPLICATION.value,
    )


def vetoed_rows(tenant: str) -> Any:
    """SQL: the stage row is a Tailor/Cover of a job whose application (``tenant``'s) was
    declined."""
    declined_jobs = _declined_jobs(tenant)
    return and_(S.c.stage.in_(rules.DECLINE_VETOED_STAGES), S.c.job_id.in_(declined_jobs))


def declined(conn: Connection, job_id: str, stage: str) -> bool:
    """Automatic ``stage`` of the job is vetoed by the person's Apply decline."""
    if stage not in rules.DECLINE_VETOED_STAGES:
        return False
    status = conn.execute(
        select(applications.c.status).where(
            tenancy.scoped(applications, conn), applications.c.job_id == job_id
        )
    ).scalar()
    return rules.vetoed(stage, status)


def decline_stage(tx: WriteTx, job_id: str, stage: str, workflow_id: str) -> None:
    """End the row skipped for the decline: no error code, not retryable, attempts as
    they were (the claim refused it before any work)."""
    tx.conn.execute(
        update(S)
        .where(S.c.tenant_id == tx.tenant, S.c.job_id == job_id, S.c.stage == stage)
        .values(
            state=StageState.SKIPPED.value,
            reserved_by=None,
            error_code=None,
            error_message=None,
            retryable=False,
            next_attempt_at=None,
            finished_at=tx.now,
            updated_at=tx.now,
        )
    )
    tx.append(
        StageDeclined(job_id=job_id, stage=stage, workflow_id=workflow_id),
        key=f"stage-declined:{job_id}:{stage}:{workflow_id}",
    )


def release_declined(
    store: Store, workflow_id: str, *, clock: Clock | None = None
) -> tuple[list[str], int]:
    """Before an unstarted cohort is started again under its saved id: release its
    declined Tailor/Cover members that never started (their reservation only: state and
    attempts as they were, no attempt used), each with a StageReservationReleased naming
    the cohort. The released job ids, and how many members it still holds."""
    with store.write(clock=clock) as tx:
        rows = tx.conn.execute(
            select(S.c.job_id, S.c.stage).where(
                S.c.tenant_id == tx.tenant,
                S.c.reserved_by == workflow_id,
                S.c.state != StageState.RUNNING.value,
                vetoed_rows(tx.tenant),
            )
        ).all()
        for job_id, stage in rows:
            tx.conn.execute(
                update(S)
                .where(
                    S.c.tenant_id == tx.tenant,
                    S.c.job_id == job_id,
                    S.c.stage == stage,
                    S.c.reserved_by == workflow_id,
                )
                .values(reserved_by=None)
            )
            tx.append(
                StageReservationReleased(
                    job_id=job_id,
                    stage=stage,
                    workflow_id=workflow_id,
                    reason=rules.APPLY_DECLINED,
                ),
                key=f"stage-released:{job_id}:{stage}:{workflow_id}",
            )
        held = tx.conn.execute(
            select(func.count())
            .select_from(S)
            .where(S.c.tenant_id == tx.tenant, S.c.reserved_by == workflow_id)
        ).scalar()
    return sorted(str(job_id) for job_id, _ in rows), int(held or 0)


def in_use(store: Store) -> int:
    """The part of ``pipeline_internal_concurrency`` the open cohorts hold: each the
    smaller of its frozen worker count and its members not finished (still reserved,
    or running under its run)."""
    with store.read() as conn:
        return in_use_on(conn)


def in_use_on(conn: Connection) -> int:
    """``in_use`` on an open connection (the reservation's, under the write lock): the
    share of the connection's tenant (``pipeline_internal_concurrency`` is per tenant)."""
    shares = []
    cohorts = conn.execute(
        select(RC.c.workflow_id, RC.c.run_id, RC.c.workers, RC.c.job_ids).where(
            tenancy.scoped(RC, conn), RC.c.state.in_(OPEN_STATES)
        )
    ).all()
    for workflow_id, run_id, workers, job_ids in cohorts:
        running = (
            and_(S.c.owner_run_id == run_id, S.c.state == StageState.RUNNING.value)
            if run_id
            else false()
        )
        unfinished = conn.execute(
            select(func.count(func.distinct(S.c.job_id))).where(
                tenancy.keyed(S, tenancy.tenant_of(conn)),
                S.c.job_id.in_(list(job_ids)),
                or_(S.c.reserved_by == workflow_id, running),
            )
        ).scalar()
        shares.append(rules.cohort_share(workers, int(unfinished or 0)))
    return sum(shares)


def retry_demand(
    store: Store,
    now: datetime,
    *,
    stage_limit: int | None = None,
    base: float = rules.BACKOFF_BASE_SECONDS,
) -> dict[str, int]:
    """Failed rows automatic recovery will still retry (retryable, not exhausted, not
    canceled or non-retryable, the job there and its posting open): ``due`` once their
    backoff has passed (or reserved, being retried), else ``waiting``."""
    jobs = schema.jobs
    if stage_limit is None:
        stage_limit = int(Settings(store).get("retry.max_attempts"))
    with store.read() as conn:
        tenant = tenancy.tenant_of(conn)
        rows = conn.execute(
            select(S.c.finished_at, S.c.auto_attempts, S.c.error_code, S.c.reserved_by)
            .join(jobs, jobs.c.id == S.c.job_id)
            .where(
                S.c.tenant_id == tenant,
                jobs.c.tenant_id == tenant,
                S.c.stage.in_(rules.RECOVERABLE_STAGES),
                S.c.state == StageState.FAILED.value,
                S.c.retryable.is_(True),
                or_(S.c.error_code.is_(None), S.c.error_code.not_in(rules.NON_RETRYABLE_CODES)),
                S.c.auto_attempts < rules.max_auto_attempts(stage_limit),
                or_(jobs.c.availability.is_(None), jobs.c.availability != Availability.UNAVAILABLE),
                not_(vetoed_rows(tenant)),
            )
        ).all()
    due = sum(
        1
        for finished, auto, code, reserved in rows
        if reserved is not None
        or rules.is_due(now, as_utc(finished) if finished else None, auto, code, base=base)
    )
    return {"due": due, "waiting": len(rows) - due}
