"""The append-only event log (``job_events``): reads in sequence order or by job, and
rebuilding the projections folded from it.

Reads are the store's tenant's: the sequence is global, so a tenant's log has gaps
where other tenants' events are, and never shows them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, func, select

from jobctrl.store import projections, schema, tenancy
from jobctrl.store.store import Store

E = schema.job_events

# Built once: the event stream polls these.
_LATEST = select(func.coalesce(func.max(E.c.seq), 0)).where(E.c.tenant_id == tenancy.tenant_param())
_AFTER = (
    select(E)
    .where(E.c.tenant_id == tenancy.tenant_param(), E.c.seq > bindparam("seq"))
    .order_by(E.c.seq)
    .limit(bindparam("limit"))
)


def latest_seq(store: Store) -> int:
    """The sequence of the newest event (0 for an empty log)."""
    with store.read() as conn:
        params = {tenancy.TENANT_PARAM: tenancy.tenant_of(conn)}
        return int(conn.execute(_LATEST, params).scalar_one())


def events_after(store: Store, seq: int, limit: int = 500) -> list[dict[str, Any]]:
    """Up to ``limit`` events after ``seq``, oldest first."""
    with store.read() as conn:
        params = {tenancy.TENANT_PARAM: tenancy.tenant_of(conn), "seq": seq, "limit": limit}
        rows = conn.execute(_AFTER, params)
        return [dict(r) for r in rows.mappings()]


def job_events(store: Store, job_id: str) -> list[dict[str, Any]]:
    """Every event of one job, oldest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(E).where(E.c.job_id == job_id, tenancy.scoped(E, conn)).order_by(E.c.seq)
        )
        return [dict(r) for r in rows.mappings()]


def rebuild_projections(store: Store) -> int:
    """Drop every projection row and fold the whole log again, in one transaction; how
    many events were folded."""
    with store.write() as tx:
        return projections.rebuild(tx.conn)
