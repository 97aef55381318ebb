"""Jobs: creation (with their first stage rows), what stages save on the job (extracted
fields, the score), and reads of a job as a whole. Stage rows and their fenced
transitions are ``store.stage_states``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from jobctrl.domain import ids
from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import AMBIGUOUS_JOB, JOB_NOT_FOUND, NotFoundError
from jobctrl.domain.events import JobCreated
from jobctrl.domain.stages import PREPARATION_STAGES
from jobctrl.store import schema, stage_states
from jobctrl.store.db import upsert
from jobctrl.store.store import Store, WriteTx

J = schema.jobs


@dataclass(frozen=True)
class NewJob:
    job_id: str
    idempotency_key: str
    canonical_url: str
    created: bool


def create_job(
    store: Store, url: str, *, source: str = "manual", clock: Clock | None = None
) -> NewJob:
    with store.write(clock=clock) as tx:
        return create_job_in(tx, url, source=source)


def create_job_in(tx: WriteTx, url: str, *, source: str = "manual") -> NewJob:
    """``create_job`` inside the caller's transaction (discovery links and observes the
    job in the same one)."""
    canonical = ids.canonical_url(url)
    key = ids.idempotency_key(canonical)
    job_id = ids.job_id_for(key)
    created = upsert(
        tx.conn,
        J,
        {
            "id": job_id,
            "idempotency_key": key,
            "url": url.strip(),
            "canonical_url": canonical,
            "source": source,
            "created_at": tx.now,
            "updated_at": tx.now,
        },
        keys=["id"],
    ).rowcount
    stage_states.ensure_stages(tx, job_id, PREPARATION_STAGES)
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


# -- what stages save on the job -----------------------------------------------------------


def record_enrichment(tx: WriteTx, job_id: str, fields: dict[str, Any], method: str) -> None:
    """The posting's extracted fields and artifact references, as Enrich read them."""
    tx.conn.execute(
        update(J)
        .where(J.c.id == job_id)
        .values(**fields, extraction_method=method, updated_at=tx.now)
    )


def save_score(tx: WriteTx, job_id: str, run_id: str, **values: Any) -> None:
    """The job's score and requirement-fit report (a rescore replaces them)."""
    row = {**values, "owner_run_id": run_id, "created_at": tx.now}
    upsert(tx.conn, schema.job_scores, {"job_id": job_id, **row}, keys=["job_id"], update=list(row))


# -- reads ---------------------------------------------------------------------------------


def resolve_job_id(store: Store, ref: str) -> str:
    """A job id from a full id or a unique prefix of at least 4 characters."""
    ref = ref.strip().lower()
    with store.read() as conn:
        if conn.execute(select(J.c.id).where(J.c.id == ref)).first():
            return ref
        if len(ref) >= 4:
            matches = (
                conn.execute(select(J.c.id).where(J.c.id.startswith(ref, autoescape=True)).limit(2))
                .scalars()
                .all()
            )
            if len(matches) == 1:
                return str(matches[0])
            if len(matches) > 1:
                raise NotFoundError(f"job prefix {ref!r} is ambiguous", code=AMBIGUOUS_JOB)
    raise NotFoundError(f"no job {ref!r} (see `jobctrl jobs`)", code=JOB_NOT_FOUND)


_JOB = select(J).where(J.c.id == bindparam("job_id"))
_SCORE = select(schema.job_scores).where(schema.job_scores.c.job_id == bindparam("job_id"))


def _job_row(conn: Connection, job_id: str) -> dict[str, Any]:
    row = conn.execute(_JOB, {"job_id": job_id}).mappings().first()
    if row is None:
        raise NotFoundError(f"no job {job_id!r}", code=JOB_NOT_FOUND)
    return dict(row)


def _score_row(conn: Connection, job_id: str) -> dict[str, Any] | None:
    row = conn.execute(_SCORE, {"job_id": job_id}).mappings().first()
    return dict(row) if row else None


def job_row(store: Store, job_id: str) -> dict[str, Any]:
    with store.read() as conn:
        return _job_row(conn, job_id)


def score_row(store: Store, job_id: str) -> dict[str, Any] | None:
    with store.read() as conn:
        return _score_row(conn, job_id)


@dataclass(frozen=True)
class JobRecord:
    """Everything the store knows of one job, read in one go: the job row, its stage rows
    (pipeline order), its score row, its evaluation report's number and path, and its
    status in the job list (None before the list has folded its creation)."""

    job: dict[str, Any]
    stages: list[dict[str, Any]]
    score: dict[str, Any] | None
    report: dict[str, Any] | None
    status: str | None


def job_record(store: Store, job_id: str) -> JobRecord:
    rn, jl = schema.report_numbers, schema.job_list_projections
    with store.read() as conn:
        job = _job_row(conn, job_id)
        report = conn.execute(select(rn).where(rn.c.job_id == job_id)).mappings().first()
        status = conn.execute(select(jl.c.status).where(jl.c.job_id == job_id)).scalar()
        return JobRecord(
            job,
            stage_states.read_rows(conn, job_id),
            _score_row(conn, job_id),
            dict(report) if report else None,
            status,
        )
