"""Outbound messages (follow-ups and outreach): every write with its event.

A message's email (recipients, subject, body, threading headers) lives only here. An
approval records the digest of what it approved and until when; a change clears it. The
send attempts are ``store.outbound_attempts``; the follow-ups due are found by
``due_followups`` (one query, read by the CLI, the API and the heartbeat's scan).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, delete, func, or_, select, update

from jobctrl.domain import events as ev
from jobctrl.domain.applications import Resolution, sha256_text
from jobctrl.domain.errors import (
    APPLY_BAD_RESOLUTION,
    APPLY_NOT_PREPARED,
    JobctrlError,
    NotFoundError,
)
from jobctrl.domain.followups import (
    APPLIED_STATUSES,
    NO_ANSWER_YET,
    OutboundKind,
    OutboundStatus,
    new_outbound_id,
)
from jobctrl.store import approvals, tenancy
from jobctrl.store.application_tables import applications as A
from jobctrl.store.outbound_tables import outbound_attempts as T
from jobctrl.store.outbound_tables import outbound_messages as O
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "COUNTED",
    "approve",
    "by_id",
    "due_followups",
    "event_ids",
    "followup_counts",
    "followups_of",
    "forget",
    "latest",
    "require",
    "resolve",
    "save_draft",
    "thread",
]

# Statuses of a message that went out (or may have): it counts, and it is not re-sent.
COUNTED = (OutboundStatus.SENT.value, OutboundStatus.UNKNOWN.value)


def _one(conn: Connection, *where: Any) -> dict[str, Any] | None:
    row = conn.execute(select(O).where(tenancy.scoped(O, conn), *where)).mappings().first()
    return dict(row) if row else None


def by_id(store: Store, outbound_id: str) -> dict[str, Any] | None:
    with store.read() as conn:
        return _one(conn, O.c.id == outbound_id)


def require(tx: WriteTx, outbound_id: str) -> dict[str, Any]:
    row = _one(tx.conn, O.c.id == outbound_id)
    if row is None:
        raise NotFoundError(f"no message {outbound_id}", code=APPLY_NOT_PREPARED)
    return row


def followups_of(conn: Connection, application_id: str) -> list[dict[str, Any]]:
    """The application's follow-ups, first first."""
    rows = conn.execute(
        select(O)
        .where(
            tenancy.scoped(O, conn),
            O.c.kind == OutboundKind.FOLLOWUP.value,
            O.c.application_id == application_id,
        )
        .order_by(O.c.sequence, O.c.created_at)
    ).mappings()
    return [dict(r) for r in rows]


def thread(
    conn: Connection,
    kind: str,
    *,
    application_id: str | None = None,
    contact_id: str | None = None,
    job_id: str | None = None,
) -> list[dict[str, Any]]:
    """The messages of ``kind`` for the application (or the contact and job), first
    first: a first message and its follow-ups."""
    where = [tenancy.scoped(O, conn), O.c.kind == kind]
    if application_id is not None:
        where.append(O.c.application_id == application_id)
    if contact_id is not None:
        where.append(O.c.contact_id == contact_id)
    if job_id is not None:
        where.append(O.c.job_id == job_id)
    rows = conn.execute(select(O).where(*where).order_by(O.c.sequence, O.c.created_at))
    return [dict(r) for r in rows.mappings()]


def latest(
    conn: Connection,
    kind: str,
    *,
    application_id: str | None = None,
    contact_id: str | None = None,
    job_id: str | None = None,
) -> dict[str, Any] | None:
    """The newest message of ``kind`` for the application (or the contact and job)."""
    found = thread(conn, kind, application_id=application_id, contact_id=contact_id, job_id=job_id)
    return found[-1] if found else None


def event_ids(row: dict[str, Any]) -> dict[str, Any]:
    """The ids an outbound message's events carry."""
    return {
        "outbound_id": row["id"],
        "kind": row["kind"],
        "job_id": row["job_id"],
        "application_id": row["application_id"],
        "contact_id": row["contact_id"],
    }


def _withdrawn_values() -> dict[str, Any]:
    return {
        "status": OutboundStatus.DRAFT.value,
        "approval_digest": None,
        "approved_at": None,
        "approval_expires_at": None,
        "message_id": None,
        "error_code": None,
    }


def save_draft(
    tx: WriteTx,
    *,
    kind: str,
    channel: str,
    to: Sequence[str],
    subject: str,
    body: str,
    outbound_id: str | None = None,
    job_id: str | None = None,
    application_id: str | None = None,
    contact_id: str | None = None,
    sequence: int = 1,
    in_reply_to: str | None = None,
    references: str | None = None,
) -> dict[str, Any]:
    """Write a new draft, or change the open one ``outbound_id``: a message that differs
    from the saved one clears any approval (a new one is needed). The row."""
    values: dict[str, Any] = {
        "channel": channel,
        "email_to": list(to),
        "email_subject": subject,
        "email_body": body,
        "in_reply_to": in_reply_to,
        "thread_references": references,
    }
    if outbound_id is None:
        row = {
            "tenant_id": tx.tenant,
            "id": new_outbound_id(),
            "kind": kind,
            "job_id": job_id,
            "application_id": application_id,
            "contact_id": contact_id,
            "sequence": sequence,
            "status": OutboundStatus.DRAFT.value,
            "created_at": tx.now,
            "updated_at": tx.now,
            **values,
        }
        tx.conn.execute(O.insert().values(**row))
    else:
        row = require(tx, outbound_id)
        if all(row.get(k) == v for k, v in values.items()):
            return row
        tx.conn.execute(
            update(O)
            .where(O.c.tenant_id == tx.tenant, O.c.id == outbound_id)
            .values(**values, **_withdrawn_values(), updated_at=tx.now)
        )
    saved = require(tx, str(row["id"]))
    tx.append(
        ev.OutboundPrepared(
            **event_ids(saved),
            channel=channel,
            recipients=len(values["email_to"]),
            body_sha256=sha256_text(body),
        ),
        key=f"outbound-prepared:{saved['id']}:{tx.now.isoformat()}",
    )
    return saved


def approve(
    tx: WriteTx, outbound_id: str, *, digest: str, message_id: str, expires_at: datetime
) -> None:
    """Record the person's approval of exactly the message with ``digest``."""
    row = require(tx, outbound_id)
    approvals.record_approval(
        tx,
        O,
        outbound_id,
        digest=digest,
        message_id=message_id,
        expires_at=expires_at,
        event=ev.OutboundApproved(**event_ids(row), digest=digest, expires_at=expires_at),
        key=f"outbound-approved:{outbound_id}:{tx.now.isoformat()}",
    )


def resolve(tx: WriteTx, outbound_id: str, resolution: Resolution) -> str:
    """The person says what happened to a send in doubt: ``sent`` or ``not-sent``."""
    row = require(tx, outbound_id)
    if row["status"] != OutboundStatus.UNKNOWN or resolution not in (
        Resolution.SENT,
        Resolution.NOT_SENT,
    ):
        raise JobctrlError(
            f"message {outbound_id} is {row['status']}: only a send in doubt is resolved, "
            "as sent or not-sent",
            code=APPLY_BAD_RESOLUTION,
        )
    sent = resolution == Resolution.SENT
    status = OutboundStatus.SENT if sent else OutboundStatus.NOT_SENT
    approvals.record_resolution(
        tx,
        O,
        outbound_id,
        status.value,
        event=ev.OutboundResolved(
            **event_ids(row), resolution=resolution.value, status=status.value
        ),
        key=f"outbound-resolved:{outbound_id}:{tx.now.isoformat()}",
        also={"sent_at": tx.now} if sent and row["sent_at"] is None else None,
    )
    return status.value


def followup_counts(
    conn: Connection, job_ids: list[str] | None = None
) -> dict[str, tuple[int, datetime | None]]:
    """Job id → (follow-ups that went out or may have, when the last one did), for the
    jobs that have any (``job_ids``: only those)."""
    query = (
        select(O.c.job_id, func.count(), func.max(O.c.sent_at))
        .where(
            tenancy.scoped(O, conn),
            O.c.kind == OutboundKind.FOLLOWUP.value,
            O.c.status.in_(COUNTED),
        )
        .group_by(O.c.job_id)
    )
    if job_ids is not None:
        query = query.where(O.c.job_id.in_(job_ids))
    return {job_id: (int(n), last) for job_id, n, last in conn.execute(query)}


def forget(tx: WriteTx, *, job_id: str | None = None, contact_id: str | None = None) -> int:
    """Delete the messages (and their attempts) of a job or of a contact, as a deleted
    job or a removed contact goes: their addresses and texts with them. Rows deleted."""
    where = O.c.job_id == job_id if job_id is not None else O.c.contact_id == contact_id
    ids = list(tx.conn.execute(select(O.c.id).where(where, tenancy.scoped(O, tx.conn))).scalars())
    if not ids:
        return 0
    gone = tx.conn.execute(
        delete(T).where(T.c.outbound_id.in_(ids), tenancy.scoped(T, tx.conn))
    ).rowcount
    gone += tx.conn.execute(delete(O).where(O.c.id.in_(ids), tenancy.scoped(O, tx.conn))).rowcount
    return int(gone)


def due_followups(
    store: Store, now: datetime, *, after_days: int, max_count: int
) -> list[dict[str, Any]]:
    """The applications a follow-up may be due for at ``now``, with what decides it: each
    row's ``application_id``, ``job_id``, ``applied_at``, ``sent`` (follow-ups that went
    out or may have), ``last_sent_at``. One query: only applications sent at least
    ``after_days`` ago with no answer yet, and fewer than ``max_count`` follow-ups; the
    caller applies ``domain.followups.next_followup_due`` to the spacing."""
    if max_count <= 0:
        return []
    counted = (
        select(
            O.c.application_id,
            func.count().label("sent"),
            func.max(O.c.sent_at).label("last_sent_at"),
        )
        .where(O.c.kind == OutboundKind.FOLLOWUP.value, O.c.status.in_(COUNTED))
        .group_by(O.c.tenant_id, O.c.application_id)
    )
    with store.read() as conn:
        counted = counted.where(tenancy.scoped(O, conn))
        sub = counted.subquery()
        query = (
            select(A.c.id, A.c.job_id, A.c.applied_at, sub.c.sent, sub.c.last_sent_at)
            .select_from(A.outerjoin(sub, sub.c.application_id == A.c.id))
            .where(
                tenancy.scoped(A, conn),
                A.c.job_id.is_not(None),
                A.c.status.in_([s.value for s in APPLIED_STATUSES]),
                or_(A.c.outcome.is_(None), A.c.outcome.in_([o for o in NO_ANSWER_YET if o])),
                A.c.applied_at <= now - timedelta(days=after_days),
                or_(sub.c.sent.is_(None), and_(sub.c.sent < max_count)),
            )
            .order_by(A.c.applied_at, A.c.id)
        )
        return [
            {
                "application_id": r.id,
                "job_id": r.job_id,
                "applied_at": r.applied_at,
                "sent": int(r.sent or 0),
                "last_sent_at": r.last_sent_at,
            }
            for r in conn.execute(query)
        ]
