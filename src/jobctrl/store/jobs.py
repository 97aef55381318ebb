"""Jobs and their stage rows: creation, fenced stage transitions, reads.

``job_stage_states`` is the source of truth for each stage. A running row records the
Temporal run id and the attempt that own it; every later write for that stage is fenced
on both, so a late write from a lost owner (a timed-out attempt that kept running) is
refused instead of applied. Each transition appends its event in the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select, update

from jobctrl.domain import ids
from jobctrl.domain.errors import (
    OWNERSHIP_LOST,
    POSTING_UNAVAILABLE,
    NotFoundError,
    StageError,
)
from jobctrl.domain.events import (
    JobCreated,
    StageFailed,
    StageReset,
    StageSkipped,
    StageStarted,
    StageSucceeded,
    WorkflowCompleted,
    WorkflowFailed,
    WorkflowStarted,
)
from jobctrl.domain.stages import PREPARATION_STAGES, StageState
from jobctrl.store import schema
from jobctrl.store.store import Store, WriteTx, upsert, utcnow

S = schema.job_stage_states


@dataclass(frozen=True)
class NewJob:
    job_id: str
    idempotency_key: str
    canonical_url: str
    created: bool


@dataclass(frozen=True)
class Claim:
    """The outcome of claiming a stage: the attempt that now owns it, or that it is done."""

    attempt: int
    already: StageState | None = None  # SUCCEEDED/SKIPPED when an earlier attempt finished it


def create_job(store: Store, url: str, *, source: str = "manual") -> NewJob:
    with store.write() as tx:
        return create_job_in(tx, url, source=source)


def create_job_in(tx: WriteTx, url: str, *, source: str = "manual") -> NewJob:
    """``create_job`` inside the caller's transaction (discovery links and observes the
    job in the same one)."""
    canonical = ids.canonical_url(url)
    key = ids.idempotency_key(canonical)
    job_id = ids.job_id_for(key)
    now = utcnow()
    created = upsert(
        tx.conn,
        schema.jobs,
        {
            "id": job_id,
            "idempotency_key": key,
            "url": url.strip(),
            "canonical_url": canonical,
            "source": source,
            "created_at": now,
            "updated_at": now,
        },
        keys=["id"],
    ).rowcount
    ensure_stages(tx, job_id, PREPARATION_STAGES)
    tx.append(
        JobCreated(
            job_id=job_id,
            url=url.strip(),
            canonical_url=canonical,
            idempotency_key=key,
            source=source,
        ),
        key=f"job-created:{key}",
    )
    return NewJob(job_id, key, canonical, bool(created))


def record_workflow_started(
    store: Store, *, workflow_id: str, run_id: str, workflow_type: str, job_id: str | None
) -> None:
    with store.write() as tx:
        tx.append(
            WorkflowStarted(
                workflow_id=workflow_id, run_id=run_id, workflow_type=workflow_type, job_id=job_id
            ),
            key=f"workflow-started:{workflow_id}:{run_id}",
            job_id=job_id,
        )


def record_workflow_closed(
    store: Store,
    *,
    workflow_id: str,
    run_id: str,
    job_id: str | None,
    outcome: str,
    error_code: str | None = None,
) -> None:
    event = (
        WorkflowFailed(workflow_id=workflow_id, run_id=run_id, error_code=error_code)
        if error_code
        else WorkflowCompleted(workflow_id=workflow_id, run_id=run_id, outcome=outcome)
    )
    with store.write() as tx:
        tx.append(event, key=f"workflow-closed:{workflow_id}:{run_id}", job_id=job_id)


# The availability state of a posting a check confirmed closed (stages/availability.py).
CLOSED = "unavailable"


def posting_closed(conn: Connection, job_id: str) -> bool:
    """True when the latest availability check confirmed the job's posting is closed."""
    state = conn.execute(
        select(schema.jobs.c.availability).where(schema.jobs.c.id == job_id)
    ).scalar()
    return state == CLOSED


def claim_stage(store: Store, job_id: str, stage: str, run_id: str) -> Claim:
    """Make ``run_id`` the owner of ``stage`` for a new attempt (unless already finished)."""
    now = utcnow()
    with store.write() as tx:
        row = (
            tx.conn.execute(select(S).where(S.c.job_id == job_id, S.c.stage == stage))
            .mappings()
            .first()
        )
        if row is None:
            raise NotFoundError(f"job {job_id} has no {stage} stage", code="missing_input")
        state = StageState(row["state"])
        if state in (StageState.SUCCEEDED, StageState.SKIPPED):
            return Claim(attempt=row["attempts"], already=state)
        if posting_closed(tx.conn, job_id):  # not prepared any further
            skip_stage(tx, job_id, stage, POSTING_UNAVAILABLE)
            return Claim(attempt=row["attempts"], already=StageState.SKIPPED)
        attempt = row["attempts"] + 1
        tx.conn.execute(
            update(S)
            .where(S.c.job_id == job_id, S.c.stage == stage)
            .values(
                state=StageState.RUNNING.value,
                attempts=attempt,
                owner_run_id=run_id,
                error_code=None,
                error_message=None,
                retryable=None,
                next_attempt_at=None,
                started_at=now,
                finished_at=None,
                updated_at=now,
            )
        )
        tx.append(
            StageStarted(job_id=job_id, stage=stage, attempt=attempt, run_id=run_id),
            key=f"stage-started:{job_id}:{stage}:{run_id}:{attempt}",
        )
    return Claim(attempt=attempt)


def _fenced(tx: WriteTx, job_id: str, stage: str, run_id: str, attempt: int, **values: Any) -> None:
    now = utcnow()
    result = tx.conn.execute(
        update(S)
        .where(
            S.c.job_id == job_id,
            S.c.stage == stage,
            S.c.owner_run_id == run_id,
            S.c.attempts == attempt,
            S.c.state == StageState.RUNNING.value,
        )
        .values(updated_at=now, finished_at=now, **values)
    )
    if result.rowcount != 1:
        raise StageError(
            OWNERSHIP_LOST,
            f"{stage} attempt {attempt} no longer owns job {job_id}; its result was not saved",
        )


def succeed_stage(tx: WriteTx, job_id: str, stage: str, run_id: str, attempt: int) -> None:
    """Mark the owned attempt succeeded inside the caller's transaction (with its results)."""
    _fenced(tx, job_id, stage, run_id, attempt, state=StageState.SUCCEEDED.value, error_code=None)
    tx.append(
        StageSucceeded(job_id=job_id, stage=stage, attempt=attempt, run_id=run_id),
        key=f"stage-succeeded:{job_id}:{stage}:{run_id}:{attempt}",
    )


def fail_stage(
    store: Store,
    job_id: str,
    stage: str,
    run_id: str,
    attempt: int,
    error: StageError,
    *,
    next_attempt_at: datetime | None = None,
) -> None:
    attempts = attempt if error.uses_attempt else attempt - 1
    with store.write() as tx:
        _fenced(
            tx,
            job_id,
            stage,
            run_id,
            attempt,
            state=StageState.FAILED.value,
            attempts=attempts,
            error_code=error.code,
            error_message=error.message,
            retryable=error.retryable,
            next_attempt_at=next_attempt_at,
        )
        tx.append(
            StageFailed(
                job_id=job_id,
                stage=stage,
                attempt=attempt,
                run_id=run_id,
                error_code=error.code,
                retryable=error.retryable,
                attempts_used=attempts,
            ),
            key=f"stage-failed:{job_id}:{stage}:{run_id}:{attempt}",
        )


def schedule_retry(store: Store, job_id: str, stage: str, run_id: str, when: datetime) -> None:
    """Note the next automatic attempt on a failed stage this run still owns."""
    with store.write() as tx:
        tx.conn.execute(
            update(S)
            .where(
                S.c.job_id == job_id,
                S.c.stage == stage,
                S.c.owner_run_id == run_id,
                S.c.state == StageState.FAILED.value,
            )
            .values(next_attempt_at=when)
        )


def ensure_stages(tx: WriteTx, job_id: str, stages: Iterable[str]) -> None:
    """Create pending rows for ``stages`` that the job does not have yet."""
    now = utcnow()
    for stage in stages:
        upsert(
            tx.conn,
            S,
            {
                "job_id": job_id,
                "stage": str(stage),
                "state": StageState.PENDING.value,
                "attempts": 0,
                "created_at": now,
                "updated_at": now,
            },
            keys=["job_id", "stage"],
        )


def reset_stages(store: Store, job_id: str, stages: tuple[str, ...], reason: str) -> None:
    """Put finished ``stages`` back to pending (attempts kept); refused while one runs."""
    now = utcnow()
    with store.write() as tx:
        rows = {
            r.stage: r.state
            for r in tx.conn.execute(select(S.c.stage, S.c.state).where(S.c.job_id == job_id))
        }
        busy = [s for s in stages if rows.get(s) == StageState.RUNNING.value]
        if busy:
            raise StageError("STAGE_BUSY", f"{busy[0]} is running for job {job_id}; try later")
        for stage in stages:
            upsert(
                tx.conn,
                S,
                {
                    "job_id": job_id,
                    "stage": stage,
                    "state": StageState.PENDING.value,
                    "attempts": 0,
                    "created_at": now,
                    "updated_at": now,
                },
                keys=["job_id", "stage"],
                update=["state", "updated_at"],
            )
            tx.append(
                StageReset(job_id=job_id, stage=stage, reason=reason),
                key=f"stage-reset:{job_id}:{stage}:{now.isoformat()}",
            )


def skip_stage(tx: WriteTx, job_id: str, stage: str, reason: str) -> None:
    """Record ``stage`` as skipped for ``reason`` (e.g. MIN_SCORE), creating its row if new."""
    now = utcnow()
    values = {
        "state": StageState.SKIPPED.value,
        "error_code": reason,
        "error_message": None,
        "retryable": False,
        "finished_at": now,
        "updated_at": now,
    }
    upsert(
        tx.conn,
        S,
        {"job_id": job_id, "stage": stage, "attempts": 0, "created_at": now, **values},
        keys=["job_id", "stage"],
        update=list(values),
    )
    tx.append(
        StageSkipped(job_id=job_id, stage=stage, reason=reason),
        key=f"stage-skipped:{job_id}:{stage}:{reason}",
    )


# -- reads ---------------------------------------------------------------------------------


def resolve_job_id(store: Store, ref: str) -> str:
    """A job id from a full id or a unique prefix of at least 4 characters."""
    ref = ref.strip().lower()
    with store.read() as conn:
        if conn.execute(select(schema.jobs.c.id).where(schema.jobs.c.id == ref)).first():
            return ref
        if len(ref) >= 4:
            matches = (
                conn.execute(
                    select(schema.jobs.c.id)
                    .where(schema.jobs.c.id.startswith(ref, autoescape=True))
                    .limit(2)
                )
                .scalars()
                .all()
            )
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise NotFoundError(f"job prefix {ref!r} is ambiguous", code="ambiguous_job")
    raise NotFoundError(f"no job {ref!r} (see `jobctrl jobs`)", code="job_not_found")


def job_row(store: Store, job_id: str) -> dict[str, Any]:
    with store.read() as conn:
        row = conn.execute(select(schema.jobs).where(schema.jobs.c.id == job_id)).mappings().first()
    if row is None:
        raise NotFoundError(f"no job {job_id!r}", code="job_not_found")
    return dict(row)


def stage_rows(store: Store, job_id: str) -> list[dict[str, Any]]:
    from jobctrl.domain.stages import Stage

    order = {s.value: i for i, s in enumerate(Stage)}
    with store.read() as conn:
        rows = [dict(r) for r in conn.execute(select(S).where(S.c.job_id == job_id)).mappings()]
    return sorted(rows, key=lambda r: order.get(r["stage"], 99))


def score_row(store: Store, job_id: str) -> dict[str, Any] | None:
    with store.read() as conn:
        row = (
            conn.execute(select(schema.job_scores).where(schema.job_scores.c.job_id == job_id))
            .mappings()
            .first()
        )
    return dict(row) if row else None
