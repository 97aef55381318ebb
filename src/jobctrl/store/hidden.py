"""Whether a job is hidden (``job_hides``, written by ``store.hides``): what the stages
that pick jobs up ask before they prepare, check or apply to one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, Connection, exists, select

from jobctrl.store import schema, tenancy

__all__ = ["Hide", "hidden_in", "not_hidden"]

H, J = schema.job_hides, schema.jobs


@dataclass(frozen=True)
class Hide:
    """A job's hide: when, and the reason the person gave (None: none)."""

    hidden_at: datetime
    reason: str | None


def not_hidden(conn: Connection) -> ColumnElement[bool]:
    """``jobs`` rows whose posting is not hidden (for a WHERE on ``schema.jobs``)."""
    return ~exists(
        select(H.c.idempotency_key).where(
            H.c.idempotency_key == J.c.idempotency_key, tenancy.scoped(H, conn)
        )
    )


def hidden_in(conn: Connection, job_id: str) -> Hide | None:
    """The job's hide, read on ``conn`` (None: not hidden, or no such job)."""
    row = conn.execute(
        select(H.c.hidden_at, H.c.reason)
        .select_from(J.join(H, H.c.idempotency_key == J.c.idempotency_key))
        .where(J.c.id == job_id, tenancy.scoped(J, conn), tenancy.scoped(H, conn))
    ).first()
    return Hide(row.hidden_at, row.reason) if row else None
