"""tenant keys: settings, spend, profile versions

``settings``, ``llm_spend`` and ``profile_versions`` are upserted on their tenant keys now
(``ON CONFLICT (tenant_id, key)``, ``(tenant_id, day, lane)``, ``(tenant_id, sha256)``:
``store/settings.py``, ``store/spend.py``, ``store/profiles.py``), so the transitional
unique indexes 0023 kept on their old keys go: a second tenant may now have the same
setting, spend day and lane, and profile. A plain ``DROP INDEX`` on both stores.

``uq_stop_loss_kind_name_legacy`` stays until ``store/stop_loss.py`` upserts on
``(tenant_id, kind, name)``. Downgrade recreates the three (refused by the database while
two tenants share one of those keys).

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-02 01:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

DROPPED = {
    "uq_settings_key_legacy": ("settings", ["key"]),
    "uq_llm_spend_day_lane_legacy": ("llm_spend", ["day", "lane"]),
    "uq_profile_sha_legacy": ("profile_versions", ["sha256"]),
}


def upgrade() -> None:
    for name, (table, _) in DROPPED.items():
        op.drop_index(name, table_name=table)


def downgrade() -> None:
    for name, (table, cols) in DROPPED.items():
        op.create_index(name, table, cols, unique=True)
