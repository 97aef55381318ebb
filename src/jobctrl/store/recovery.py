"""Automatic preparation recovery in the store: the eligible stage rows, the frozen
cohorts that reserve them (``recovery_cohorts``) and their release (the retry demand the
operations snapshot shows is ``recovery_admission.retry_demand``). The rules are in
``domain/recovery.py``.

A cohort is reserved in one write transaction: its rows get ``reserved_by`` (the
cohort's workflow id) and a ``StageQueued`` event each (prior state and attempts); the
cohort row is saved ``reserved`` with its deterministic id, before Temporal is asked to
start it. The reservation changes no stage state: released, a row is as it was.
``stage_states.claim_stage`` turns a member's reservation into an owned attempt (and one
automatic attempt) under the write lock, or refuses a member whose reservation a person's
command took away. Everything keeps to the store's tenant: its rows, its cohorts (ids
``prepare-auto-<tenant>-…``), its runs, intents and applications.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, case, exists, func, not_, or_, select, update

from jobctrl.domain import recovery as rules
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import Clock, as_utc
from jobctrl.domain.events import (
    DomainEvent,
    StageQueued,
    WorkflowCanceled,
    WorkflowCompleted,
    WorkflowFailed,
)
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.domain.stages import NOT_ASKED_FOR, STAGE_ORDER, Stage, StageState
from jobctrl.store import recovery_admission, run_verdicts, schema, tenancy, workflow_runs
from jobctrl.store.operations_tables import recovery_cohorts
from jobctrl.store.recovery_admission import retry_demand as retry_demand  # callers' name
from jobctrl.store.store import Store

S = schema.job_stage_states
RC = recovery_cohorts
RESERVED, STARTED, CLOSED = "reserved", "started", "closed"
OPEN_STATES = (RESERVED, STARTED)
SCAN_LIMIT = 2000  # candidate rows one selection reads, oldest first
# Runs that prepare a job, and how one ended that leaves its unclaimed Enrich to recovery.
PREPARING = (WorkflowType.PREPARATION.value, WorkflowType.RECOVERY.value)
ENDED = (WorkflowStatus.COMPLETED.value, WorkflowStatus.FAILED.value)


@dataclass(frozen=True)
class Cohort:
    workflow_id: str
    stage: str
    job_ids: tuple[str, ...]
    state: str
    run_id: str | None = None
    workers: int | None = None  # members at once (None: saved before 0020, 2)


@dataclass(frozen=True)
class Candidate:
    job_id: str
    stage: str
    state: str
    attempts: int
    auto_attempts: int
    error_code: str | None
    since: datetime  # finished_at (a failure) or updated_at (a pending row)


def _order(column: Any) -> Any:
    """A stage name's place in the pipeline, in SQL."""
    return case({stage: i for stage, i in STAGE_ORDER.items()}, value=column, else_=99)


def _candidates(
    conn: Connection, cap: int, limit: int = SCAN_LIMIT, among: Collection[str] | None = None
) -> list[Candidate]:
    """Rows that may be eligible (of the jobs ``among``, if given), oldest first: every
    rule but the clock and the lanes."""
    tenant = tenancy.tenant_of(conn)
    earlier = S.alias("earlier")
    other = S.alias("other")
    wr, si, jobs = schema.workflow_run_projections, schema.start_intents, schema.jobs
    open_runs = select(wr.c.job_id).where(
        wr.c.tenant_id == tenant,
        wr.c.job_id.is_not(None),
        wr.c.status.in_([WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value]),
    )
    intents = select(si.c.job_id).where(si.c.tenant_id == tenant, si.c.started_at.is_(None))
    # The rows of the same job: by its key (``keyed``), never a walk of the tenant's rows.
    busy = exists().where(
        tenancy.keyed(other, tenant),
        other.c.job_id == S.c.job_id,
        or_(other.c.state == StageState.RUNNING.value, other.c.reserved_by.is_not(None)),
    )
    done = or_(
        earlier.c.state == StageState.SUCCEEDED.value,
        and_(earlier.c.state == StageState.SKIPPED.value, earlier.c.error_code.in_(NOT_ASKED_FOR)),
    )
    unfinished_before = exists().where(
        tenancy.keyed(earlier, tenant),
        earlier.c.job_id == S.c.job_id,
        earlier.c.stage.in_(rules.RECOVERABLE_STAGES),
        _order(earlier.c.stage) < _order(S.c.stage),
        not_(done),
    )
    # Each term names its tenant, stages and state, so SQLite reads only failed and pending
    # rows through the (tenant_id, stage, state) index, never the finished ones.
    failed = and_(
        S.c.tenant_id == tenant,
        S.c.stage.in_(rules.RECOVERABLE_STAGES),
        S.c.state == StageState.FAILED.value,
        S.c.retryable.is_(True),
        or_(S.c.error_code.is_(None), S.c.error_code.not_in(rules.NON_RETRYABLE_CODES)),
    )
    later = [stage for stage in rules.RECOVERABLE_STAGES if stage != Stage.ENRICH.value]
    pending = and_(
        S.c.tenant_id == tenant, S.c.stage.in_(later), S.c.state == StageState.PENDING.value
    )
    # A pending Enrich is a job never admitted (or not to be prepared): not ours to start,
    # unless its preparation ran and ended without claiming it (every attempt failed
    # first): a preparation run of the job ended, or a recovery run (which records no
    # job) claimed it before (its automatic attempts). Not when its newest run was
    # cancelled. Cheap over a large never-prepared backlog: one list of ended runs, and
    # the newest run read only for the few rows that pass.
    prepared = select(wr.c.job_id).where(
        wr.c.tenant_id == tenant,
        wr.c.job_id.is_not(None),
        wr.c.workflow_type.in_(PREPARING),
        wr.c.status.in_(ENDED),
    )
    newest = (
        select(wr.c.status)
        .where(
            wr.c.tenant_id == tenant,
            wr.c.job_id == S.c.job_id,
            wr.c.workflow_type.in_(PREPARING),
        )
        .order_by(wr.c.started_at.desc())
        .limit(1)
        .scalar_subquery()
    )
    stranded = and_(
        S.c.tenant_id == tenant,
        S.c.stage == Stage.ENRICH.value,
        S.c.state == StageState.PENDING.value,
        or_(S.c.job_id.in_(prepared), S.c.auto_attempts > 0),
        func.coalesce(newest, "") != WorkflowStatus.CANCELED.value,
    )
    is_pending = S.c.state == StageState.PENDING.value
    since = case((is_pending, S.c.updated_at), else_=func.coalesce(S.c.finished_at, S.c.updated_at))
    rows = conn.execute(
        select(S, since.label("since"))
        .join(jobs, jobs.c.id == S.c.job_id)
        .where(
            or_(failed, pending, stranded),  # each names the tenant
            tenancy.keyed(jobs, tenant),
            *([S.c.job_id.in_(among)] if among is not None else []),
            S.c.reserved_by.is_(None),
            S.c.auto_attempts < cap,
            or_(jobs.c.availability.is_(None), jobs.c.availability != Availability.UNAVAILABLE),
            S.c.job_id.not_in(open_runs),
            S.c.job_id.not_in(intents),
            not_(busy),
            not_(unfinished_before),
            not_(recovery_admission.vetoed_rows(tenant)),  # a person's Apply decline
        )
        .order_by(since, S.c.job_id)
        .limit(limit)
    ).mappings()
    return [
        Candidate(
            job_id=r["job_id"],
            stage=r["stage"],
            state=r["state"],
            attempts=int(r["attempts"]),
            auto_attempts=int(r["auto_attempts"]),
            error_code=r["error_code"],
            since=as_utc(r["since"]),
        )
        for r in rows
    ]


def _due(c: Candidate, now: datetime, base: float, grace: float) -> bool:
    if c.state == StageState.PENDING.value:
        return rules.pending_due(now, c.stage, c.since, c.auto_attempts, base=base, grace=grace)
    return rules.is_due(now, c.since, c.auto_attempts, c.error_code, base=base)


def eligible(
    store: Store,
    now: datetime,
    *,
    stage_limit: int,
    base: float = rules.BACKOFF_BASE_SECONDS,
    grace: float = rules.PENDING_GRACE_SECONDS,
) -> list[Candidate]:
    """The rows automatic recovery would pick now (every lane), oldest first."""
    with store.read() as conn:
        found = _candidates(conn, rules.max_auto_attempts(stage_limit))
    return [c for c in found if _due(c, now, base, grace)]


def reserve_cohort(
    store: Store,
    *,
    stage_limit: int,
    stages: Collection[str],
    base: float = rules.BACKOFF_BASE_SECONDS,
    grace: float = rules.PENDING_GRACE_SECONDS,
    size: int = rules.COHORT_SIZE,
    among: Collection[str] | None = None,
    workers: int | None = None,
    concurrency: int | None = None,
    clock: Clock | None = None,
) -> Cohort | None:
    """Reserve the next cohort in one write transaction: the stage (one of ``stages``: the
    lanes that may run now) of the oldest eligible row, and at most ``size`` of that
    stage's eligible rows (one per job). None when nothing is eligible.

    ``among`` (the jobs an ``eligible`` read chose) narrows the read made under the write
    lock to those rows: every rule is checked again, and the lock is held for 25 rows,
    not for a scan of the store. ``workers`` (the parallelism left to it) is saved with
    the cohort, at most its size: the input it is started with, every time. With
    ``concurrency`` (``pipeline_internal_concurrency``) what the open cohorts leave is
    read again under the lock (two workers' heartbeats never both take the last of it):
    None when nothing is left."""
    with store.write(clock=clock) as tx:
        now = tx.now
        if concurrency is not None:
            left = rules.remaining_workers(concurrency, [recovery_admission.in_use_on(tx.conn)])
            if left <= 0:
                return None
            workers = left if workers is None else min(workers, left)
        found = [
            c
            for c in _candidates(tx.conn, rules.max_auto_attempts(stage_limit), among=among)
            if _due(c, now, base, grace)
        ]
        chosen: list[Candidate] = []
        for c in found:
            if c.stage not in stages or (chosen and c.stage != chosen[0].stage):
                continue
            if all(m.job_id != c.job_id for m in chosen):
                chosen.append(c)
            if len(chosen) >= size:
                break
        if not chosen:
            return None
        stage = chosen[0].stage
        members = [(c.job_id, c.attempts, c.auto_attempts) for c in chosen]
        workflow_id = rules.cohort_workflow_id(stage, members, now, tx.tenant)
        for c in chosen:
            result = tx.conn.execute(
                update(S)
                .where(
                    S.c.tenant_id == tx.tenant,
                    S.c.job_id == c.job_id,
                    S.c.stage == stage,
                    S.c.reserved_by.is_(None),
                )
                .values(reserved_by=workflow_id)
            )
            assert result.rowcount == 1  # read in this transaction: no one else could move it
            tx.append(
                StageQueued(
                    job_id=c.job_id,
                    stage=stage,
                    workflow_id=workflow_id,
                    prior_state=c.state,
                    attempts=c.attempts,
                    auto_attempt=c.auto_attempts + 1,
                ),
                key=f"stage-queued:{c.job_id}:{stage}:{workflow_id}",
            )
        job_ids = tuple(c.job_id for c in chosen)
        saved = None if workers is None else max(1, min(int(workers), len(job_ids)))
        tx.conn.execute(
            RC.insert().values(
                tenant_id=tx.tenant,
                workflow_id=workflow_id,
                stage=stage,
                job_ids=list(job_ids),
                state=RESERVED,
                run_id=None,
                workers=saved,
                created_at=now,
                updated_at=now,
            )
        )
    return Cohort(workflow_id, stage, job_ids, RESERVED, workers=saved)


def _cohort(row: Any) -> Cohort:
    return Cohort(
        row["workflow_id"],
        row["stage"],
        tuple(row["job_ids"]),
        row["state"],
        row["run_id"],
        row["workers"],
    )


def open_cohorts(store: Store) -> list[Cohort]:
    """Cohorts not closed yet (reserved: not known to be started; started), oldest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(RC)
            .where(tenancy.scoped(RC, conn), RC.c.state.in_(OPEN_STATES))
            .order_by(RC.c.created_at)
        ).mappings()
        return [_cohort(r) for r in rows]


def cohort(store: Store, workflow_id: str) -> Cohort | None:
    with store.read() as conn:
        row = (
            conn.execute(
                select(RC).where(tenancy.scoped(RC, conn), RC.c.workflow_id == workflow_id)
            )
            .mappings()
            .first()
        )
    return _cohort(row) if row else None


def bind_run(store: Store, workflow_id: str, run_id: str, *, clock: Clock | None = None) -> bool:
    """The cohort runs as ``run_id``: saved ``started`` with its run and recorded as a
    started ``PreparationRecoveryWorkflow`` (once), in one transaction. Its execution
    says so first thing (so its members' claims are recognised), the heartbeat again once
    Temporal acknowledged the start. False when the cohort is closed or gone."""
    with store.write(clock=clock) as tx:
        result = tx.conn.execute(
            update(RC)
            .where(
                RC.c.tenant_id == tx.tenant,
                RC.c.workflow_id == workflow_id,
                RC.c.state.in_(OPEN_STATES),
            )
            .values(state=STARTED, run_id=run_id, updated_at=tx.now)
        )
        if result.rowcount != 1:
            return False
        workflow_runs.record_started(
            tx,
            workflow_id=workflow_id,
            run_id=run_id,
            workflow_type=WorkflowType.RECOVERY.value,
            job_id=None,
        )
    return True


def close_cohort(
    store: Store,
    workflow_id: str,
    *,
    run: tuple[str, str, str | None] | None = None,
    clock: Clock | None = None,
) -> list[str]:
    """Close the cohort and release its members still reserved (they never ran under it:
    their state and attempts are as they were); the released job ids. ``run`` (run id,
    status ``completed``/``failed``/``canceled``, error code) records how its execution
    ended, in the same transaction, with any member row still running under it settled
    (``STAGE_INTERRUPTED``; ``canceled`` for a cancelled run)."""
    with store.write(clock=clock) as tx:
        held = (S.c.tenant_id == tx.tenant, S.c.reserved_by == workflow_id)
        released = [str(j) for j in tx.conn.execute(select(S.c.job_id).where(*held)).scalars()]
        if released:
            tx.conn.execute(update(S).where(*held).values(reserved_by=None))
        cohort_row = (RC.c.tenant_id == tx.tenant, RC.c.workflow_id == workflow_id)
        tx.conn.execute(
            update(RC)
            .where(*cohort_row, RC.c.state != CLOSED)
            .values(state=CLOSED, updated_at=tx.now)
        )
        if run is not None:
            run_id, status, code = run
            # A member's claim that committed after its finish read the rows: settled now.
            members = tx.conn.execute(select(RC.c.job_ids).where(*cohort_row)).scalar()
            for job_id in members or ():
                run_verdicts.settle_interrupted(
                    tx, run_id, job_id=str(job_id), canceled=status == "canceled"
                )
            closed: DomainEvent
            if status == "canceled":
                closed = WorkflowCanceled(workflow_id=workflow_id, run_id=run_id)
            elif code:
                closed = WorkflowFailed(workflow_id=workflow_id, run_id=run_id, error_code=code)
            else:
                closed = WorkflowCompleted(workflow_id=workflow_id, run_id=run_id, outcome=status)
            # The key every record of this execution's end uses: recorded once.
            tx.append(closed, key=f"workflow-closed:{workflow_id}:{run_id}")
    return released


def reserved_members(store: Store, workflow_id: str, job_ids: Collection[str]) -> list[str]:
    """Which of ``job_ids`` the cohort still holds (reserved, not claimed yet)."""
    with store.read() as conn:
        rows = conn.execute(
            select(S.c.job_id).where(
                tenancy.keyed(S, tenancy.tenant_of(conn)),
                S.c.reserved_by == workflow_id,
                S.c.job_id.in_(job_ids),
            )
        ).scalars()
        return sorted(str(job_id) for job_id in rows)
