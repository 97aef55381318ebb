"""The tenants' table, on the schema's ``metadata`` (migration 0023), and the unique
indexes that keep today's upserts working while the store learns tenants.

``tenants`` lists the tenants an operator added (``store/tenants.py``). ``local`` always
exists, with or without a row: it has one once its API token's hash is recorded. The
migration adds no row, so a migrated database is still empty (``jobctrl store copy``
copies only into one).

Four tables are keyed by tenant now (settings, spend, stop-loss, profile versions), but
their modules still upsert on the old key (``ON CONFLICT (key)``), which needs a unique
index on exactly those columns. Until each module upserts on its tenant key, the old key
stays unique through a ``*_legacy`` index here: a second tenant cannot yet have the same
settings key, spend day or profile. A later migration drops them (issue 14, WP2/WP3).
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, String, Table, UniqueConstraint

from jobctrl.store import operations_tables
from jobctrl.store.schema import llm_spend, metadata, profile_versions, settings

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
    Index("uq_settings_key_legacy", settings.c.key, unique=True),
    Index("uq_llm_spend_day_lane_legacy", llm_spend.c.day, llm_spend.c.lane, unique=True),
    Index("uq_profile_sha_legacy", profile_versions.c.sha256, unique=True),
    Index(
        "uq_stop_loss_kind_name_legacy",
        operations_tables.stop_loss.c.kind,
        operations_tables.stop_loss.c.name,
        unique=True,
    ),
)
