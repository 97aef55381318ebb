"""Job applications and their send/prefill attempts: every write with its event.

An application is one row per job (or an imported one without a job). Its email (the
exact recipients, subject, body and attachments) lives only here. An approval records the
digest of what it approved and until when; a change to the message clears it.

Send and prefill attempts are ``store.apply_attempts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, select, update

from jobctrl.domain import events as ev
from jobctrl.domain.applications import (
    ApplicationStatus,
    AttemptState,
    Channel,
    Resolution,
    new_application_id,
    resolution_allowed,
    sha256_text,
)
from jobctrl.domain.availability import Availability
from jobctrl.domain.errors import (
    APPLY_ATTEMPT_LIVE,
    APPLY_BAD_RESOLUTION,
    APPLY_NOT_PREPARED,
    JobctrlError,
    NotFoundError,
)
from jobctrl.store import apply_attempts, approvals, schema, tenancy
from jobctrl.store.application_tables import applications as A
from jobctrl.store.application_tables import apply_attempts as T
from jobctrl.store.store import Store, WriteTx

J = schema.jobs
APPROVAL_WITHDRAWN = "approval_withdrawn"  # ApplicationCancelled's reason for an edit

__all__ = [
    "approve",
    "by_id",
    "ensure_for_job",
    "get",
    "job_posting_url",
    "list_all",
    "posting_unavailable",
    "record_browser_result",
    "require",
    "resolve",
    "save_email",
    "set_channel",
    "set_outcome",
]


def _one(conn: Connection, *where: Any) -> dict[str, Any] | None:
    row = conn.execute(select(A).where(tenancy.scoped(A, conn), *where)).mappings().first()
    return dict(row) if row else None


def get(store: Store, job_id: str) -> dict[str, Any] | None:
    """The application of job ``job_id``, or None."""
    with store.read() as conn:
        return _one(conn, A.c.job_id == job_id)


def by_id(store: Store, application_id: str) -> dict[str, Any] | None:
    with store.read() as conn:
        return _one(conn, A.c.id == application_id)


def list_all(store: Store) -> list[dict[str, Any]]:
    """Every application, most recently changed first (the tracker)."""
    with store.read() as conn:
        rows = conn.execute(
            select(A).where(tenancy.scoped(A, conn)).order_by(A.c.updated_at.desc(), A.c.id)
        ).mappings()
        return [dict(r) for r in rows]


def require(tx: WriteTx, application_id: str) -> dict[str, Any]:
    """The application's row, read inside ``tx`` (``APPLY_NOT_PREPARED`` if none)."""
    row = _one(tx.conn, A.c.id == application_id)
    if row is None:
        raise NotFoundError(f"no application {application_id}", code=APPLY_NOT_PREPARED)
    return row


def ensure_for_job(
    tx: WriteTx,
    job_id: str,
    *,
    company: str | None = None,
    role: str | None = None,
    url: str | None = None,
    score: int | None = None,
) -> dict[str, Any]:
    """The job's application, created as a draft if it has none; company, role, posting
    URL and score are brought up to date. No event: preparing it is the event."""
    row = _one(tx.conn, A.c.job_id == job_id)
    fields = {"company": company, "role": role, "url": url, "score": score}
    if row is None:
        row = {
            "tenant_id": tx.tenant,
            "id": new_application_id(),
            "job_id": job_id,
            "status": ApplicationStatus.DRAFT.value,
            "source": "jobctrl",
            "created_at": tx.now,
            "updated_at": tx.now,
            **fields,
        }
        tx.conn.execute(A.insert().values(**row))
        return _one(tx.conn, A.c.id == row["id"]) or row
    changed = {k: v for k, v in fields.items() if v is not None and row.get(k) != v}
    if changed:
        tx.conn.execute(
            update(A)
            .where(A.c.tenant_id == tx.tenant, A.c.id == row["id"])
            .values(**changed, updated_at=tx.now)
        )
        row.update(changed, updated_at=tx.now)
    return row


def _prepared_key(tx: WriteTx, application_id: str) -> str:
    return f"application-prepared:{application_id}:{tx.now.isoformat()}"


def _withdraw_approval(tx: WriteTx, row: dict[str, Any]) -> None:
    """Say in the log that a change withdrew the application's approval (if it had one)."""
    if row.get("approval_digest"):
        tx.append(
            ev.ApplicationCancelled(
                application_id=row["id"],
                job_id=row["job_id"],
                reason=APPROVAL_WITHDRAWN,
                status=ApplicationStatus.DRAFT.value,
            ),
            key=f"application-withdrawn:{row['id']}:{tx.now.isoformat()}",
        )


def save_email(
    tx: WriteTx,
    application_id: str,
    *,
    to: Sequence[str],
    subject: str,
    body: str,
    attachments: Sequence[dict[str, Any]],
) -> bool:
    """Set the application's email. A message that differs from the saved one clears any
    approval (a new one is needed) and is a draft again; True if anything changed."""
    row = require(tx, application_id)
    values = {
        "channel": Channel.EMAIL.value,
        "email_to": list(to),
        "email_subject": subject,
        "email_body": body,
        "attachments": [dict(a) for a in attachments],
    }
    if all(row.get(k) == v for k, v in values.items()):
        return False
    _withdraw_approval(tx, row)
    tx.conn.execute(
        update(A)
        .where(A.c.tenant_id == tx.tenant, A.c.id == application_id)
        .values(
            **values,
            status=ApplicationStatus.DRAFT.value,
            approval_digest=None,
            approved_at=None,
            approval_expires_at=None,
            message_id=None,
            error_code=None,
            updated_at=tx.now,
        )
    )
    tx.append(
        ev.ApplicationPrepared(
            application_id=application_id,
            job_id=row["job_id"],
            channel=Channel.EMAIL.value,
            recipients=len(values["email_to"]),
            attachments=len(values["attachments"]),
            body_sha256=sha256_text(body),
        ),
        key=_prepared_key(tx, application_id),
    )
    return True


def set_channel(tx: WriteTx, application_id: str, channel: str, *, form_url: str | None) -> None:
    """Prepare the application for ``channel`` (browser: the form's URL), as a draft."""
    row = require(tx, application_id)
    if row["channel"] == channel and row["form_url"] == form_url:
        return
    _withdraw_approval(tx, row)
    tx.conn.execute(
        update(A)
        .where(A.c.tenant_id == tx.tenant, A.c.id == application_id)
        .values(
            channel=channel,
            form_url=form_url,
            status=ApplicationStatus.DRAFT.value,
            approval_digest=None,
            approved_at=None,
            approval_expires_at=None,
            error_code=None,
            updated_at=tx.now,
        )
    )
    tx.append(
        ev.ApplicationPrepared(
            application_id=application_id, job_id=row["job_id"], channel=channel
        ),
        key=_prepared_key(tx, application_id),
    )


def approve(
    tx: WriteTx, application_id: str, *, digest: str, message_id: str, expires_at: datetime
) -> None:
    """Record the person's approval of exactly the message with ``digest``."""
    row = require(tx, application_id)
    approvals.record_approval(
        tx,
        A,
        application_id,
        digest=digest,
        message_id=message_id,
        expires_at=expires_at,
        event=ev.ApplicationApproved(
            application_id=application_id,
            job_id=row["job_id"],
            digest=digest,
            expires_at=expires_at,
        ),
        key=f"application-approved:{application_id}:{tx.now.isoformat()}",
    )


def resolve(tx: WriteTx, application_id: str, resolution: Resolution) -> str:
    """The person says what happened (an unknown send as sent or not sent, a form as
    submitted, or the application abandoned); the new status. Refused while an attempt
    is live, or when the resolution does not fit the status."""
    row = require(tx, application_id)
    if apply_attempts.live_attempt(tx.conn, application_id) is not None:
        raise JobctrlError(
            f"application {application_id} has an attempt in progress; wait for it to end",
            code=APPLY_ATTEMPT_LIVE,
        )
    if not resolution_allowed(row["status"], resolution):
        raise JobctrlError(
            f"application {application_id} is {row['status']}: it cannot be resolved as "
            f"{resolution.value}",
            code=APPLY_BAD_RESOLUTION,
        )
    status = resolution.status
    applied = status in (ApplicationStatus.SENT, ApplicationStatus.SUBMITTED)
    approvals.record_resolution(
        tx,
        A,
        application_id,
        status.value,
        event=ev.ApplicationResolved(
            application_id=application_id,
            job_id=row["job_id"],
            resolution=resolution.value,
            status=status.value,
        ),
        key=f"application-resolved:{application_id}:{tx.now.isoformat()}",
        also={"applied_at": tx.now} if applied else None,
    )
    return status.value


def set_outcome(
    tx: WriteTx,
    application_id: str,
    outcome: str,
    note: str | None = None,
    follow_up: date | None = None,
) -> None:
    """Record what came of an application (and a note, a follow-up date)."""
    row = require(tx, application_id)
    values: dict[str, Any] = {"outcome": outcome, "updated_at": tx.now}
    if note is not None:
        values["notes"] = note
    if follow_up is not None:
        values["follow_up"] = follow_up
    tx.conn.execute(
        update(A).where(A.c.tenant_id == tx.tenant, A.c.id == application_id).values(**values)
    )
    tx.append(
        ev.ApplicationOutcomeSet(
            application_id=application_id,
            job_id=row["job_id"],
            outcome=outcome,
            follow_up=follow_up.isoformat() if follow_up else None,
        ),
        key=f"application-outcome:{application_id}:{tx.now.isoformat()}",
    )


def posting_unavailable(conn: Connection, job_id: str) -> bool:
    """Whether the job's posting is confirmed closed (the availability check's evidence)."""
    state = conn.execute(
        select(J.c.availability).where(tenancy.scoped(J, conn), J.c.id == job_id)
    ).scalar()
    return state == Availability.UNAVAILABLE.value


def job_posting_url(conn: Connection, job_id: str) -> str | None:
    """The job's posting URL as it is now (an approval binds the one it was prepared for)."""
    url = conn.execute(select(J.c.url).where(tenancy.scoped(J, conn), J.c.id == job_id)).scalar()
    return None if url is None else str(url)


# What a browser prefill came to → the attempt's state.
_BROWSER_STATES = {
    "prefilled": AttemptState.PREFILLED,
    "captcha": AttemptState.PREFILLED,  # handed to the person as it is, with its code
    "form_unavailable": AttemptState.FAILED,
    "submitted": AttemptState.SUBMITTED,
}


def record_browser_result(
    tx: WriteTx,
    attempt: str,
    status: str,
    *,
    code: str | None = None,
    filled: int = 0,
    left: int = 0,
) -> str | None:
    """Record what browser prefill ``attempt`` came to; the application's new status, or
    None when nothing changed.

    - ``prefilled`` / ``captcha``: the form is the person's now (``code`` says a challenge
      stopped the filling): the live attempt and the application are ``prefilled``, with
      the counts in ``ApplicationPrefilled``;
    - ``form_unavailable``: the attempt ``failed`` with ``code``; the person may try again;
    - ``submitted``: the person's submission was seen (after hand-over, or before it was
      recorded): attempt and application ``submitted``, ``ApplicationSubmitted`` (detected);
    - ``closed`` (the window closed without a submission): nothing changes.

    Fenced: an attempt that ended otherwise meanwhile (the application resolved by the
    person) is left as it is."""
    state = _BROWSER_STATES.get(status)
    found = (
        tx.conn.execute(select(T).where(T.c.tenant_id == tx.tenant, T.c.id == attempt))
        .mappings()
        .first()
    )
    if state is None or found is None:
        return None
    if state == AttemptState.FAILED:
        done = apply_attempts.finish_attempt(tx, attempt, state, error_code=code)
        return ApplicationStatus.FAILED.value if done else None
    row = require(tx, found["application_id"])
    ids = {"application_id": row["id"], "job_id": row["job_id"], "attempt_id": attempt}
    event: ev.DomainEvent
    if state == AttemptState.PREFILLED:
        if found["state"] != AttemptState.PREFILLING:
            return None
        app_values: dict[str, Any] = {"status": ApplicationStatus.PREFILLED.value}
        event = ev.ApplicationPrefilled(**ids, filled=filled, left=left, error_code=code)
    else:
        live = found["state"] == AttemptState.PREFILLING
        handed = found["state"] == AttemptState.PREFILLED
        if not (live or (handed and row["status"] == ApplicationStatus.PREFILLED)):
            return None
        app_values = {"status": ApplicationStatus.SUBMITTED.value, "applied_at": tx.now}
        event = ev.ApplicationSubmitted(**ids, how="detected")
    tx.conn.execute(
        update(T)
        .where(T.c.tenant_id == tx.tenant, T.c.id == attempt)
        .values(state=state.value, finished_at=tx.now, error_code=code)
    )
    tx.conn.execute(
        update(A)
        .where(A.c.tenant_id == tx.tenant, A.c.id == row["id"])
        .values(**app_values, error_code=code, updated_at=tx.now)
    )
    tx.append(event, key=f"application-attempt:{attempt}:{state.value}")
    return str(app_values["status"])
