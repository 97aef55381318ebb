"""The operations snapshot's reads: which Discover execution it is about, what each scope
still has to do (from ``job_stage_states``, the source of truth), and the successful
stage durations pipeline-eta-v1 estimates from (``operational_attempt_metrics``). Rules
in domain/operations.py and domain/eta.py; this module only counts, and only the store's
tenant's rows (every table it reads carries the tenant's predicate, so the indexes that
lead with tenant_id serve).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Subquery, and_, case, func, select

from jobctrl.domain import eta as eta_rules
from jobctrl.domain import operations as rules
from jobctrl.domain.clock import as_utc
from jobctrl.domain.discovery import Cohort, RunStatus
from jobctrl.domain.errors import AUTOMATION_PAUSED
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.domain.stages import Stage, StageState
from jobctrl.store import attempt_metrics, recovery, recovery_admission, schema, tenancy
from jobctrl.store.operations_tables import recovery_cohorts as RC
from jobctrl.store.store import Store

S = schema.job_stage_states
M = schema.discovery_execution_jobs
DR = schema.discovery_runs
W = schema.workflow_run_projections
A = attempt_metrics.TABLE
_SCOPE_OF_COHORT = {Cohort.OBSERVED.value: rules.CURRENT, Cohort.BACKLOG.value: rules.SWEEP}


def selected_execution(store: Store) -> dict[str, Any] | None:
    """The Discover execution the snapshot is about: the newest running one, else the
    newest of all (None when discovery never ran)."""
    with store.read() as conn:
        for where in (DR.c.status == RunStatus.RUNNING.value, None):
            query = (
                select(DR).where(tenancy.scoped(DR, conn)).order_by(DR.c.started_at.desc()).limit(1)
            )
            row = conn.execute(query if where is None else query.where(where)).mappings().first()
            if row is not None:
                return dict(row)
    return None


@dataclass
class ScopeCounts:
    """What the three scopes hold, and the demand pipeline-eta-v1 prices."""

    scopes: dict[str, dict[str, Any]]
    demand: dict[str, int] = field(default_factory=dict)  # stage -> rows still to run
    unscored_jobs: int = 0  # demand jobs whose Score is still to run
    jobs_with_demand: int = 0
    # The codes of the blocked rows the selected execution's cohorts wait on (a spent
    # budget, a stop-loss pause, a broken config.yaml): work that is not done either.
    held: frozenset[str] = frozenset()


def _member_join(tenant: str, execution: dict[str, Any] | None) -> ColumnElement[bool]:
    if execution is None:  # joins nothing
        return and_(M.c.tenant_id == tenant, M.c.job_id == S.c.job_id, M.c.job_id.is_(None))
    return and_(M.c.job_id == S.c.job_id, *_members_of(execution))


def _members_of(execution: dict[str, Any]) -> list[ColumnElement[bool]]:
    return [
        M.c.tenant_id == execution["tenant_id"],
        M.c.discover_workflow_id == execution["workflow_id"],
        M.c.discover_run_id == execution["run_id"],
    ]


def _open_runs(tenant: str) -> Subquery:
    """The jobs whose preparation run is open, or is to be started (a start intent the
    command or the worker's reconciler has not fulfilled yet): read once per query."""
    intents = schema.start_intents
    running = (W.c.tenant_id == tenant, W.c.status == WorkflowStatus.RUNNING.value)
    unstarted = (intents.c.tenant_id == tenant, intents.c.started_at.is_(None))
    return (
        select(W.c.job_id)
        .where(*running, W.c.job_id.is_not(None))
        .union(select(intents.c.job_id).where(*unstarted))
        .subquery("open_runs")
    )


def _recovering(conn: Connection) -> list[str]:
    """The jobs of recovery cohorts reserved or running (their rows are owned)."""
    rows = conn.execute(
        select(RC.c.job_ids).where(
            tenancy.scoped(RC, conn), RC.c.state.in_((recovery.RESERVED, recovery.STARTED))
        )
    ).scalars()
    return sorted({job_id for ids in rows for job_id in ids or ()})


Row = tuple[str, str, str]  # (job id, stage, state)
_IDS_PER_QUERY = 5000  # bound parameters per statement, well under SQLite's limit


def _tally(
    conn: Connection, execution: dict[str, Any] | None
) -> tuple[dict[str, Counter[tuple[str, str]]], list[Row], list[Row]]:
    """Pending and running rows: per scope a count by (stage, state), the execution's
    member rows, and the rows outside the execution that something owns.

    Outside the execution a row is live contention only when something owns it: it runs,
    its job's preparation run is open, or recovery reserved its job. A dormant pending row
    nobody will pick up is not work the worker is going to do. The totals read the
    (stage, state) index alone; only member rows and owned rows are looked up."""
    stages, unfinished = (
        list(rules.OPS_STAGES),
        (StageState.PENDING.value, StageState.RUNNING.value),
    )
    tenant = tenancy.tenant_of(conn)
    where = (S.c.tenant_id == tenant, S.c.stage.in_(stages), S.c.state.in_(unfinished))
    tally: dict[str, Counter[tuple[str, str]]] = {name: Counter() for name in rules.SCOPES}
    for stage, state, n in conn.execute(
        select(S.c.stage, S.c.state, func.count()).where(*where).group_by(S.c.stage, S.c.state)
    ):
        tally[rules.GLOBAL][(stage, state)] += n
    member_rows: list[tuple[str, str, str]] = []
    if execution is not None:
        for cohort, job_id, stage, state in conn.execute(
            select(M.c.cohort, S.c.job_id, S.c.stage, S.c.state)
            .select_from(M.join(S, S.c.job_id == M.c.job_id))
            .where(*_members_of(execution), *where)
        ):
            scope = _SCOPE_OF_COHORT.get(cohort, rules.CURRENT)
            tally[scope][(stage, state)] += 1
            tally[rules.GLOBAL][(stage, state)] -= 1
            member_rows.append((job_id, stage, state))
    # The owning jobs are read first and their rows looked up by a list of ids: joined to
    # the open runs, SQLite (without statistics) looped over the runs and scanned every
    # unfinished row of a stage for each, 15 s at 1,000 open runs and 20,000 jobs
    # (bench/operations.py); the list keeps it one pass over the unfinished rows.
    owners = set(conn.execute(select(_open_runs(tenant).c.job_id)).scalars())
    owners.update(_recovering(conn))  # a job both open and recovering: once
    owned: set[Row] = set()
    ordered = sorted(owners)
    for at in range(0, len(ordered), _IDS_PER_QUERY):
        owned.update(
            (r[0], r[1], r[2])
            for r in conn.execute(
                select(S.c.job_id, S.c.stage, S.c.state)
                .select_from(S.outerjoin(M, _member_join(tenant, execution)))
                .where(
                    *where,
                    M.c.job_id.is_(None),
                    S.c.job_id.in_(ordered[at : at + _IDS_PER_QUERY]),
                )
            )
        )
    return tally, member_rows, sorted(owned)


def scope_counts(
    store: Store,
    execution: dict[str, Any] | None,
    *,
    non_retryable: frozenset[str],
    max_auto_attempts: int,
) -> ScopeCounts:
    """Per scope: jobs, remaining rows per stage (pending, running or failed and still
    retried by recovery), and jobs with a failed or blocked row. Also the ETA's demand:
    every remaining row of the execution's cohorts and the owned ones outside it."""
    scopes = {name: rules.empty_scope() for name in rules.SCOPES}
    out = ScopeCounts(scopes=scopes)
    with store.read() as conn:
        tenant = tenancy.tenant_of(conn)
        total_jobs = conn.execute(
            select(func.count()).where(tenancy.scoped(schema.jobs, conn))
        ).scalar_one()
        member_jobs: dict[str, int] = {}
        if execution is not None:
            member_jobs = dict(
                conn.execute(
                    select(M.c.cohort, func.count())
                    .where(*_members_of(execution))
                    .group_by(M.c.cohort)
                ).all()
            )
        tally, member_rows, owned = _tally(conn, execution)
        failed_rows = conn.execute(
            select(M.c.cohort, S.c.job_id, S.c.stage, S.c.error_code, S.c.retryable)
            .add_columns(
                S.c.auto_attempts, recovery_admission.vetoed_rows(tenant).label("declined")
            )
            .select_from(S.outerjoin(M, _member_join(tenant, execution)))
            .where(
                S.c.tenant_id == tenant,
                S.c.stage.in_(list(rules.OPS_STAGES)),
                S.c.state == StageState.FAILED.value,
            )
        ).all()
    for cohort, n in member_jobs.items():
        scopes[_SCOPE_OF_COHORT.get(cohort, rules.CURRENT)]["jobs"] += n
    scopes[rules.GLOBAL]["jobs"] = max(
        0, total_jobs - scopes[rules.CURRENT]["jobs"] - scopes[rules.SWEEP]["jobs"]
    )
    demand: Counter[str] = Counter()
    for scope, counts in tally.items():
        for (stage, _), n in counts.items():
            scopes[scope]["remaining"][stage] += n
            if scope != rules.GLOBAL:
                demand[stage] += n
    # Outside: owned rows, and running rows whatever owns them.
    running_outside = Counter(
        {st: n for (st, state), n in tally[rules.GLOBAL].items() if state == "running"}
    )
    demand_jobs = {job_id for job_id, _, _ in owned}
    unscored = {job_id for job_id, stage, _ in owned if stage == Stage.SCORE.value}
    for _, stage, state in owned:
        demand[stage] += 1
        if state == StageState.RUNNING.value:
            running_outside[stage] -= 1
    for stage, n in running_outside.items():
        demand[stage] += max(0, n)
    jobs = len({job_id for job_id, _, _ in member_rows})
    scores = sum(1 for _, stage, _ in member_rows if stage == Stage.SCORE.value)
    extra_jobs = sum(max(0, n) for n in running_outside.values())
    extra_scores = max(0, running_outside[Stage.SCORE.value])
    failed_jobs: dict[str, set[str]] = defaultdict(set)
    blocked_jobs: dict[str, set[str]] = defaultdict(set)
    held: set[str] = set()
    for cohort, job_id, stage, code, retryable, auto, declined in failed_rows:
        scope = _SCOPE_OF_COHORT.get(cohort, rules.GLOBAL) if cohort else rules.GLOBAL
        kind = rules.classify_failed(
            code,
            retryable,
            int(auto or 0),
            non_retryable=non_retryable,
            max_auto_attempts=max_auto_attempts,
        )
        if declined:  # the person abandoned its application: recovery never runs it
            kind = rules.RowClass.FAILED
        if kind is rules.RowClass.RETRY:
            scopes[scope]["remaining"][stage] += 1
            demand[stage] += 1
            demand_jobs.add(job_id)
            if stage == Stage.SCORE.value:
                unscored.add(job_id)
        elif kind is rules.RowClass.BLOCKED:
            blocked_jobs[scope].add(job_id)
            # A refused row recovery will not run again (its automatic attempts spent, or
            # recovery off) waits on the person's `retry`, not on the lifted pause.
            waits = code != AUTOMATION_PAUSED or int(auto or 0) < max_auto_attempts
            if scope != rules.GLOBAL and waits:
                held.add(code)
        else:
            failed_jobs[scope].add(job_id)
    for scope in rules.SCOPES:
        scopes[scope]["failed"] = len(failed_jobs[scope])
        scopes[scope]["blocked"] = len(blocked_jobs[scope])
    out.demand = {stage: n for stage, n in demand.items() if n > 0}
    out.held = frozenset(held)
    out.jobs_with_demand = jobs + extra_jobs + len(demand_jobs)
    out.unscored_jobs = scores + extra_scores + len(unscored)
    return out


def stage_spans(store: Store, now: datetime) -> dict[str, list[tuple[datetime, datetime]]]:
    """Per stage, the (started, finished) UTC instants of its most recent successful
    attempts (newest first): finished within pipeline-eta-v1's window, at most its sample
    cap. Read from ``operational_attempt_metrics``, which keeps every attempt: a stage run
    again (regenerated, retried) still lends its earlier successes to the estimate, where
    its state row keeps only the last."""
    since = now - eta_rules.WINDOW
    out: dict[str, list[tuple[datetime, datetime]]] = {}
    with store.read() as conn:
        for stage in rules.OPS_STAGES:
            rows = conn.execute(
                select(A.c.started_at, A.c.finished_at)
                .where(
                    tenancy.scoped(A, conn),
                    A.c.stage == stage,
                    A.c.outcome == attempt_metrics.SUCCEEDED,
                    A.c.finished_at >= since,
                    A.c.started_at.is_not(None),
                )
                .order_by(A.c.finished_at.desc())
                .limit(eta_rules.MAX_SAMPLES)
            ).all()
            out[stage] = [(as_utc(start), max(as_utc(start), as_utc(done))) for start, done in rows]
    return out


def duration_samples(store: Store, now: datetime) -> dict[str, list[float]]:
    """Per stage, the seconds of its most recent successful runs (newest first)."""
    return {
        stage: [(done - start).total_seconds() for start, done in spans]
        for stage, spans in stage_spans(store, now).items()
    }


def running_since(store: Store) -> list[tuple[str, datetime]]:
    """Each preparation stage running now, with when it started."""
    with store.read() as conn:
        rows = conn.execute(
            select(S.c.stage, S.c.started_at).where(
                tenancy.scoped(S, conn),
                S.c.stage.in_(list(rules.OPS_STAGES)),
                S.c.state == StageState.RUNNING.value,
                S.c.started_at.is_not(None),
            )
        ).all()
        return [(stage, as_utc(started)) for stage, started in rows]


def materials_pass_rate(store: Store) -> float:
    """The share of scored jobs that went on to materials: Tailor rows not skipped (for a
    low score, materials off or a closed posting) of all Tailor rows; 1.0 before any job
    was scored. Both counts read the (stage, state) index only."""
    with store.read() as conn:
        total, skipped = conn.execute(
            select(
                func.count(),
                func.count(case((S.c.state == StageState.SKIPPED.value, 1))),
            ).where(tenancy.scoped(S, conn), S.c.stage == Stage.TAILOR.value)
        ).one()
    return 1.0 if not total else (total - skipped) / total
