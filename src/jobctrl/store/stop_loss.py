"""Stop-loss windows and pauses per lane and source (table ``stop_loss``).

Each stage attempt and each source read notes its outcome here (``note_success`` /
``note_failure``); the rules of a streak are ``domain.stop_loss``. The failure that
reaches ``stop_loss.threshold`` pauses the lane or source and appends ``StopLossPaused``
in the same transaction; ``resume`` clears it with ``StopLossResumed``. ``paused`` and
``is_paused`` are the reads other features use (the operations snapshot, recovery).
Windows are the store's tenant's (its lanes and sources): a pause in one tenant never
pauses another.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update

from jobctrl.domain.clock import Clock, as_utc
from jobctrl.domain.errors import DatabaseBusyError
from jobctrl.domain.events import StopLossPaused, StopLossResumed
from jobctrl.domain.stop_loss import Window, after_failure, after_success, counts
from jobctrl.store import tenancy
from jobctrl.store.db import upsert
from jobctrl.store.operations_tables import stop_loss as SL
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store, WriteTx

# Lanes and sources are each tenant's own: every statement names the tenant. Read before
# every stage attempt and source read: built once, for ``{"tenant": …, "kind", "name"}``.
_ONE = (
    SL.c.tenant_id == tenancy.tenant_param(),
    SL.c.kind == bindparam("kind"),
    SL.c.name == bindparam("name"),
)
_PAUSED_CODE = select(SL.c.paused_code).where(*_ONE)
_STREAK = select(SL.c.streak).where(*_ONE)


@dataclass(frozen=True)
class Pause:
    """A paused lane or source: the code that paused it, when (UTC), after how many."""

    kind: str
    name: str
    code: str
    paused_at: datetime | None
    streak: int


def paused(store: Store) -> list[Pause]:
    """Every paused lane or source, the longest paused first."""
    with store.read() as conn:
        rows = conn.execute(
            select(SL.c.kind, SL.c.name, SL.c.paused_code, SL.c.paused_at, SL.c.streak)
            .where(tenancy.scoped(SL, conn), SL.c.paused_code.is_not(None))
            .order_by(SL.c.paused_at, SL.c.kind, SL.c.name)
        ).all()
    return [
        Pause(kind, name, code, as_utc(at) if isinstance(at, datetime) else None, int(streak))
        for kind, name, code, at, streak in rows
    ]


def is_paused(store: Store, kind: str, name: str) -> str | None:
    """The code that paused this lane or source, or None while it runs."""
    with store.read() as conn:
        params = {"tenant": tenancy.tenant_of(conn), "kind": kind, "name": name}
        code = conn.execute(_PAUSED_CODE, params).scalar()
    return None if code is None else str(code)


def streak_of(store: Store, kind: str, name: str) -> int:
    """The current streak of consecutive failures (0: none, or never noted)."""
    with store.read() as conn:
        params = {"tenant": tenancy.tenant_of(conn), "kind": kind, "name": name}
        streak = conn.execute(_STREAK, params).scalar()
    return int(streak or 0)


def known_names(store: Store) -> list[tuple[str, str]]:
    """(kind, name) of every lane or source that has a window."""
    with store.read() as conn:
        rows = conn.execute(select(SL.c.kind, SL.c.name).where(tenancy.scoped(SL, conn)))
        return [(str(k), str(n)) for k, n in rows.all()]


def _window(tx: WriteTx, kind: str, name: str) -> Window | None:
    params = {"tenant": tx.tenant, "kind": kind, "name": name}
    row = tx.conn.execute(select(SL).where(*_ONE), params).mappings().first()
    if row is None:
        return None
    return Window(
        row["streak_code"], int(row["streak"]), tuple(row["streak_jobs"] or ()), row["paused_code"]
    )


def _save(tx: WriteTx, kind: str, name: str, window: Window, **extra: Any) -> None:
    values = {
        "streak_code": window.code,
        "streak": window.streak,
        "streak_jobs": list(window.jobs),
        "paused_code": window.paused,
        "updated_at": tx.now,
        **extra,
    }
    upsert(
        tx.conn,
        SL,
        {"tenant_id": tx.tenant, "kind": kind, "name": name, **values},
        keys=["tenant_id", "kind", "name"],
        update=list(values),
    )


def note_success(store: Store, kind: str, name: str, *, clock: Clock | None = None) -> None:
    """A success restarts the streak. Nothing is written while there is no streak."""
    if streak_of(store, kind, name) == 0:
        return  # the common case costs one read, no write
    with store.write(clock=clock) as tx:
        window = _window(tx, kind, name)
        if window is not None and window.streak:
            _save(tx, kind, name, after_success(window))


def note_failure(
    store: Store,
    kind: str,
    name: str,
    code: str,
    item: str,
    *,
    threshold: int | None = None,
    clock: Clock | None = None,
) -> bool:
    """Count ``item``'s failure with ``code``; True when it paused the lane or source."""
    if not counts(code):
        return False
    limit = threshold if threshold is not None else int(Settings(store).get("stop_loss.threshold"))
    with store.write(clock=clock) as tx:
        before = _window(tx, kind, name) or Window()
        after, pauses = after_failure(before, code, item, limit)
        if after == before:
            return False
        extra: dict[str, Any] = {"paused_at": tx.now} if pauses else {}
        _save(tx, kind, name, after, **extra)
        if pauses:
            tx.append(
                StopLossPaused(kind=kind, name=name, code=code, streak=after.streak),
                key=f"stop-loss-paused:{kind}:{name}:{tx.now.isoformat()}",
            )
    return pauses


def resume(store: Store, kind: str, name: str, *, clock: Clock | None = None) -> str | None:
    """Clear the pause (and the streak) of a lane or source; the code it was paused with,
    or None when it was not paused (nothing is written then)."""
    with store.write(clock=clock) as tx:
        window = _window(tx, kind, name)
        if window is None or window.paused is None:
            return None
        tx.conn.execute(
            update(SL)
            .where(SL.c.tenant_id == tx.tenant, SL.c.kind == kind, SL.c.name == name)
            .values(
                paused_code=None,
                streak=0,
                streak_code=None,
                streak_jobs=[],
                resumed_at=tx.now,
                updated_at=tx.now,
            )
        )
        tx.append(
            StopLossResumed(kind=kind, name=name, code=window.paused),
            key=f"stop-loss-resumed:{kind}:{name}:{tx.now.isoformat()}",
        )
        return window.paused


def note(
    store: Store,
    kind: str,
    name: str,
    code: str | None,
    item: str,
    *,
    clock: Clock | None = None,
) -> None:
    """Note one outcome (``code`` None: a success). A note the database is too busy to
    take is dropped: it never replaces the outcome it describes."""
    with contextlib.suppress(DatabaseBusyError):
        if code is None:
            note_success(store, kind, name, clock=clock)
        else:
            note_failure(store, kind, name, code, item, clock=clock)
