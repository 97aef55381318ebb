"""postings the person hid

``job_hides``: one row per posting the person said "not interested" in, keyed by the
job's idempotency key (issue 30). A hidden job leaves the inbox and is never prepared,
checked or applied to; the row outlives a deleted job, so a hidden posting found again by
discovery stays hidden.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-07 07:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"  # PostgreSQL has no default (0026)
    op.create_table(
        "job_hides",
        sa.Column(
            "tenant_id",
            sa.String(64),
            primary_key=True,
            server_default="local" if sqlite else None,
        ),
        sa.Column("idempotency_key", sa.String(64), primary_key=True),
        sa.Column("job_id", sa.String(32), nullable=False),
        sa.Column("reason", sa.Text()),
        sa.Column("hidden_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("job_hides")
