"""Deleting a job: every row that holds it (stages, score, materials, truth checks, its
application, listings, events and projections), and the stored files (fetched page,
text, PDFs, score report) no other job uses, in one write; one ``JobDeleted`` event is
the audit trail (the id and counts, no content).

What stays: the spend it cost (money already spent), its report number (numbers are
never reused; its report file is removed) and, if the person hid it, the hide, so the
posting stays hidden when discovery finds it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Table, Text, delete, func, select, update

from jobctrl.domain.applications import LIVE_ATTEMPT_STATES
from jobctrl.domain.errors import APPLY_ATTEMPT_LIVE, JOB_NOT_FOUND, STAGE_BUSY, JobctrlError
from jobctrl.domain.events import JobDeleted
from jobctrl.domain.stages import StageState
from jobctrl.store import outbound, schema, tenancy
from jobctrl.store.application_tables import applications as A
from jobctrl.store.application_tables import apply_attempts as T
from jobctrl.store.application_tables import apply_claims as C
from jobctrl.store.contact_tables import (
    contact_attributes,
    contact_candidates,
    contact_research_tasks,
)
from jobctrl.store.hidden import hidden_in
from jobctrl.store.operations_tables import public_fetch_rechecks
from jobctrl.store.store import Store, WriteTx
from jobctrl.store.truth_tables import truth_checks

__all__ = ["Deleted", "delete_job"]

J, S, M, SC = schema.jobs, schema.job_stage_states, schema.materials, schema.job_scores

# Every table with a row per job (``job_id``), children before their parents.
_JOB_ROWS: tuple[Table, ...] = (
    C,
    truth_checks,
    M,
    schema.provider_results,
    SC,
    S,
    schema.source_observations,
    schema.discovery_execution_jobs,
    schema.start_intents,
    public_fetch_rechecks,
    contact_candidates,  # the people research found for it (a kept contact stays)
    contact_research_tasks,
    schema.workflow_run_projections,
    schema.job_list_projections,
)
E = schema.job_events


@dataclass(frozen=True)
class Deleted:
    """What a delete removed: rows, the files it may now remove, whether it stays hidden."""

    rows: int
    artifacts: list[str]
    report: Path | None
    hidden: bool


def delete_job(store: Store, job_id: str) -> Deleted:
    """Delete ``job_id`` and what only it uses; refused while one of its stages runs or
    a send or prefill of its application is live. The files are unlinked after the
    write commits (a crash in between leaves a file nothing refers to, never a row
    referring to no file)."""
    with store.write() as tx:
        job = (
            tx.conn.execute(select(J).where(J.c.id == job_id, tenancy.scoped(J, tx.conn)))
            .mappings()
            .first()
        )
        if job is None:
            raise JobctrlError(f"no job {job_id!r}", code=JOB_NOT_FOUND)
        _refuse_busy(tx, job_id)
        hidden = hidden_in(tx.conn, job_id) is not None
        shas = _artifacts_of(tx, job)
        rows = _delete_rows(tx, job_id)
        report = _forget_report(tx, job_id)
        unused = [sha for sha in sorted(shas) if not _referenced(tx, sha)]
        if unused:
            tx.conn.execute(delete(schema.artifacts).where(schema.artifacts.c.sha256.in_(unused)))
        # The audit event first, its earlier events after: it takes the next number while
        # they still hold theirs (SQLite numbers a row max + 1: deleting the log's tail
        # first would hand out numbers already folded, and the projections would skip
        # the events that got them).
        mine = (E.c.job_id == job_id, tenancy.scoped(E, tx.conn), E.c.type != JobDeleted.type)
        rows += tx.conn.execute(select(func.count()).select_from(E).where(*mine)).scalar_one()
        tx.append(
            JobDeleted(job_id=job_id, rows=rows, artifacts=len(unused), hidden=hidden),
            key=f"job-deleted:{job_id}:{tx.now.isoformat()}",
        )
        tx.conn.execute(delete(E).where(*mine))
    for sha in unused:
        store.artifacts.path_for(sha).unlink(missing_ok=True)
    if report is not None:
        (store.artifacts.root.parent / report).unlink(missing_ok=True)
    return Deleted(rows, unused, report, hidden)


def _refuse_busy(tx: WriteTx, job_id: str) -> None:
    running = tx.conn.execute(
        select(S.c.stage).where(
            S.c.job_id == job_id,
            tenancy.scoped(S, tx.conn),
            S.c.state == StageState.RUNNING.value,
        )
    ).first()
    if running is not None:
        raise JobctrlError(
            f"job {job_id}'s {running.stage} stage is running: `jobctrl cancel {job_id}` "
            "first, then delete it",
            code=STAGE_BUSY,
        )
    live = tx.conn.execute(
        select(T.c.id)
        .select_from(T.join(A, A.c.id == T.c.application_id))
        .where(
            A.c.job_id == job_id,
            tenancy.scoped(A, tx.conn),
            tenancy.scoped(T, tx.conn),
            T.c.state.in_([s.value for s in LIVE_ATTEMPT_STATES]),
        )
    ).first()
    if live is not None:
        raise JobctrlError(
            f"job {job_id}'s application is being sent or filled in right now",
            code=APPLY_ATTEMPT_LIVE,
        )


def _artifacts_of(tx: WriteTx, job: Any) -> set[str]:
    """The files the job's rows refer to: its page and text, score report, material PDFs
    and its application's attachments."""
    job_id = job["id"]
    shas = {job["raw_artifact"], job["text_artifact"]}
    shas |= set(
        tx.conn.execute(
            select(SC.c.report_artifact).where(SC.c.job_id == job_id, tenancy.scoped(SC, tx.conn))
        ).scalars()
    )
    shas |= set(
        tx.conn.execute(
            select(M.c.pdf_artifact).where(M.c.job_id == job_id, tenancy.scoped(M, tx.conn))
        ).scalars()
    )
    for attachments in tx.conn.execute(
        select(A.c.attachments).where(A.c.job_id == job_id, tenancy.scoped(A, tx.conn))
    ).scalars():
        shas |= {a.get("sha256") for a in attachments or [] if isinstance(a, dict)}
    return {sha for sha in shas if sha}


def _delete_rows(tx: WriteTx, job_id: str) -> int:
    count = 0
    applications = list(
        tx.conn.execute(
            select(A.c.id).where(A.c.job_id == job_id, tenancy.scoped(A, tx.conn))
        ).scalars()
    )
    if applications:
        count += tx.conn.execute(
            delete(T).where(T.c.application_id.in_(applications), tenancy.scoped(T, tx.conn))
        ).rowcount
    count += outbound.forget(tx, job_id=job_id)  # its follow-ups and outreach
    for table in _JOB_ROWS:
        count += tx.conn.execute(
            delete(table).where(table.c.job_id == job_id, tenancy.scoped(table, tx.conn))
        ).rowcount
    # A contact kept for the company stays, no longer a contact for this job.
    CA = contact_attributes
    count += tx.conn.execute(
        delete(CA).where(CA.c.name == "job", CA.c.value == job_id, tenancy.scoped(CA, tx.conn))
    ).rowcount
    count += tx.conn.execute(
        delete(A).where(A.c.job_id == job_id, tenancy.scoped(A, tx.conn))
    ).rowcount
    count += tx.conn.execute(delete(J).where(J.c.id == job_id, tenancy.scoped(J, tx.conn))).rowcount
    return count


def _forget_report(tx: WriteTx, job_id: str) -> Path | None:
    """The report file's path (relative to the home), now no row's; its number is kept
    (numbers are never reused)."""
    rn = schema.report_numbers
    path = tx.conn.execute(
        select(rn.c.path).where(rn.c.job_id == job_id, tenancy.scoped(rn, tx.conn))
    ).scalar()
    tx.conn.execute(
        update(rn).where(rn.c.job_id == job_id, tenancy.scoped(rn, tx.conn)).values(path=None)
    )
    return Path(path) if path else None


def _referenced(tx: WriteTx, sha: str) -> bool:
    """Whether any row of any tenant still refers to ``sha`` (artifacts are shared)."""
    checks = (
        select(J.c.id).where((J.c.raw_artifact == sha) | (J.c.text_artifact == sha)),
        select(SC.c.job_id).where(SC.c.report_artifact == sha),
        select(M.c.id).where(M.c.pdf_artifact == sha),
    )
    for query in checks:
        if tx.conn.execute(tenancy.all_tenants(query.limit(1))).first() is not None:
            return True
    # Attachments are a JSON list: matched as text (a hash cannot be part of another).
    attached = select(A.c.id).where(A.c.attachments.cast(Text).contains(sha)).limit(1)
    return tx.conn.execute(tenancy.all_tenants(attached)).first() is not None
