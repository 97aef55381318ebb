"""The application tracker's reads and writes: every application with what the tracker
shows of its job, a posting matched to a job, applications recorded outside jobctrl's
channels (imported from career-ops, or marked by the person), with their events.

The send and prefill lifecycle is ``store.applications`` and ``store.apply_attempts``;
this module never touches an application while an attempt is live, and changes only an
*open* one's status (nothing went out yet: a draft, an approved or failed email, a
prefilled form, a send the person found not sent) — marking it applied or abandoned
keeps jobctrl from applying again.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

from sqlalchemy import Connection, and_, exists, func, select, update

from jobctrl.domain import events as ev
from jobctrl.domain.applications import ApplicationStatus, new_application_id
from jobctrl.domain.ids import canonical_url
from jobctrl.store import apply_attempts, schema, tenancy
from jobctrl.store.application_tables import applications as A
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "OPEN_STATUSES",
    "find_imported",
    "insert_imported",
    "mark_status",
    "match_job",
    "tracker_rows",
    "update_tracked",
]

_S = ApplicationStatus
OPEN_STATUSES = frozenset({_S.DRAFT, _S.APPROVED, _S.FAILED, _S.NOT_SENT, _S.PREFILLED})
J, SC, R, M = schema.jobs, schema.job_scores, schema.report_numbers, schema.materials


def tracker_rows(store: Store) -> list[dict[str, Any]]:
    """Every application, most recently changed first, with its job's title, company,
    URL, score, report number and path, and whether a material PDF exists."""
    with store.read() as conn:
        return [dict(r) for r in conn.execute(_tracker_query(conn)).mappings()]


def _tracker_query(conn: Connection) -> Any:
    has_pdf = exists().where(
        tenancy.scoped(M, conn), M.c.job_id == A.c.job_id, M.c.pdf_artifact.is_not(None)
    )
    # Job ids are unique across tenants: each joined table is kept to the tenant anyway,
    # so no row of another tenant is ever read.
    return (
        select(
            A,
            J.c.title.label("job_title"),
            J.c.company.label("job_company"),
            J.c.url.label("job_url"),
            SC.c.score.label("job_score"),
            R.c.number.label("report_number"),
            R.c.path.label("report_path"),
            has_pdf.label("has_pdf"),
        )
        .select_from(
            A.outerjoin(J, and_(J.c.id == A.c.job_id, tenancy.scoped(J, conn)))
            .outerjoin(SC, and_(SC.c.job_id == A.c.job_id, tenancy.scoped(SC, conn)))
            .outerjoin(R, and_(R.c.job_id == A.c.job_id, tenancy.scoped(R, conn)))
        )
        .where(tenancy.scoped(A, conn))
        .order_by(A.c.updated_at.desc(), A.c.id)
    )


def _norm(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def match_job(conn: Connection, *, url: str | None, company: str, role: str) -> str | None:
    """The job a tracked posting is: by its canonical URL, else the one job whose
    company and title are the same (case and spacing aside); None if none or several."""
    if url:
        found = conn.execute(
            select(J.c.id)
            .where(tenancy.scoped(J, conn), J.c.canonical_url == canonical_url(url))
            .limit(1)
        ).scalar()
        if found:
            return str(found)
    if not _norm(company) or not _norm(role) or company.strip() == "?":
        return None
    rows = conn.execute(
        select(J.c.id, J.c.title).where(
            tenancy.scoped(J, conn), func.lower(J.c.company) == company.strip().lower()
        )
    ).all()
    same = [r.id for r in rows if _norm(r.title) == _norm(role)]
    return str(same[0]) if len(same) == 1 else None


def find_imported(conn: Connection, number: int | None, company: str) -> dict[str, Any] | None:
    """The application imported before from the tracker row ``#number`` of ``company``
    (a row whose company was ``?`` and is now named counts as the same)."""
    if number is None:
        return None
    query = (
        select(A, J.c.company.label("job_company"))
        .select_from(A.outerjoin(J, and_(J.c.id == A.c.job_id, tenancy.scoped(J, conn))))
        .where(tenancy.scoped(A, conn), A.c.tracker.is_not(None))
    )
    for row in conn.execute(query).mappings():
        if str((row["tracker"] or {}).get("num", "")).strip() != str(number):
            continue
        named = row["company"] or row["job_company"]
        if _norm(named) == _norm(company) or (named or "").strip() == "?":
            return {k: v for k, v in row.items() if k != "job_company"}
    return None


def _day(value: date | None) -> datetime | None:
    return datetime.combine(value, time(), tzinfo=UTC) if value else None


def _recorded(
    tx: WriteTx, row: dict[str, Any], status: str, outcome: str | None, source: str
) -> None:
    tx.append(
        ev.ApplicationRecorded(
            application_id=row["id"],
            job_id=row.get("job_id"),
            status=status,
            outcome=outcome,
            source=source,
        ),
        key=f"application-recorded:{row['id']}:{status}:{outcome}:{tx.now.isoformat()}",
    )


def insert_imported(
    tx: WriteTx,
    *,
    company: str,
    role: str,
    url: str | None,
    status: str,
    outcome: str | None,
    notes: str,
    follow_up: date | None,
    score: int | None,
    applied_on: date | None,
    cells: dict[str, str],
) -> str:
    """A tracker row with no job, imported from career-ops; its id."""
    row = {
        "tenant_id": tx.tenant,
        "id": new_application_id(),
        "job_id": None,
        "company": company,
        "role": role,
        "url": url,
        "status": status,
        "outcome": outcome,
        "notes": notes or None,
        "follow_up": follow_up,
        "score": score,
        "applied_at": _day(applied_on) if status == _S.APPLIED else None,
        "source": "career-ops",
        "tracker": cells,
        "created_at": tx.now,
        "updated_at": tx.now,
    }
    tx.conn.execute(A.insert().values(**row))
    _recorded(tx, row, status, outcome, "career-ops")
    return str(row["id"])


def mark_status(
    tx: WriteTx, row: dict[str, Any], status: str, *, source: str, on: date | None = None
) -> bool:
    """Mark an open application ``applied`` or ``abandoned`` (by ``source``: the person or
    career-ops); False, and nothing changed, if it is not open or an attempt is live."""
    if row["status"] == status or row["status"] not in OPEN_STATUSES:
        return False
    if apply_attempts.live_attempt(tx.conn, row["id"]) is not None:
        return False
    values: dict[str, Any] = {"status": status, "error_code": None, "updated_at": tx.now}
    if status == _S.APPLIED and row.get("applied_at") is None:
        values["applied_at"] = _day(on) or tx.now
    changed = tx.conn.execute(
        update(A).where(A.c.tenant_id == tx.tenant, A.c.id == row["id"]).values(**values)
    )
    if not changed.rowcount:  # not this tenant's application
        return False
    row.update(values)
    _recorded(tx, row, status, row.get("outcome"), source)
    return True


def update_tracked(tx: WriteTx, application_id: str, values: dict[str, Any]) -> None:
    """Change an application's tracker fields (notes, follow-up, score, company, role,
    the imported cells); no event: they are the person's own text, never in an event."""
    allowed = {"notes", "follow_up", "score", "company", "role", "url", "tracker", "applied_at"}
    unknown = set(values) - allowed
    if unknown:
        raise ValueError(f"not tracker fields: {sorted(unknown)}")
    if values:
        tx.conn.execute(
            update(A)
            .where(A.c.tenant_id == tx.tenant, A.c.id == application_id)
            .values(**values, updated_at=tx.now)
        )
