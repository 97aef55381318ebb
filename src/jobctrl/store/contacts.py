"""The contacts the person keeps (issue 33): made from confirmed candidates or added by
hand, one per person and company (the same person confirmed for a second job of that
company gains a ``job`` attribute, not a second row), listed, shown and removed.

The read model a page or a command shows is ``ContactRow``: the contact and the jobs it
is a contact for, from ``contact_attributes``. Removing a contact deletes its attributes
and every candidate it was made from: the person's data of a third party is gone.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, delete, func, insert, select, update

from jobctrl.domain.contacts import CandidateStatus, base_domain, host_of
from jobctrl.store import outbound, schema, tenancy
from jobctrl.store.contact_research import set_candidate_status
from jobctrl.store.contact_tables import contact_attributes as A
from jobctrl.store.contact_tables import contact_candidates as C
from jobctrl.store.contact_tables import contacts as P
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "ContactRow",
    "add_contact",
    "confirm_candidates",
    "contact_rows",
    "dismiss_candidates",
    "remove_contact",
]

J = schema.jobs
JOB = "job"


@dataclass(frozen=True)
class ContactRow:
    contact_id: str
    company: str
    name: str
    role: str
    email: str | None
    origin: str
    created_at: datetime
    updated_at: datetime
    jobs: list[str] = field(default_factory=list)
    attributes: dict[str, list[str]] = field(default_factory=dict)


def _find(conn: Connection, company: str, name: str, email: str | None) -> str | None:
    """The contact already kept for this person at this company (same email, or the same
    name when either has no email)."""
    rows = conn.execute(
        select(P.c.contact_id, P.c.name, P.c.email).where(
            func.lower(P.c.company) == company.lower(), tenancy.scoped(P, conn)
        )
    ).all()
    for contact_id, kept_name, kept_email in rows:
        if email and kept_email and kept_email.lower() == email.lower():
            return str(contact_id)
        if kept_name.lower() == name.lower() and not (email and kept_email):
            return str(contact_id)
    return None


def _attribute(tx: WriteTx, contact_id: str, name: str, value: str | None) -> None:
    if not value:
        return
    exists = tx.conn.execute(
        select(A.c.contact_id).where(
            A.c.contact_id == contact_id, A.c.name == name, A.c.value == value,
            tenancy.scoped(A, tx.conn),
        )
    ).first()  # fmt: skip
    if exists is None:
        tx.conn.execute(
            insert(A).values(
                tenant_id=tx.tenant, contact_id=contact_id, name=name, value=value,
                created_at=tx.now,
            )
        )  # fmt: skip


def _keep(tx: WriteTx, company: str, name: str, role: str, email: str | None, origin: str) -> str:
    found = _find(tx.conn, company, name, email)
    if found is not None:
        values = {"updated_at": tx.now, **({"email": email} if email else {})}
        tx.conn.execute(
            update(P).where(P.c.contact_id == found, tenancy.scoped(P, tx.conn)).values(**values)
        )
        return found
    contact_id = uuid.uuid4().hex[:16]
    tx.conn.execute(
        insert(P).values(
            tenant_id=tx.tenant, contact_id=contact_id, company=company, name=name, role=role,
            email=email, origin=origin, created_at=tx.now, updated_at=tx.now,
        )
    )  # fmt: skip
    return contact_id


def add_contact(
    store: Store,
    *,
    company: str,
    name: str,
    role: str,
    email: str | None,
    job_id: str | None = None,
    note: str | None = None,
) -> str:
    """Keep someone the person knows (or the one kept already); its id."""
    with store.write() as tx:
        contact_id = _keep(tx, company, name, role, email, "added")
        _attribute(tx, contact_id, JOB, job_id)
        _attribute(tx, contact_id, "note", note)
        return contact_id


def _company_of(conn: Connection, job_id: str) -> str:
    """The job's company, or the posting's site when the posting named none."""
    row = conn.execute(
        select(J.c.company, J.c.url).where(J.c.id == job_id, tenancy.scoped(J, conn))
    ).first()
    if row is None:
        return "(company unknown)"
    return str(row.company or "").strip() or base_domain(host_of(row.url)) or "(company unknown)"


def confirm_candidates(store: Store, candidate_ids: list[str]) -> dict[str, str]:
    """Each candidate (new or dismissed) becomes a contact of its job's company, or joins
    the one kept for that person; candidate id -> contact id (unknown ids are left out)."""
    made: dict[str, str] = {}
    with store.write() as tx:
        rows = tx.conn.execute(
            select(C).where(C.c.candidate_id.in_(candidate_ids), tenancy.scoped(C, tx.conn))
        ).mappings()
        for row in list(rows):
            if row["status"] == CandidateStatus.CONFIRMED and row["contact_id"]:
                made[row["candidate_id"]] = row["contact_id"]
                continue
            company = _company_of(tx.conn, row["job_id"])
            contact_id = _keep(tx, company, row["name"], row["role"], row["email"], "research")
            _attribute(tx, contact_id, JOB, row["job_id"])
            _attribute(tx, contact_id, "evidence", row["evidence"])
            _attribute(tx, contact_id, "source", row["source"])
            set_candidate_status(
                tx, row["candidate_id"], CandidateStatus.CONFIRMED.value, contact_id
            )
            made[row["candidate_id"]] = contact_id
    return made


def dismiss_candidates(store: Store, candidate_ids: list[str]) -> list[str]:
    """Dismiss the candidates not confirmed; the ids dismissed."""
    with store.write() as tx:
        ids = list(
            tx.conn.execute(
                select(C.c.candidate_id).where(
                    C.c.candidate_id.in_(candidate_ids),
                    C.c.status != CandidateStatus.CONFIRMED.value,
                    tenancy.scoped(C, tx.conn),
                )
            ).scalars()
        )
        for candidate_id in ids:
            set_candidate_status(tx, candidate_id, CandidateStatus.DISMISSED.value)
        return ids


def contact_rows(
    store: Store,
    *,
    company: str | None = None,
    job_id: str | None = None,
    contact_ids: list[str] | None = None,
) -> list[ContactRow]:
    """The contacts (of a company, for a job, or by id), by company then name."""
    with store.read() as conn:
        query = select(P).where(tenancy.scoped(P, conn))
        if company is not None:
            query = query.where(func.lower(P.c.company) == company.strip().lower())
        if contact_ids is not None:
            query = query.where(P.c.contact_id.in_(contact_ids))
        if job_id is not None:
            linked = select(A.c.contact_id).where(
                A.c.name == JOB, A.c.value == job_id, tenancy.scoped(A, conn)
            )
            query = query.where(P.c.contact_id.in_(linked))
        rows = list(conn.execute(query.order_by(P.c.company, P.c.name)).mappings())
        attrs: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        if rows:
            found = conn.execute(
                select(A.c.contact_id, A.c.name, A.c.value)
                .where(A.c.contact_id.in_([r["contact_id"] for r in rows]), tenancy.scoped(A, conn))
                .order_by(A.c.created_at, A.c.value)
            ).all()
            for contact_id, name, value in found:
                attrs[contact_id][name].append(value)
    return [
        ContactRow(
            contact_id=r["contact_id"], company=r["company"], name=r["name"], role=r["role"],
            email=r["email"], origin=r["origin"], created_at=r["created_at"],
            updated_at=r["updated_at"], jobs=list(attrs[r["contact_id"]].get(JOB, [])),
            attributes={k: list(v) for k, v in attrs[r["contact_id"]].items()},
        )
        for r in rows
    ]  # fmt: skip


def remove_contact(store: Store, contact_id: str) -> bool:
    """Delete the contact, its attributes, the candidates it was made from and the outreach
    messages to them; False when there was no such contact."""
    with store.write() as tx:
        gone = tx.conn.execute(
            delete(P).where(P.c.contact_id == contact_id, tenancy.scoped(P, tx.conn))
        ).rowcount
        tx.conn.execute(delete(A).where(A.c.contact_id == contact_id, tenancy.scoped(A, tx.conn)))
        tx.conn.execute(delete(C).where(C.c.contact_id == contact_id, tenancy.scoped(C, tx.conn)))
        outbound.forget(tx, contact_id=contact_id)  # the messages to them, address and text
        return bool(gone)
