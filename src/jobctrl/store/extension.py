"""Pairing codes and extension tokens (issue 32): only their sha256 is kept.

A code is made for one tenant and redeemed once, before it expires, for a token of that
tenant (``redeem``: the code's row is marked used and the token's row written in one
transaction). A token is found by its hash in whichever tenant holds it (``holder``: the
API's way from a Bearer token to a tenant, as ``store/tenants.by_token_hash`` is for the
tenants' own tokens). Revoking deletes the row: the token then matches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select, update

from jobctrl.domain.clock import as_utc
from jobctrl.store import tenancy
from jobctrl.store.extension_tables import extension_pair_codes as C
from jobctrl.store.extension_tables import extension_tokens as T

if TYPE_CHECKING:
    from jobctrl.store.store import Store

__all__ = ["Holder", "add_code", "holder", "redeem", "revoke", "tokens", "touch"]


@dataclass(frozen=True)
class Holder:
    """Whose an extension token is: its tenant, name and the origin it paired from."""

    tenant: str
    name: str
    origin: str | None


def add_code(store: Store, code_sha256: str, name: str | None, expires_at: datetime) -> None:
    with store.write() as tx:
        tx.conn.execute(
            C.insert().values(
                code_sha256=code_sha256,
                tenant_id=tx.tenant,
                name=name,
                expires_at=expires_at,
                created_at=tx.now,
            )
        )


def redeem(
    store: Store, code_sha256: str, token_sha256: str, name: str | None, origin: str | None
) -> str | None:
    """Use the code (unused, unexpired) for a token named ``name`` (else the code's own
    name, else ``extension``, numbered past the tenant's other tokens); the token's name,
    or None when the code matches nothing usable (used, expired or unknown)."""
    with store.read() as conn:
        found = conn.execute(
            tenancy.all_tenants(
                select(C.c.tenant_id, C.c.name, C.c.expires_at, C.c.used_at).where(
                    C.c.code_sha256 == code_sha256
                )
            )
        ).first()
    if found is None or found.used_at is not None:
        return None
    with store.for_tenant(str(found.tenant_id)).write() as tx:
        if as_utc(found.expires_at) <= tx.now:
            return None
        used = tx.conn.execute(
            update(C)
            .where(
                C.c.code_sha256 == code_sha256, C.c.used_at.is_(None), tenancy.scoped(C, tx.conn)
            )
            .values(used_at=tx.now)
        ).rowcount
        if not used:  # another request redeemed it first
            return None
        taken = set(tx.conn.execute(select(T.c.name).where(tenancy.scoped(T, tx.conn))).scalars())
        wanted = name or found.name or "extension"
        final, n = wanted, 1
        while final in taken:
            n += 1
            final = f"{wanted}-{n}"
        tx.conn.execute(
            T.insert().values(
                tenant_id=tx.tenant,
                name=final,
                token_sha256=token_sha256,
                origin=origin,
                created_at=tx.now,
            )
        )
        return final


def holder(store: Store, token_sha256: str) -> Holder | None:
    """The tenant, name and origin of the extension token with this hash, or None."""
    with store.read() as conn:
        found = conn.execute(
            tenancy.all_tenants(
                select(T.c.tenant_id, T.c.name, T.c.origin).where(T.c.token_sha256 == token_sha256)
            )
        ).first()
    return Holder(str(found.tenant_id), str(found.name), found.origin) if found else None


def touch(store: Store, name: str) -> None:
    """Record that the token ``name`` was just used (the list's "last seen")."""
    with store.write() as tx:
        tx.conn.execute(
            update(T)
            .where(T.c.name == name, tenancy.scoped(T, tx.conn))
            .values(last_used_at=tx.now)
        )


def tokens(store: Store) -> list[dict[str, Any]]:
    """The tenant's extension tokens (never the token), oldest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(T.c.name, T.c.origin, T.c.created_at, T.c.last_used_at)
            .where(tenancy.scoped(T, conn))
            .order_by(T.c.created_at, T.c.name)
        )
        return [dict(r._mapping) for r in rows]


def revoke(store: Store, name: str) -> bool:
    """Delete the token ``name``; False when the tenant has none of that name."""
    with store.write() as tx:
        return bool(
            tx.conn.execute(delete(T).where(T.c.name == name, tenancy.scoped(T, tx.conn))).rowcount
        )
