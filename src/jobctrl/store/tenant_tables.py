"""The tenants' table, on the schema's ``metadata`` (migration 0023), and the unique
indexes that keep today's upserts working while the store learns tenants.

``tenants`` lists the tenants an operator added (``store/tenants.py``). ``local`` always
exists, with or without a row: it has one once its API token's hash is recorded. The
migration adds no row, so a migrated database is still empty (``jobctrl store copy``
copies only into one).

Four tables are keyed by tenant now (settings, spend, stop-loss, profile versions). An
upsert names exactly the columns of a unique index (``ON CONFLICT (kind, name)``): until a
module upserts on its tenant key, its old key stays unique through a ``*_legacy`` index
here, and a second tenant cannot yet have the same stop-loss name. Settings, spend and
profile versions upsert on their tenant keys; migration 0024 dropped their legacy indexes.
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, String, Table, UniqueConstraint

from jobctrl.store import operations_tables
from jobctrl.store.schema import metadata

tenants = Table(
    "tenants",
    metadata,
    Column("name", String(32), primary_key=True),  # domain.tenants' grammar
    # sha256 of the tenant's API token (hex): the HTTP API finds the tenant by it.
    Column("token_sha256", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("token_sha256", name="uq_tenants_token"),
)

LEGACY_UNIQUE = (
    Index(
        "uq_stop_loss_kind_name_legacy",
        operations_tables.stop_loss.c.kind,
        operations_tables.stop_loss.c.name,
        unique=True,
    ),
)
