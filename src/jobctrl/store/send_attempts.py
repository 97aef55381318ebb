"""The attempts of a message sent at most once, on the table that keeps them: an
application's (``application_tables.apply_attempts``, by ``application_id``) or a
follow-up's or outreach message's (``outbound_tables.outbound_attempts``, by
``outbound_id``).

At most one attempt of a message is live: ``start`` records one (an email's submit
intent, committed before any SMTP byte goes out) and refuses a second, under the write
lock and each table's partial unique index; ``mark_data_sent`` notes that the data is
about to go out (from then on the outcome may be unknown); ``end`` moves a live attempt to
its outcome, fenced on it still being live. What the message's own row and events become
is the caller's: ``store.apply_attempts``, ``store.outbound_attempts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Connection, Table, select, update

from jobctrl.domain.applications import LIVE_ATTEMPT_STATES, AttemptState, attempt_id
from jobctrl.domain.errors import APPLY_ATTEMPT_LIVE, JobctrlError
from jobctrl.store import tenancy
from jobctrl.store.store import Store, WriteTx

__all__ = ["LIVE", "AttemptTable"]

LIVE = [s.value for s in LIVE_ATTEMPT_STATES]


@dataclass(frozen=True)
class AttemptTable:
    """A table of send attempts, and its column naming the message each one sends."""

    table: Table
    key: Column[Any]

    def live(self, conn: Connection, row_id: str) -> dict[str, Any] | None:
        """The live attempt of message ``row_id``, if any."""
        t = self.table
        row = (
            conn.execute(
                select(t).where(tenancy.scoped(t, conn), self.key == row_id, t.c.state.in_(LIVE))
            )
            .mappings()
            .first()
        )
        return dict(row) if row else None

    def start(
        self,
        tx: WriteTx,
        row_id: str,
        *,
        kind: str,
        state: AttemptState,
        owner: str,
        message_id: str | None,
        digest: str | None,
        busy: str,
    ) -> str:
        """Record a live attempt of message ``row_id`` in ``state``; refused with
        ``APPLY_ATTEMPT_LIVE`` (the sentence ``busy``) while another is live. Its id."""
        if self.live(tx.conn, row_id) is not None:
            raise JobctrlError(busy, code=APPLY_ATTEMPT_LIVE)
        new_id = attempt_id()
        tx.conn.execute(
            self.table.insert().values(
                tenant_id=tx.tenant,
                id=new_id,
                **{self.key.name: row_id},
                kind=kind,
                state=state.value,
                message_id=message_id,
                approval_digest=digest,
                owner=owner,
                started_at=tx.now,
            )
        )
        return new_id

    def mark_data_sent(self, tx: WriteTx, attempt: str) -> bool:
        """The message data is about to go out: from now on the outcome may be unknown."""
        t = self.table
        result = tx.conn.execute(
            update(t)
            .where(
                t.c.tenant_id == tx.tenant,
                t.c.id == attempt,
                t.c.state == AttemptState.INTENT.value,
            )
            .values(state=AttemptState.DATA_SENT.value)
        )
        return bool(result.rowcount)

    def end(
        self, tx: WriteTx, attempt: str, state: AttemptState, error_code: str | None
    ) -> dict[str, Any] | None:
        """End live ``attempt`` as ``state``; the attempt as it was, or None (fenced:
        nothing changes) when it was no longer live."""
        t = self.table
        found = (
            tx.conn.execute(select(t).where(t.c.tenant_id == tx.tenant, t.c.id == attempt))
            .mappings()
            .first()
        )
        if found is None or found["state"] not in LIVE:
            return None
        tx.conn.execute(
            update(t)
            .where(t.c.tenant_id == tx.tenant, t.c.id == attempt)
            .values(state=state.value, finished_at=tx.now, error_code=error_code)
        )
        return dict(found)

    def live_attempts(self, store: Store, kind: str | None = None) -> list[dict[str, Any]]:
        """Every live attempt (of ``kind``), for finding those whose process died."""
        t = self.table
        with store.read() as conn:
            query = select(t).where(tenancy.scoped(t, conn), t.c.state.in_(LIVE))
            if kind is not None:
                query = query.where(t.c.kind == kind)
            return [dict(r) for r in conn.execute(query).mappings()]
