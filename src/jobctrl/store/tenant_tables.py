"""The tenants' table, on the schema's ``metadata`` (migration 0023).

``tenants`` lists the tenants an operator added (``store/tenants.py``). ``local`` always
exists, with or without a row: it has one once its API token's hash is recorded. The
migration adds no row, so a migrated database is still empty (``jobctrl store copy``
copies only into one).

Five small tables are keyed by tenant (settings, spend, stop-loss, profile versions,
report numbers), and their modules upsert on those keys: the transitional ``*_legacy``
unique indexes on the old keys are gone (migrations 0024 and 0026).
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, String, Table, UniqueConstraint

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
