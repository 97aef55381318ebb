"""Send and prefill attempts of an application: at most one live at a time.

``start_attempt`` records a live attempt (an email's submit intent, committed before any
SMTP byte goes out) and refuses a second while one is live, under the write lock (and
the partial unique index ``uq_apply_attempts_live``); ``mark_data_sent`` notes that the
message data is about to go out (from then on the outcome may be unknown);
``finish_attempt`` moves a live attempt to its outcome, fenced on it still being live,
and sets the application's status with the matching event. The attempts themselves are
kept as ``store.send_attempts`` keeps any message's (an outbound message's too).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select, update

from jobctrl.domain import events as ev
from jobctrl.domain.applications import ApplicationStatus, AttemptState, Channel, Resolution
from jobctrl.domain.errors import APPLY_NOT_PREPARED, NotFoundError
from jobctrl.store import tenancy
from jobctrl.store.application_tables import applications as A
from jobctrl.store.application_tables import apply_attempts as T
from jobctrl.store.send_attempts import AttemptTable
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "attempts_of",
    "finish_attempt",
    "live_attempt",
    "live_attempts",
    "mark_data_sent",
    "start_attempt",
]

_ATTEMPTS = AttemptTable(T, T.c.application_id)


def _application(tx: WriteTx, application_id: str) -> dict[str, Any]:
    row = (
        tx.conn.execute(select(A).where(A.c.tenant_id == tx.tenant, A.c.id == application_id))
        .mappings()
        .first()
    )
    if row is None:
        raise NotFoundError(f"no application {application_id}", code=APPLY_NOT_PREPARED)
    return dict(row)


def live_attempt(conn: Connection, application_id: str) -> dict[str, Any] | None:
    return _ATTEMPTS.live(conn, application_id)


def start_attempt(
    tx: WriteTx,
    application_id: str,
    *,
    kind: str,
    owner: str,
    message_id: str | None = None,
    digest: str | None = None,
) -> str:
    """Record a live attempt (an email's submit intent: ``sending``, with its event);
    refused with ``APPLY_ATTEMPT_LIVE`` while another attempt is live. Its id."""
    row = _application(tx, application_id)
    email = kind == Channel.EMAIL
    new_id = _ATTEMPTS.start(
        tx,
        application_id,
        kind=kind,
        state=AttemptState.INTENT if email else AttemptState.PREFILLING,
        owner=owner,
        message_id=message_id,
        digest=digest,
        busy=f"application {application_id} has an attempt in progress; wait for it to end",
    )
    if email:
        tx.conn.execute(
            update(A)
            .where(A.c.tenant_id == tx.tenant, A.c.id == application_id)
            .values(status=ApplicationStatus.SENDING.value, error_code=None, updated_at=tx.now)
        )
        tx.append(
            ev.ApplicationSendIntent(
                application_id=application_id,
                job_id=row["job_id"],
                attempt_id=new_id,
                digest=digest or "",
            ),
            key=f"application-intent:{new_id}",
        )
    return new_id


def mark_data_sent(tx: WriteTx, attempt: str) -> bool:
    """The message data is about to go out: from now on the outcome may be unknown."""
    return _ATTEMPTS.mark_data_sent(tx, attempt)


_FINISH: dict[AttemptState, ApplicationStatus] = {
    AttemptState.SENT: ApplicationStatus.SENT,
    AttemptState.FAILED: ApplicationStatus.FAILED,
    AttemptState.UNKNOWN: ApplicationStatus.UNKNOWN,
    AttemptState.PREFILLED: ApplicationStatus.PREFILLED,
    AttemptState.SUBMITTED: ApplicationStatus.SUBMITTED,
    AttemptState.ABANDONED: ApplicationStatus.ABANDONED,
}


def finish_attempt(
    tx: WriteTx, attempt: str, state: AttemptState, *, error_code: str | None = None
) -> bool:
    """End a live attempt as ``state`` (fenced: False if it was no longer live) and set its
    application's status, with the event. For email: sent, failed (``error_code``: nothing
    was delivered) or unknown (``error_code`` says why the outcome is not known)."""
    found = _ATTEMPTS.end(tx, attempt, state, error_code)
    if found is None:
        return False
    status = _FINISH[state]
    app_id = found["application_id"]
    row = _application(tx, app_id)
    values: dict[str, Any] = {"status": status.value, "error_code": error_code}
    if status in (ApplicationStatus.SENT, ApplicationStatus.SUBMITTED):
        values["applied_at"] = tx.now
    tx.conn.execute(
        update(A)
        .where(A.c.tenant_id == tx.tenant, A.c.id == app_id)
        .values(**values, updated_at=tx.now)
    )
    ids = {"application_id": app_id, "job_id": row["job_id"], "attempt_id": attempt}
    event: ev.DomainEvent
    if state == AttemptState.SENT:
        event = ev.ApplicationSent(**ids)
    elif state == AttemptState.FAILED:
        event = ev.ApplicationFailed(**ids, error_code=error_code or "", retryable=True)
    elif state == AttemptState.UNKNOWN:
        event = ev.ApplicationOutcomeUnknown(**ids, reason=error_code or "")
    elif state == AttemptState.SUBMITTED:
        event = ev.ApplicationSubmitted(**ids, how="detected")
    elif state == AttemptState.PREFILLED:
        event = ev.ApplicationPrefilled(**ids, error_code=error_code)
    else:
        event = ev.ApplicationResolved(
            application_id=app_id,
            job_id=row["job_id"],
            resolution=Resolution.ABANDONED.value,
            status=status.value,
        )
    tx.append(event, key=f"application-attempt:{attempt}:{state.value}")
    return True


def live_attempts(store: Store, kind: str | None = None) -> list[dict[str, Any]]:
    """Every live attempt (for finding those whose process died)."""
    return _ATTEMPTS.live_attempts(store, kind)


def attempts_of(store: Store, application_id: str) -> list[dict[str, Any]]:
    """An application's attempts, oldest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(T)
            .where(tenancy.scoped(T, conn), T.c.application_id == application_id)
            .order_by(T.c.started_at)
        ).mappings()
        return [dict(r) for r in rows]
