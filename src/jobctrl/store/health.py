"""What the health check (`jobctrl doctor`) reads from the database: its integrity, its
schema revision against the newest migration, and the artifact files the tenant's rows
refer to whose file is missing from the home."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, String, literal, select, union_all

from jobctrl.domain.clock import as_utc
from jobctrl.domain.health import RETENTION_SETTING
from jobctrl.store import schema, tenancy
from jobctrl.store.db import current_revision, head_revision
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.store.workflow_runs import OPEN

__all__ = [
    "MissingArtifact",
    "SchemaState",
    "integrity_problem",
    "missing_artifacts",
    "open_runs_started_before",
    "retention_days",
    "schema_state",
    "write_lock_held",
]


def retention_days(store: Store) -> int:
    """``temporal.retention_days``: the days a finished run's history is wanted kept."""
    return int(Settings(store).get(RETENTION_SETTING))


def integrity_problem(store: Store) -> str | None:
    """SQLite's ``PRAGMA quick_check`` first line when it is not ``ok`` (a damaged page,
    a broken index); None when the database is sound. PostgreSQL keeps its own pages
    consistent: a query that answers is all that is asked of it."""
    with store.read() as conn:
        if conn.dialect.name != "sqlite":
            conn.exec_driver_sql("SELECT 1").scalar()
            return None
        rows = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA quick_check").all()]
    return None if rows == ["ok"] else (rows[0] if rows else "no answer")


def write_lock_held(store: Store, wait_seconds: float = 1.0) -> bool:
    """Whether another process holds SQLite's write lock for ``wait_seconds`` on end:
    every change waits on it (and gives up with ``database_busy``). Asked on a connection
    of its own (BEGIN IMMEDIATE, rolled back at once), not the store's, whose writers wait
    the full busy timeout. PostgreSQL: False (its writers queue on row locks)."""
    url = store.writer.url
    if url.get_backend_name() != "sqlite" or not url.database:
        return False
    db = sqlite3.connect(url.database, timeout=wait_seconds)
    try:
        db.execute("BEGIN IMMEDIATE")
        db.rollback()
        return False
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return True
        raise
    finally:
        db.close()


@dataclass(frozen=True)
class SchemaState:
    current: str | None
    newest: str

    @property
    def up_to_date(self) -> bool:
        return self.current == self.newest


def schema_state(store: Store) -> SchemaState:
    with store.read() as conn:
        return SchemaState(current_revision(conn), head_revision())


@dataclass(frozen=True)
class MissingArtifact:
    sha256: str
    what: str  # posting_page | posting_text | fit_report | pdf
    job_id: str


def missing_artifacts(store: Store, *, limit: int = 50) -> tuple[int, list[MissingArtifact]]:
    """(how many, the first ``limit``) of the tenant's artifact references whose file is
    not in the home's artifact store: a posting's page or text, a fit report, a PDF."""
    jobs, scores, materials = schema.jobs, schema.job_scores, schema.materials
    with store.read() as conn:
        rows = conn.execute(
            union_all(
                select(jobs.c.raw_artifact, _kind("posting_page"), jobs.c.id).where(
                    jobs.c.raw_artifact.is_not(None), tenancy.scoped(jobs, conn)
                ),
                select(jobs.c.text_artifact, _kind("posting_text"), jobs.c.id).where(
                    jobs.c.text_artifact.is_not(None), tenancy.scoped(jobs, conn)
                ),
                select(scores.c.report_artifact, _kind("fit_report"), scores.c.job_id).where(
                    tenancy.scoped(scores, conn)
                ),
                select(materials.c.pdf_artifact, _kind("pdf"), materials.c.job_id).where(
                    materials.c.pdf_artifact.is_not(None), tenancy.scoped(materials, conn)
                ),
            )
        ).all()
    seen: set[tuple[str, str]] = set()
    missing: list[MissingArtifact] = []
    for sha, what, job_id in rows:
        if (sha, job_id) in seen:
            continue
        seen.add((sha, job_id))
        if not store.artifacts.path_for(sha).exists():
            missing.append(MissingArtifact(sha, what, job_id))
    return len(missing), missing[:limit]


def _kind(name: str) -> ColumnElement[str]:
    return literal(name, String)


def open_runs_started_before(store: Store, before: datetime) -> list[dict[str, Any]]:
    """The runs the store holds open (``workflow_run_projections`` and ``discovery_runs``)
    that started before ``before``, oldest first, as rows (workflow_id, run_id,
    started_at): those whose history may be gone before the store learns how they ended."""
    wr, dr = schema.workflow_run_projections, schema.discovery_runs
    with store.read() as conn:
        rows = conn.execute(
            union_all(
                select(wr.c.workflow_id, wr.c.run_id, wr.c.started_at).where(
                    tenancy.scoped(wr, conn), wr.c.status.in_(OPEN), wr.c.started_at < before
                ),
                select(dr.c.workflow_id, dr.c.run_id, dr.c.started_at).where(
                    tenancy.scoped(dr, conn), dr.c.status.in_(OPEN), dr.c.started_at < before
                ),
            )
        ).all()
    unique = {(r.workflow_id, r.run_id): r._asdict() for r in rows}
    return sorted(unique.values(), key=lambda r: as_utc(r["started_at"]))
