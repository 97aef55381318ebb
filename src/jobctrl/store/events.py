"""The append-only event log (``job_events``): reads in sequence order or by job, and
rebuilding the projections folded from it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from jobctrl.store import projections, schema
from jobctrl.store.store import Store

E = schema.job_events


def latest_seq(store: Store) -> int:
    """The sequence of the newest event (0 for an empty log)."""
    with store.read() as conn:
        return int(conn.execute(select(func.coalesce(func.max(E.c.seq), 0))).scalar_one())


def events_after(store: Store, seq: int, limit: int = 500) -> list[dict[str, Any]]:
    """Up to ``limit`` events after ``seq``, oldest first."""
    with store.read() as conn:
        rows = conn.execute(select(E).where(E.c.seq > seq).order_by(E.c.seq).limit(limit))
        return [dict(r) for r in rows.mappings()]


def job_events(store: Store, job_id: str) -> list[dict[str, Any]]:
    """Every event of one job, oldest first."""
    with store.read() as conn:
        rows = conn.execute(select(E).where(E.c.job_id == job_id).order_by(E.c.seq))
        return [dict(r) for r in rows.mappings()]


def rebuild_projections(store: Store) -> int:
    """Drop every projection row and fold the whole log again, in one transaction; how
    many events were folded."""
    with store.write() as tx:
        return projections.rebuild(tx.conn)
