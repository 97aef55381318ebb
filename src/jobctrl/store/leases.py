"""Leases: one holder at a time for a named duty, for a bounded time.

A worker takes the lease of its task queue's heartbeat duties (``hold``) and renews it on
every beat; another worker of the same deployment finds it held and leaves the duties
alone. A holder that dies stops renewing: once ``expires_at`` passes, the next worker to
ask takes it over. Each step is one conditional statement (an UPDATE of a row the
holder owns or that expired, else an INSERT that does nothing on conflict), so it holds
with several processes on SQLite or PostgreSQL without any lock of this process's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import case, delete, or_, select, update

from jobctrl.domain.clock import Clock, as_utc
from jobctrl.store.db import upsert
from jobctrl.store.operations_tables import worker_leases as L
from jobctrl.store.store import Store

__all__ = ["Lease", "hold", "holder", "release", "take_over"]


def hold(
    store: Store, name: str, holder_id: str, ttl: timedelta, *, clock: Clock | None = None
) -> bool:
    """Take or renew ``name`` for ``holder_id`` until now + ``ttl``; True while it is
    this holder's."""
    with store.write(clock=clock) as tx:
        until = tx.now + ttl
        renewed = tx.conn.execute(
            update(L)
            .where(L.c.name == name, or_(L.c.holder == holder_id, L.c.expires_at <= tx.now))
            .values(
                holder=holder_id,
                expires_at=until,
                acquired_at=case((L.c.holder == holder_id, L.c.acquired_at), else_=tx.now),
            )
        )
        if renewed.rowcount == 1:
            return True
        created = upsert(
            tx.conn,
            L,
            {"name": name, "holder": holder_id, "expires_at": until, "acquired_at": tx.now},
            keys=["name"],
        )
        return created.rowcount == 1


def take_over(
    store: Store,
    name: str,
    previous: str,
    holder_id: str,
    ttl: timedelta,
    *,
    clock: Clock | None = None,
) -> bool:
    """Take ``name`` from ``previous`` before it expires (the caller knows that holder is
    dead: a process of this host that no longer exists); False if it changed hands."""
    with store.write(clock=clock) as tx:
        taken = tx.conn.execute(
            update(L)
            .where(L.c.name == name, L.c.holder == previous)
            .values(holder=holder_id, expires_at=tx.now + ttl, acquired_at=tx.now)
        )
        return taken.rowcount == 1


def release(store: Store, name: str, holder_id: str) -> None:
    """Give ``name`` up (a worker stopping): another worker takes it at its next beat."""
    with store.write() as tx:
        tx.conn.execute(delete(L).where(L.c.name == name, L.c.holder == holder_id))


@dataclass(frozen=True)
class Lease:
    """Who holds a lease, since when and until when (UTC)."""

    holder: str
    expires_at: datetime
    acquired_at: datetime


def holder(store: Store, name: str) -> Lease | None:
    """Who holds ``name``, or None when nobody does."""
    with store.read() as conn:
        row = conn.execute(select(L).where(L.c.name == name)).mappings().first()
    if row is None:
        return None
    return Lease(row["holder"], as_utc(row["expires_at"]), as_utc(row["acquired_at"]))
