"""Send attempts of outbound messages (follow-ups, outreach): at most one live at a time.

The same rules as an application's (``store.apply_attempts``): ``start_attempt`` records
the submit intent, committed before any SMTP byte goes out, and refuses a second while one
is live; ``mark_data_sent`` notes that the data is about to go out (from then on the
outcome may be unknown); ``finish_attempt`` moves a live attempt to its outcome, fenced on
it still being live, and sets the message's status with the matching event.
``sent_since`` counts a kind's sends since a moment (the daily outreach cap). The attempts
themselves are kept as ``store.send_attempts`` keeps any message's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select, update

from jobctrl.domain import events as ev
from jobctrl.domain.applications import AttemptState
from jobctrl.domain.followups import OutboundStatus
from jobctrl.store import outbound, tenancy
from jobctrl.store.outbound_tables import outbound_attempts as T
from jobctrl.store.outbound_tables import outbound_messages as O
from jobctrl.store.send_attempts import LIVE, AttemptTable
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "finish_attempt",
    "live_attempt",
    "live_attempts",
    "mark_data_sent",
    "sent_since",
    "start_attempt",
]

_ATTEMPTS = AttemptTable(T, T.c.outbound_id)
# Attempts that went out, may have, or may still: what a daily cap counts.
_COUNTED = [*LIVE, AttemptState.SENT.value, AttemptState.UNKNOWN.value]


def live_attempt(conn: Connection, outbound_id: str) -> dict[str, Any] | None:
    return _ATTEMPTS.live(conn, outbound_id)


def sent_since(conn: Connection, kind: str, since: datetime) -> int:
    """How many messages of ``kind`` went out (or may have) since ``since``."""
    query = select(func.count()).where(
        tenancy.scoped(T, conn),
        T.c.kind == kind,
        T.c.started_at >= since,
        T.c.state.in_(_COUNTED),
    )
    return int(conn.execute(query).scalar() or 0)


def start_attempt(
    tx: WriteTx, outbound_id: str, *, owner: str, message_id: str, digest: str
) -> str:
    """Record the submit intent (the message ``sending``, with its event); refused with
    ``APPLY_ATTEMPT_LIVE`` while another attempt is live. Its id."""
    row = outbound.require(tx, outbound_id)
    new_id = _ATTEMPTS.start(
        tx,
        outbound_id,
        kind=row["kind"],
        state=AttemptState.INTENT,
        owner=owner,
        message_id=message_id,
        digest=digest,
        busy=f"message {outbound_id} is being sent right now",
    )
    tx.conn.execute(
        update(O)
        .where(O.c.tenant_id == tx.tenant, O.c.id == outbound_id)
        .values(status=OutboundStatus.SENDING.value, error_code=None, updated_at=tx.now)
    )
    tx.append(
        ev.OutboundSendIntent(**outbound.event_ids(row), attempt_id=new_id, digest=digest),
        key=f"outbound-intent:{new_id}",
    )
    return new_id


def mark_data_sent(tx: WriteTx, attempt: str) -> bool:
    """The message data is about to go out: from now on the outcome may be unknown."""
    return _ATTEMPTS.mark_data_sent(tx, attempt)


_FINISH = {
    AttemptState.SENT: OutboundStatus.SENT,
    AttemptState.FAILED: OutboundStatus.FAILED,
    AttemptState.UNKNOWN: OutboundStatus.UNKNOWN,
}


def finish_attempt(
    tx: WriteTx, attempt: str, state: AttemptState, *, error_code: str | None = None
) -> bool:
    """End a live attempt as sent, failed (nothing was delivered) or unknown (fenced:
    False if it was no longer live) and set its message's status, with the event."""
    found = _ATTEMPTS.end(tx, attempt, state, error_code)
    if found is None:
        return False
    row = outbound.require(tx, found["outbound_id"])
    values: dict[str, Any] = {"status": _FINISH[state].value, "error_code": error_code}
    if state in (AttemptState.SENT, AttemptState.UNKNOWN):
        values["sent_at"] = tx.now  # spacing the next follow-up counts from here
    tx.conn.execute(
        update(O)
        .where(O.c.tenant_id == tx.tenant, O.c.id == row["id"])
        .values(**values, updated_at=tx.now)
    )
    ids = {**outbound.event_ids(row), "attempt_id": attempt}
    event: ev.DomainEvent
    if state == AttemptState.SENT:
        event = ev.OutboundSent(**ids)
    elif state == AttemptState.FAILED:
        event = ev.OutboundFailed(**ids, error_code=error_code or "")
    else:
        event = ev.OutboundOutcomeUnknown(**ids, reason=error_code or "")
    tx.append(event, key=f"outbound-attempt:{attempt}:{state.value}")
    return True


def live_attempts(store: Store) -> list[dict[str, Any]]:
    """Every live attempt (for finding those whose process died)."""
    return _ATTEMPTS.live_attempts(store)
