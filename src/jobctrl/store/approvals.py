"""A message's approval and a person's resolution of its send, as written to the row that
holds the message: an application (``store.applications``) or a follow-up or outreach
message (``store.outbound``). Both tables carry the same approval columns and statuses
(``OutboundStatus`` lives the life of an email application's ``ApplicationStatus``); each
caller checks its own rule first and hands over the event it appends.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Table, update

from jobctrl.domain import events as ev
from jobctrl.domain.applications import ApplicationStatus
from jobctrl.store.store import WriteTx

__all__ = ["record_approval", "record_resolution"]


def record_approval(
    tx: WriteTx,
    table: Table,
    row_id: str,
    *,
    digest: str,
    message_id: str,
    expires_at: datetime,
    event: ev.DomainEvent,
    key: str,
) -> None:
    """Record the person's approval of exactly the message with ``digest`` (its
    Message-ID, until ``expires_at``) on row ``row_id`` of ``table``, with ``event``."""
    tx.conn.execute(
        update(table)
        .where(table.c.tenant_id == tx.tenant, table.c.id == row_id)
        .values(
            status=ApplicationStatus.APPROVED.value,
            approval_digest=digest,
            approved_at=tx.now,
            approval_expires_at=expires_at,
            message_id=message_id,
            error_code=None,
            updated_at=tx.now,
        )
    )
    tx.append(event, key=key)


def record_resolution(
    tx: WriteTx,
    table: Table,
    row_id: str,
    status: str,
    *,
    event: ev.DomainEvent,
    key: str,
    also: Mapping[str, Any] | None = None,
) -> None:
    """Set row ``row_id`` of ``table`` to the ``status`` the person's resolution gave it
    (and the columns in ``also``), with ``event``. A send resolved as not sent loses its
    approval: it is approved again before another send."""
    values: dict[str, Any] = {**(also or {}), "status": status, "error_code": None}
    values["updated_at"] = tx.now
    if status == ApplicationStatus.NOT_SENT:
        values.update(approval_digest=None, approved_at=None, approval_expires_at=None)
    tx.conn.execute(
        update(table).where(table.c.tenant_id == tx.tenant, table.c.id == row_id).values(**values)
    )
    tx.append(event, key=key)
