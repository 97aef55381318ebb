"""The tenants of a deployment: adding them, listing them, and finding one by its API
token's hash (the HTTP API's way from a Bearer token to a tenant).

``local`` always exists, with or without a row: it gets one when its token's hash is
recorded (``record_token``). An operator adds the others (``jobctrl tenants add``); adding
one that exists changes nothing and says so. Names are checked here as everywhere
(``domain/tenants.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from jobctrl.domain.tenants import LOCAL, checked_name
from jobctrl.store.db import upsert
from jobctrl.store.tenant_tables import tenants as T

if TYPE_CHECKING:
    from jobctrl.store.store import Store


def add(store: Store, name: str, token_sha256: str | None) -> bool:
    """Add the tenant ``name`` with its token's hash; False when it existed already (then
    nothing changes: its token stays the one it has)."""
    checked_name(name)
    if name == LOCAL:
        return False
    with store.write() as tx:
        row = {"name": name, "token_sha256": token_sha256, "created_at": tx.now}
        return bool(upsert(tx.conn, T, row, keys=["name"]).rowcount)


def record_token(store: Store, name: str, token_sha256: str) -> None:
    """Record ``token_sha256`` as the token of the existing tenant ``name`` (``local``'s
    when its token file is first read or made)."""
    checked_name(name)
    with store.write() as tx:
        row = {"name": name, "token_sha256": token_sha256, "created_at": tx.now}
        upsert(tx.conn, T, row, keys=["name"], update=["token_sha256"])


def token_hash(store: Store, name: str) -> str | None:
    """The recorded sha256 of ``name``'s token, None when none is recorded."""
    with store.read() as conn:
        found = conn.execute(select(T.c.token_sha256).where(T.c.name == name)).scalar()
        return str(found) if found is not None else None


def exists(store: Store, name: str) -> bool:
    if name == LOCAL:
        return True
    with store.read() as conn:
        return conn.execute(select(T.c.name).where(T.c.name == name)).first() is not None


def names(store: Store) -> list[str]:
    """Every tenant, ``local`` first, then by name."""
    with store.read() as conn:
        found = conn.execute(select(T.c.name).where(T.c.name != LOCAL).order_by(T.c.name))
        return [LOCAL, *found.scalars()]


def rows(store: Store) -> list[dict[str, Any]]:
    """Every tenant with when it was added (``local``: None unless its token was recorded)
    and whether a token hash is recorded."""
    with store.read() as conn:
        found = {
            r.name: r for r in conn.execute(select(T.c.name, T.c.created_at, T.c.token_sha256))
        }
    listed = [LOCAL, *sorted(n for n in found if n != LOCAL)]
    return [_row(name, found.get(name)) for name in listed]


def _row(name: str, row: Any) -> dict[str, Any]:
    created: datetime | None = row.created_at if row is not None else None
    return {
        "name": name,
        "created_at": created,
        "has_token": row is not None and row.token_sha256 is not None,
    }


def by_token_hash(store: Store, token_sha256: str) -> str | None:
    """The tenant whose token has this hash, or None."""
    with store.read() as conn:
        found = conn.execute(select(T.c.name).where(T.c.token_sha256 == token_sha256))
        return found.scalar_one_or_none()


__all__ = ["add", "by_token_hash", "exists", "names", "record_token", "rows"]
