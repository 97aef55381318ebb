"""The operations snapshot's reads: which Discover execution it is about, what each scope
still has to do (from ``job_stage_states``, the source of truth), and the successful
stage durations pipeline-eta-v1 estimates from. Rules in domain/operations.py and
domain/eta.py; this module only counts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Join, Subquery, and_, case, distinct, func, select

from jobctrl.domain import eta as eta_rules
from jobctrl.domain import operations as rules
from jobctrl.domain.clock import as_utc
from jobctrl.domain.discovery import Cohort, RunStatus
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.domain.stages import Stage, StageState
from jobctrl.store import schema
from jobctrl.store.store import Store

S = schema.job_stage_states
M = schema.discovery_execution_jobs
DR = schema.discovery_runs
W = schema.workflow_run_projections
_SCOPE_OF_COHORT = {Cohort.OBSERVED.value: rules.CURRENT, Cohort.BACKLOG.value: rules.SWEEP}


def selected_execution(store: Store) -> dict[str, Any] | None:
    """The Discover execution the snapshot is about: the newest running one, else the
    newest of all (None when discovery never ran)."""
    with store.read() as conn:
        for where in (DR.c.status == RunStatus.RUNNING.value, None):
            query = select(DR).order_by(DR.c.started_at.desc()).limit(1)
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


def _member_join(execution: dict[str, Any] | None) -> ColumnElement[bool]:
    if execution is None:
        return and_(M.c.job_id == S.c.job_id, M.c.job_id.is_(None))  # joins nothing
    return and_(
        M.c.job_id == S.c.job_id,
        M.c.tenant_id == execution["tenant_id"],
        M.c.discover_workflow_id == execution["workflow_id"],
        M.c.discover_run_id == execution["run_id"],
    )


def _open_runs() -> Subquery:
    """The jobs whose preparation run is open (read once per query, not once per row)."""
    return (
        select(W.c.job_id)
        .where(W.c.status == WorkflowStatus.RUNNING.value, W.c.job_id.is_not(None))
        .distinct()
        .subquery("open_runs")
    )


def _live(open_runs: Subquery) -> ColumnElement[bool]:
    """A row outside the execution is live contention only when something owns it: it
    runs, recovery reserved it, or its job's preparation run is open. A dormant pending
    row nobody will pick up is not counted as work the worker is going to do."""
    return (
        (S.c.state == StageState.RUNNING.value)
        | S.c.reserved_by.is_not(None)
        | open_runs.c.job_id.is_not(None)
    )


def _rows(execution: dict[str, Any] | None, open_runs: Subquery) -> Join:
    """Stage rows, each with its membership (if any) and its job's open run (if any)."""
    return S.outerjoin(M, _member_join(execution)).outerjoin(
        open_runs, open_runs.c.job_id == S.c.job_id
    )


def scope_counts(
    store: Store,
    execution: dict[str, Any] | None,
    *,
    non_retryable: frozenset[str],
    max_auto_attempts: int,
) -> ScopeCounts:
    """Per scope: jobs, remaining rows per stage (pending, running or failed and still
    retried by recovery), and jobs with a failed or blocked row. Also the ETA's demand:
    every remaining row of the execution's cohorts and the live ones outside it."""
    scopes = {name: rules.empty_scope() for name in rules.SCOPES}
    out = ScopeCounts(scopes=scopes)
    stages = list(rules.OPS_STAGES)
    open_runs = _open_runs()
    live = _live(open_runs)
    unfinished = (StageState.PENDING.value, StageState.RUNNING.value)
    with store.read() as conn:
        total_jobs = conn.execute(select(func.count()).select_from(schema.jobs)).scalar_one()
        if execution is not None:
            members = conn.execute(
                select(M.c.cohort, func.count())
                .where(
                    M.c.tenant_id == execution["tenant_id"],
                    M.c.discover_workflow_id == execution["workflow_id"],
                    M.c.discover_run_id == execution["run_id"],
                )
                .group_by(M.c.cohort)
            ).all()
            for cohort, n in members:
                scopes[_SCOPE_OF_COHORT.get(cohort, rules.CURRENT)]["jobs"] += n
        scopes[rules.GLOBAL]["jobs"] = max(
            0, total_jobs - scopes[rules.CURRENT]["jobs"] - scopes[rules.SWEEP]["jobs"]
        )
        open_rows = conn.execute(
            select(M.c.cohort, S.c.stage, case((live, 1), else_=0), func.count())
            .select_from(_rows(execution, open_runs))
            .where(S.c.stage.in_(stages), S.c.state.in_(unfinished))
            .group_by(M.c.cohort, S.c.stage, case((live, 1), else_=0))
        ).all()
        failed_rows = conn.execute(
            select(
                M.c.cohort,
                S.c.job_id,
                S.c.stage,
                S.c.error_code,
                S.c.retryable,
                S.c.auto_attempts,
            )
            .select_from(S.outerjoin(M, _member_join(execution)))
            .where(S.c.stage.in_(stages), S.c.state == StageState.FAILED.value)
        ).all()
    demand_jobs: set[str] = set()
    unscored: set[str] = set()
    demand: dict[str, int] = defaultdict(int)
    for cohort, stage, is_live, n in open_rows:
        scope = _SCOPE_OF_COHORT.get(cohort, rules.GLOBAL) if cohort else rules.GLOBAL
        scopes[scope]["remaining"][stage] += n
        if scope != rules.GLOBAL or is_live:
            demand[stage] += n
    failed_jobs: dict[str, set[str]] = defaultdict(set)
    blocked_jobs: dict[str, set[str]] = defaultdict(set)
    for cohort, job_id, stage, code, retryable, auto in failed_rows:
        scope = _SCOPE_OF_COHORT.get(cohort, rules.GLOBAL) if cohort else rules.GLOBAL
        kind = rules.classify_failed(
            code,
            retryable,
            int(auto or 0),
            non_retryable=non_retryable,
            max_auto_attempts=max_auto_attempts,
        )
        if kind is rules.RowClass.RETRY:
            scopes[scope]["remaining"][stage] += 1
            demand[stage] += 1
            demand_jobs.add(job_id)
            if stage == Stage.SCORE.value:
                unscored.add(job_id)
        elif kind is rules.RowClass.BLOCKED:
            blocked_jobs[scope].add(job_id)
        else:
            failed_jobs[scope].add(job_id)
    for scope in rules.SCOPES:
        scopes[scope]["failed"] = len(failed_jobs[scope])
        scopes[scope]["blocked"] = len(blocked_jobs[scope])
    out.demand = dict(demand)
    jobs, scores = _demand_jobs(store, execution, open_runs)
    out.jobs_with_demand = jobs + len(demand_jobs)
    out.unscored_jobs = scores + len(unscored)
    return out


def _demand_jobs(
    store: Store, execution: dict[str, Any] | None, open_runs: Subquery
) -> tuple[int, int]:
    """(jobs with a pending or running row in the demand, their pending/running Scores)."""
    in_demand = M.c.cohort.is_not(None) | _live(open_runs)
    unfinished = S.c.state.in_((StageState.PENDING.value, StageState.RUNNING.value))
    with store.read() as conn:
        row = conn.execute(
            select(
                func.count(distinct(S.c.job_id)),
                func.count(case((S.c.stage == Stage.SCORE.value, 1))),
            )
            .select_from(_rows(execution, open_runs))
            .where(S.c.stage.in_(list(rules.OPS_STAGES)), unfinished, in_demand)
        ).one()
    return int(row[0]), int(row[1])


def duration_samples(store: Store, now: datetime) -> dict[str, list[float]]:
    """Per stage, the seconds of its most recent successful runs (newest first): finished
    within pipeline-eta-v1's window, at most its sample cap."""
    since = now - eta_rules.WINDOW
    out: dict[str, list[float]] = {}
    with store.read() as conn:
        for stage in rules.OPS_STAGES:
            rows = conn.execute(
                select(S.c.started_at, S.c.finished_at)
                .where(
                    S.c.stage == stage,
                    S.c.state == StageState.SUCCEEDED.value,
                    S.c.finished_at >= since,
                    S.c.started_at.is_not(None),
                )
                .order_by(S.c.finished_at.desc())
                .limit(eta_rules.MAX_SAMPLES)
            ).all()
            out[stage] = [
                max(0.0, (as_utc(done) - as_utc(start)).total_seconds()) for start, done in rows
            ]
    return out


def materials_pass_rate(store: Store) -> float:
    """The share of scored jobs that went on to materials: Tailor rows not skipped (for a
    low score, materials off or a closed posting) of all Tailor rows; 1.0 before any job
    was scored. Both counts read the (stage, state) index only."""
    with store.read() as conn:
        total, skipped = conn.execute(
            select(
                func.count(),
                func.count(case((S.c.state == StageState.SKIPPED.value, 1))),
            ).where(S.c.stage == Stage.TAILOR.value)
        ).one()
    return 1.0 if not total else (total - skipped) / total
