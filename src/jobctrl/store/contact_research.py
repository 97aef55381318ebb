"""Contact research runs and the candidates they found (issue 33): one task per (job,
request), claimed by the Temporal run that does it, each source's attempt and candidates
written in one transaction fenced on that run, then the task's end.

A write from a run that no longer owns the task is refused (``OWNERSHIP_LOST``), never
applied: a second run that took the task over wins. A source written again (a retried
activity) replaces that source's unreviewed candidates, so a retry never doubles them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, RowMapping, delete, insert, select, update

from jobctrl.domain.clock import Clock, utcnow
from jobctrl.domain.contacts import CandidateStatus, TaskStatus
from jobctrl.domain.errors import OWNERSHIP_LOST, StageError
from jobctrl.store import tenancy
from jobctrl.store.contact_tables import contact_candidates as C
from jobctrl.store.contact_tables import contact_research_tasks as T
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "CandidateRow",
    "TaskRow",
    "candidate_rows",
    "claim",
    "finish",
    "new_task",
    "record_source",
    "set_workflow",
    "task_row",
    "tasks_of_job",
]


@dataclass(frozen=True)
class TaskRow:
    task_id: str
    job_id: str
    status: str
    sources: list[dict[str, str]]
    attempts: list[dict[str, Any]]
    workflow_id: str | None
    owner_run_id: str | None
    error_code: str | None
    candidates: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @classmethod
    def of(cls, row: RowMapping) -> TaskRow:
        return cls(
            task_id=row["task_id"],
            job_id=row["job_id"],
            status=row["status"],
            sources=list(row["sources"]),
            attempts=sorted(row["source_attempts_json"], key=lambda a: int(a["index"])),
            workflow_id=row["workflow_id"],
            owner_run_id=row["owner_run_id"],
            error_code=row["error_code"],
            candidates=int(row["candidates"]),
            created_at=row["created_at"],
            started_at=row["started_at"],
            finished_at=row["finished_at"],
        )


@dataclass(frozen=True)
class CandidateRow:
    candidate_id: str
    task_id: str
    job_id: str
    source_index: int
    name: str
    role: str
    title: str | None
    email: str | None
    evidence: str
    source: str
    confidence: float
    status: str
    contact_id: str | None
    created_at: datetime


def _task(conn: Connection, task_id: str) -> TaskRow | None:
    row = (
        conn.execute(select(T).where(T.c.task_id == task_id, tenancy.scoped(T, conn)))
        .mappings()
        .first()
    )
    return TaskRow.of(row) if row else None


def task_row(store: Store, task_id: str) -> TaskRow | None:
    with store.read() as conn:
        return _task(conn, task_id)


def tasks_of_job(store: Store, job_id: str, limit: int = 20) -> list[TaskRow]:
    """The job's research runs, newest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(T)
            .where(T.c.job_id == job_id, tenancy.scoped(T, conn))
            .order_by(T.c.created_at.desc(), T.c.task_id)
            .limit(limit)
        ).mappings()
        return [TaskRow.of(r) for r in rows]


def new_task(
    store: Store, job_id: str, request_key: str, sources: list[dict[str, str]]
) -> tuple[TaskRow, bool]:
    """The task of this (job, request): made now (True) or the one made before (False)."""
    with store.write() as tx:
        found = tx.conn.execute(
            select(T.c.task_id).where(
                T.c.job_id == job_id, T.c.request_key == request_key, tenancy.scoped(T, tx.conn)
            )
        ).scalar()
        if found is not None:
            made = _task(tx.conn, found)
            assert made is not None
            return made, False
        task_id = uuid.uuid4().hex[:16]
        tx.conn.execute(
            insert(T).values(
                tenant_id=tx.tenant, task_id=task_id, job_id=job_id, request_key=request_key,
                status=TaskStatus.QUEUED.value, sources=sources, source_attempts_json=[],
                candidates=0, created_at=tx.now,
            )
        )  # fmt: skip
        made = _task(tx.conn, task_id)
        assert made is not None
        return made, True


def set_workflow(store: Store, task_id: str, workflow_id: str) -> None:
    with store.write() as tx:
        tx.conn.execute(
            update(T)
            .where(T.c.task_id == task_id, tenancy.scoped(T, tx.conn))
            .values(workflow_id=workflow_id)
        )


def claim(store: Store, task_id: str, run_id: str, *, clock: Clock = utcnow) -> TaskRow:
    """Make ``run_id`` the task's owner (a task still open; a finished one is returned as
    it is: nothing to do). A later run takes an open task over; the earlier one's writes
    are refused from then on."""
    with store.write(clock=clock) as tx:
        task = _task(tx.conn, task_id)
        if task is None:
            raise StageError(OWNERSHIP_LOST, "the research task no longer exists")
        if task.status in (TaskStatus.SUCCEEDED, TaskStatus.FAILED):
            return task
        tx.conn.execute(
            update(T)
            .where(T.c.task_id == task_id, tenancy.scoped(T, tx.conn))
            .values(
                status=TaskStatus.RUNNING.value,
                owner_run_id=run_id,
                started_at=task.started_at or tx.now,
            )
        )
        claimed = _task(tx.conn, task_id)
        assert claimed is not None
        return claimed


def _fenced(tx: WriteTx, task_id: str, run_id: str) -> TaskRow:
    task = _task(tx.conn, task_id)
    if task is None or task.owner_run_id != run_id or task.status != TaskStatus.RUNNING:
        raise StageError(OWNERSHIP_LOST, "another run owns this research task now")
    return task


def record_source(
    store: Store,
    task_id: str,
    run_id: str,
    attempt: dict[str, Any],
    candidates: list[dict[str, Any]],
    *,
    clock: Clock = utcnow,
) -> int:
    """Record one source's attempt (``attempt["index"]``) and its candidates (dicts of
    name, role, title, email, evidence, source, confidence), replacing what an earlier
    attempt of the same source wrote; a person already confirmed or dismissed from this
    source is not proposed again. The number of candidates it added."""
    index = int(attempt["index"])
    with store.write(clock=clock) as tx:
        task = _fenced(tx, task_id, run_id)
        mine = (C.c.task_id == task_id, C.c.source_index == index, tenancy.scoped(C, tx.conn))
        tx.conn.execute(delete(C).where(*mine, C.c.status == CandidateStatus.NEW.value))
        reviewed = {
            (n.lower(), (e or "").lower())
            for n, e in tx.conn.execute(select(C.c.name, C.c.email).where(*mine)).all()
        }
        fresh = [c for c in candidates if _who(c) not in reviewed]
        for c in fresh:
            tx.conn.execute(
                insert(C).values(
                    tenant_id=tx.tenant, candidate_id=uuid.uuid4().hex[:16], task_id=task_id,
                    job_id=task.job_id, source_index=index, name=c["name"], role=c["role"],
                    title=c.get("title"), email=c.get("email"), evidence=c["evidence"],
                    source=c["source"], confidence=float(c["confidence"]),
                    status=CandidateStatus.NEW.value, created_at=tx.now,
                )
            )  # fmt: skip
        attempts = [a for a in task.attempts if int(a["index"]) != index]
        attempts.append({**attempt, "candidates": len(fresh), "at": tx.now.isoformat()})
        count = tx.conn.execute(
            select(C.c.candidate_id).where(C.c.task_id == task_id, tenancy.scoped(C, tx.conn))
        ).all()
        tx.conn.execute(
            update(T)
            .where(T.c.task_id == task_id, tenancy.scoped(T, tx.conn))
            .values(source_attempts_json=attempts, candidates=len(count))
        )
        return len(fresh)


def _who(candidate: dict[str, Any]) -> tuple[str, str]:
    return str(candidate["name"]).lower(), str(candidate.get("email") or "").lower()


def finish(
    store: Store,
    task_id: str,
    run_id: str,
    status: str,
    error_code: str | None = None,
    *,
    clock: Clock = utcnow,
) -> TaskRow:
    """End the task (fenced; a finished task is returned as it is)."""
    with store.write(clock=clock) as tx:
        task = _task(tx.conn, task_id)
        if task is not None and task.status in (TaskStatus.SUCCEEDED, TaskStatus.FAILED):
            return task
        _fenced(tx, task_id, run_id)
        tx.conn.execute(
            update(T)
            .where(T.c.task_id == task_id, tenancy.scoped(T, tx.conn))
            .values(status=status, error_code=error_code, finished_at=tx.now)
        )
        done = _task(tx.conn, task_id)
        assert done is not None
        return done


def candidate_rows(
    store: Store,
    *,
    task_id: str | None = None,
    job_id: str | None = None,
    candidate_ids: list[str] | None = None,
) -> list[CandidateRow]:
    """Candidates of a task, of a job, or by id; most confident first."""
    with store.read() as conn:
        query = select(C).where(tenancy.scoped(C, conn))
        if task_id is not None:
            query = query.where(C.c.task_id == task_id)
        if job_id is not None:
            query = query.where(C.c.job_id == job_id)
        if candidate_ids is not None:
            query = query.where(C.c.candidate_id.in_(candidate_ids))
        rows = conn.execute(
            query.order_by(C.c.confidence.desc(), C.c.source_index, C.c.name)
        ).mappings()
        return [CandidateRow(**{k: r[k] for k in CandidateRow.__dataclass_fields__}) for r in rows]


def set_candidate_status(
    tx: WriteTx, candidate_id: str, status: str, contact_id: str | None = None
) -> None:
    tx.conn.execute(
        update(C)
        .where(C.c.candidate_id == candidate_id, tenancy.scoped(C, tx.conn))
        .values(status=status, contact_id=contact_id)
    )
