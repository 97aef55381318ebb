"""Tenants as an operator manages them (`jobctrl tenants add|list|token`), and the HTTP API's
way from a Bearer token to the tenant it acts for.

A tenant's own files are ``tenants/NAME/`` in the home (``config.yaml``, ``api-token``,
``reports/``); ``local``'s are the home root. Adding a tenant writes its token (0600, 256
random bits) and its commented ``config.yaml``, then records the token's sha256 in the
``tenants`` table, so an API server on any host of the deployment can resolve it. Adding
one that exists changes nothing and says so (``created: false``): a provisioning script
can run again.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from pathlib import Path

from jobctrl import config as config_file
from jobctrl.app.models import Items, Timestamp, View
from jobctrl.domain.clock import as_utc
from jobctrl.domain.errors import TENANT_UNKNOWN, NotFoundError
from jobctrl.domain.tenants import LOCAL, checked_name, token_sha256
from jobctrl.home import Home
from jobctrl.store import tenants
from jobctrl.store.store import Store

__all__ = [
    "TenantAdded",
    "TenantItem",
    "TenantToken",
    "TokenResolver",
    "add_tenant",
    "api_token",
    "ensure_token",
    "list_tenants",
    "require_tenant",
    "tenant_token",
]


class TenantAdded(View):
    """A tenant added (``created`` false: it existed and was left as it is); its token's
    path is None on a host without the file."""

    tenant: str
    token_path: str | None
    config: str
    created: bool


class TenantToken(View):
    """Where a tenant's API token is (None: not on this host), and whether it was just
    replaced."""

    tenant: str
    token_path: str | None
    rotated: bool


class TenantItem(View):
    """A tenant of the deployment (``current``: the one JOBCTRL_TENANT selects)."""

    tenant: str
    created_at: Timestamp | None
    token_path: str | None
    current: bool


def api_token(path: Path) -> str:
    """The token in ``path`` (0600), created with 256 random bits on first use."""
    if path.exists():
        return path.read_text().strip()
    try:
        return _new_token_file(path)
    except FileExistsError:  # another process made it first
        return path.read_text().strip()


def _new_token_file(path: Path) -> str:
    """A new token (256 random bits) in the new file ``path`` (0600); ``FileExistsError``
    when the file exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(token + "\n")
    return token


def _base_store(home: Home) -> Store:
    """The deployment's store (as ``local``: the tenants table is the deployment's)."""
    return Store.open(home.with_tenant(LOCAL))


def require_tenant(home: Home) -> Home:
    """``home`` if its tenant is a valid name that exists (``invalid_tenant`` /
    ``tenant_unknown`` otherwise), checked before a command touches any of its files."""
    tenant = checked_name(home.tenant)
    if tenant != LOCAL and not _base_store(home).has_tenant(tenant):
        # Asked of the deployment's store: opening the tenant's would make its folder.
        raise NotFoundError(
            f"unknown tenant {tenant} (jobctrl tenants add {tenant})", code=TENANT_UNKNOWN
        )
    return home


def add_tenant(home: Home, name: str) -> TenantAdded:
    """Add the tenant ``name``: its folder, ``api-token``, ``config.yaml`` and row. An
    existing tenant is left as it is (``created`` false, the same token path, or None on
    a host without the file)."""
    name = checked_name(name.strip() if isinstance(name, str) else name)
    store = _base_store(home)
    tenant_home = home.with_tenant(name)
    created = False
    if name == LOCAL:
        ensure_token(home.with_tenant(LOCAL))
    elif not store.has_tenant(name):
        tenant_home.ensure()
        token = api_token(tenant_home.token_path)
        config_file.write_template(tenant_home)
        created = tenants.add(store, name, token_sha256(token))
    return TenantAdded(
        tenant=name,
        token_path=str(tenant_home.token_path) if tenant_home.token_path.exists() else None,
        config=str(tenant_home.config_path),
        created=created,
    )


def tenant_token(home: Home, name: str, *, rotate: bool = False) -> TenantToken:
    """Where the existing tenant ``name``'s token is (None when its file is not on this
    host). With ``rotate``, a new token replaces the old one:
    written beside it (0600), its hash recorded, then moved over it, so a failure leaves
    the old token working. An API server that resolved the old one keeps accepting it for
    up to ``TokenResolver``'s ttl (30 s); ``jobctrl up`` reads local's at its start."""
    name = checked_name(name.strip() if isinstance(name, str) else name)
    path = require_tenant(home.with_tenant(name)).token_path
    if rotate:
        fresh = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        token = _new_token_file(fresh)
        try:
            tenants.record_token(_base_store(home), name, token_sha256(token))
            os.replace(fresh, path)
        finally:
            fresh.unlink(missing_ok=True)
    return TenantToken(tenant=name, token_path=str(path) if path.exists() else None, rotated=rotate)


def list_tenants(home: Home) -> Items[TenantItem]:
    """Every tenant, ``local`` first (``createdAt`` in UTC; ``tokenPath`` None when the
    token file is not on this host)."""
    items = []
    for row in tenants.rows(_base_store(home)):
        path = home.with_tenant(row["name"]).token_path
        created = row["created_at"]
        items.append(
            TenantItem(
                tenant=row["name"],
                created_at=as_utc(created) if created else None,
                token_path=str(path) if path.exists() else None,
                current=row["name"] == home.tenant,
            )
        )
    return Items[TenantItem](items=items)


def ensure_token(home: Home) -> str | None:
    """The API token of ``home``'s tenant (made on first use), its hash recorded in the
    store so a request that sends it acts for this tenant (``jobctrl up``). None when this
    host has no token file but the tenant's token is recorded: its file lives on another
    host, and making a new one here would lock every holder of the real one out."""
    store = _base_store(home)
    recorded = tenants.token_hash(store, home.tenant)
    if recorded is not None and not home.token_path.exists():
        return None
    token = api_token(home.token_path)
    digest = token_sha256(token)
    if recorded != digest:
        tenants.record_token(store, home.tenant, digest)
    return token


class TokenResolver:
    """Bearer token → tenant name (None: no tenant has it), from the token hashes in the
    store. An answer is kept ``ttl`` seconds, a miss ``miss_ttl``: a token added on
    another host is seen within a second, a replaced one keeps working up to ``ttl``, and
    a flood of wrong tokens costs one read each at most once a second. Misses are kept
    apart (and bounded), so such a flood never evicts the tenants' answers."""

    def __init__(self, home: Home, *, ttl: float = 30.0, miss_ttl: float = 1.0) -> None:
        self.home = home
        self.ttl = ttl
        self.miss_ttl = miss_ttl
        self.max_kept = 10_000
        self._seen: dict[str, tuple[str | None, float]] = {}  # the tenants' tokens
        self._missed: dict[str, tuple[str | None, float]] = {}  # tokens of no tenant
        self._lock = threading.Lock()

    def cached(self, token: str) -> tuple[bool, str | None]:
        """(known, tenant) from the cache alone, without reading the store."""
        digest = token_sha256(token)
        with self._lock:
            entry = self._seen.get(digest) or self._missed.get(digest)
        if entry is None:
            return False, None
        tenant, at = entry
        fresh = time.monotonic() - at < (self.ttl if tenant else self.miss_ttl)
        return fresh, tenant

    def __call__(self, token: str) -> str | None:
        known, tenant = self.cached(token)
        if known:
            return tenant
        digest = token_sha256(token)
        tenant = tenants.by_token_hash(_base_store(self.home), digest)
        with self._lock:
            kept = self._seen if tenant else self._missed
            if len(kept) > self.max_kept:  # wrong tokens must not grow it without end
                kept.clear()
            kept[digest] = (tenant, time.monotonic())
            if tenant:
                self._missed.pop(digest, None)
        return tenant
