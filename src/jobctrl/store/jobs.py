"""Jobs: creation (with their first stage rows), what stages save on the job (extracted
fields, the score), and reads of a job as a whole. Stage rows and their fenced
transitions are ``store.stage_states``.

Every statement keeps to the store's tenant. Job ids are unique across tenants (the
idempotency key is salted with the tenant), so job-keyed rows need no tenant in their
keys; ``create_job_in`` refuses the rare id another tenant already holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row, bindparam, select, update

from jobctrl.domain import ids
from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import (
    AMBIGUOUS_JOB,
    EXISTS,
    JOB_NOT_FOUND,
    JobctrlError,
    NotFoundError,
)
from jobctrl.domain.events import JobCreated
from jobctrl.domain.stages import PREPARATION_STAGES
from jobctrl.store import schema, stage_states, tenancy
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
    key = ids.idempotency_key(canonical, tx.tenant)
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
            "tenant_id": tx.tenant,
        },
        keys=["id"],
    ).rowcount
    if not created:
        _check_same_job(tx, job_id, key)
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


# Which posting holds an id, in whichever tenant: only to refuse a collision.
_HOLDER = tenancy.all_tenants(
    select(J.c.idempotency_key, J.c.tenant_id).where(J.c.id == bindparam("job_id"))
)


def _check_same_job(tx: WriteTx, job_id: str, key: str) -> None:
    """The existing job ``job_id`` is this posting in this tenant; never another's job.

    Ids are 48 bits of the tenant-salted key: two postings (or one in two tenants)
    sharing an id is improbable (about 2e-5 at 100k jobs) but is refused, not merged."""
    holder = tx.conn.execute(_HOLDER, {"job_id": job_id}).first()
    if holder is not None and (holder.idempotency_key, holder.tenant_id) != (key, tx.tenant):
        raise JobctrlError(
            f"job id {job_id} is already taken by another posting; this one cannot be added",
            code=EXISTS,
        )


# -- what stages save on the job -----------------------------------------------------------


def record_enrichment(tx: WriteTx, job_id: str, fields: dict[str, Any], method: str) -> None:
    """The posting's extracted fields and artifact references, as Enrich read them."""
    tx.conn.execute(
        update(J)
        .where(J.c.id == job_id, tenancy.scoped(J, tx.conn))
        .values(**fields, extraction_method=method, updated_at=tx.now)
    )


def save_score(tx: WriteTx, job_id: str, run_id: str, **values: Any) -> None:
    """The job's score and requirement-fit report (a rescore replaces them)."""
    row = {**values, "owner_run_id": run_id, "created_at": tx.now}
    new = {"job_id": job_id, "tenant_id": tx.tenant, **row}
    upsert(tx.conn, schema.job_scores, new, keys=["job_id"], update=list(row))


# -- reads ---------------------------------------------------------------------------------


MIN_PREFIX = 4  # characters of a job id that may name it
_CANDIDATES_SHOWN = 8


def resolve_job_id(store: Store, ref: str) -> str:
    """A job id from a full id or a unique prefix of at least ``MIN_PREFIX`` characters.

    A shorter prefix, or one several jobs share, is refused with the jobs it could mean
    (issue 30: `show 196` said "no job" when 196d31a53913 existed)."""
    ref = ref.strip().lower()
    with store.read() as conn:
        mine = tenancy.scoped(J, conn)
        if conn.execute(select(J.c.id).where(J.c.id == ref, mine)).first():
            return ref
        matches: Sequence[Row[Any, Any, Any]] = ()
        if ref:
            prefixed = J.c.id.startswith(ref, autoescape=True)
            query = select(J.c.id, J.c.title, J.c.company).where(prefixed, mine).order_by(J.c.id)
            matches = conn.execute(query.limit(_CANDIDATES_SHOWN + 1)).all()
    if len(ref) >= MIN_PREFIX and len(matches) == 1:
        return str(matches[0].id)
    if not matches:
        raise NotFoundError(f"no job {ref!r} (see `jobctrl jobs`)", code=JOB_NOT_FOUND)
    if len(ref) < MIN_PREFIX:
        why = f"{ref!r} is too short: give at least {MIN_PREFIX} characters of the job id"
    else:
        why = f"{ref!r} names more than one job: give more of the id"
    raise NotFoundError(f"{why}; it could be {_candidates(matches)}", code=AMBIGUOUS_JOB)


def _candidates(rows: Sequence[Row[Any, Any, Any]]) -> str:
    shown = []
    for row in rows[:_CANDIDATES_SHOWN]:
        what = " at ".join(str(v) for v in (row.title, row.company) if v)
        shown.append(f"{row.id} ({what})" if what else str(row.id))
    more = " and more" if len(rows) > _CANDIDATES_SHOWN else ""
    return ", ".join(shown) + more


_JS = schema.job_scores
_JOB = select(J).where(J.c.id == bindparam("job_id"), J.c.tenant_id == tenancy.tenant_param())
_SCORE = select(_JS).where(
    _JS.c.job_id == bindparam("job_id"), _JS.c.tenant_id == tenancy.tenant_param()
)


def _params(conn: Connection, job_id: str) -> dict[str, str]:
    return {"job_id": job_id, tenancy.TENANT_PARAM: tenancy.tenant_of(conn)}


def _job_row(conn: Connection, job_id: str) -> dict[str, Any]:
    row = conn.execute(_JOB, _params(conn, job_id)).mappings().first()
    if row is None:
        raise NotFoundError(f"no job {job_id!r}", code=JOB_NOT_FOUND)
    return dict(row)


def _score_row(conn: Connection, job_id: str) -> dict[str, Any] | None:
    row = conn.execute(_SCORE, _params(conn, job_id)).mappings().first()
    return dict(row) if row else None


def has_text_artifact(store: Store, sha: str) -> bool:
    """Whether ``sha`` is the extracted text of one of the tenant's jobs (artifacts are
    shared by every tenant: a text is read only through a job of its own)."""
    with store.read() as conn:
        found = conn.execute(
            select(J.c.id).where(J.c.text_artifact == sha, tenancy.scoped(J, conn)).limit(1)
        ).first()
    return found is not None


def job_row(store: Store, job_id: str) -> dict[str, Any]:
    with store.read() as conn:
        return _job_row(conn, job_id)


def fit_summaries(store: Store, job_ids: list[str]) -> dict[str, str]:
    """Each scored job's one-line fit reason (its report's ``fit_summary``; a report from
    before issue 29 has none until it is rescored)."""
    if not job_ids:
        return {}
    summary = _JS.c.report["fit_summary"].as_string()
    with store.read() as conn:
        query = select(_JS.c.job_id, summary).where(
            tenancy.scoped(_JS, conn), _JS.c.job_id.in_(job_ids)
        )
        return {job_id: text for job_id, text in conn.execute(query) if text}


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
        report = (
            conn.execute(select(rn).where(rn.c.job_id == job_id, tenancy.scoped(rn, conn)))
            .mappings()
            .first()
        )
        status = conn.execute(
            select(jl.c.status).where(jl.c.job_id == job_id, tenancy.scoped(jl, conn))
        ).scalar()
        return JobRecord(
            job,
            stage_states.read_rows(conn, job_id),
            _score_row(conn, job_id),
            dict(report) if report else None,
            status,
        )
