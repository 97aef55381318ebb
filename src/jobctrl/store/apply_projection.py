"""``apply_run_projections``: one row per application, folded from the Application* events
(status, channel, outcome, error code, attempts, until when an approval holds).

Called by ``store.projections`` for each such event in sequence order, in the writing
transaction; a rebuild empties the table and folds the log again. Codes and ids only:
the message itself is never in an event, so it cannot be here either.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from jobctrl.domain import events as ev
from jobctrl.domain.applications import ApplicationStatus
from jobctrl.store import tenancy
from jobctrl.store.application_tables import apply_run_projections as AP
from jobctrl.store.db import upsert

__all__ = ["EVENT_TYPES", "TABLE", "fold"]

TABLE = AP

# The status an event leaves an application in (None: the event does not change it).
_STATUS: dict[type[ev.ApplicationEvent], ApplicationStatus | None] = {
    ev.ApplicationPrepared: ApplicationStatus.DRAFT,
    ev.ApplicationApproved: ApplicationStatus.APPROVED,
    ev.ApplicationSendIntent: ApplicationStatus.SENDING,
    ev.ApplicationSent: ApplicationStatus.SENT,
    ev.ApplicationSubmitted: ApplicationStatus.SUBMITTED,
    ev.ApplicationOutcomeUnknown: ApplicationStatus.UNKNOWN,
    ev.ApplicationFailed: ApplicationStatus.FAILED,
    ev.ApplicationPrefilled: ApplicationStatus.PREFILLED,
    ev.ApplicationCancelled: None,  # carries its status
    ev.ApplicationResolved: None,  # carries its status
    ev.ApplicationOutcomeSet: None,
    ev.ApplicationRecorded: None,  # carries its status
}
EVENT_TYPES: tuple[type[ev.ApplicationEvent], ...] = tuple(_STATUS)


def _naive(at: datetime | None, conn: Connection) -> datetime | None:
    # SQLite reads timestamps back without a zone: write them the same way, so a rebuild
    # writes exactly the incrementally folded rows.
    if at is None:
        return None
    return at.replace(tzinfo=None) if conn.dialect.name == "sqlite" else at


def fold(conn: Connection, seq: int, event: ev.ApplicationEvent, occurred_at: datetime) -> None:
    """Apply one Application* event to its application's row (``conn`` acts for the
    event's tenant)."""
    found = (
        conn.execute(
            select(AP).where(AP.c.application_id == event.application_id, tenancy.scoped(AP, conn))
        )
        .mappings()
        .first()
    )
    at = _naive(occurred_at, conn)
    row: dict[str, Any] = (
        dict(found)
        if found
        else {
            "application_id": event.application_id,
            "job_id": event.job_id,
            "channel": None,
            "status": ApplicationStatus.DRAFT.value,
            "outcome": None,
            "error_code": None,
            "attempts": 0,
            "approved_until": None,
            "created_at": at,
            "tenant_id": tenancy.tenant_of(conn),
        }
    )
    status = _STATUS.get(type(event))
    if status is not None:
        row["status"] = status.value
    if isinstance(event, ev.ApplicationCancelled | ev.ApplicationResolved | ev.ApplicationRecorded):
        row["status"] = event.status
    if isinstance(event, ev.ApplicationPrepared):
        row.update(channel=event.channel, error_code=None, approved_until=None)
    elif isinstance(event, ev.ApplicationApproved):
        row.update(approved_until=_naive(event.expires_at, conn), error_code=None)
    elif isinstance(event, ev.ApplicationSendIntent):
        row.update(attempts=row["attempts"] + 1, error_code=None)
    elif isinstance(event, ev.ApplicationPrefilled):
        row.update(channel="browser", attempts=row["attempts"] + 1, error_code=event.error_code)
    elif isinstance(event, ev.ApplicationFailed):
        row["error_code"] = event.error_code
    elif isinstance(event, ev.ApplicationOutcomeUnknown):
        row["error_code"] = event.reason
    elif isinstance(event, ev.ApplicationOutcomeSet):
        row["outcome"] = event.outcome
    elif isinstance(event, ev.ApplicationRecorded):
        row.update(outcome=event.outcome or row["outcome"], error_code=None)
    elif isinstance(event, ev.ApplicationCancelled):
        row["approved_until"] = None
    elif isinstance(event, ev.ApplicationResolved):
        row["error_code"] = None
    if event.job_id and not row.get("job_id"):
        row["job_id"] = event.job_id
    row.update(last_event=event.type, updated_at=at, last_seq=seq)
    upsert(
        conn,
        AP,
        row,
        keys=["application_id"],
        update=[k for k in row if k not in ("application_id", "created_at")],
    )
