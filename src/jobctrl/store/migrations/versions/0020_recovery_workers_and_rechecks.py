"""recovery workers and public-fetch rechecks

``recovery_cohorts.workers``: the members a recovery cohort runs at once, its frozen
share of ``pipeline_internal_concurrency`` (NULL for cohorts saved before: 2, what
their input said). ``public_fetch_rechecks``: the typed evidence of an Enrich refused
because a host name resolved to a non-public address, and the worker's checks of it.
A new nullable column and a new table: nothing to rebuild.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-01 21:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("recovery_cohorts", sa.Column("workers", sa.Integer(), nullable=True))
    op.create_table(
        "public_fetch_rechecks",
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("cause", sa.String(length=32), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("checks", sa.Integer(), nullable=False),
        sa.Column("next_check_at", TZ, nullable=True),
        sa.Column("result", sa.String(length=16), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("job_id"),
    )
    op.create_index("ix_public_fetch_rechecks_due", "public_fetch_rechecks", ["next_check_at"])


def downgrade() -> None:
    op.drop_index("ix_public_fetch_rechecks_due", table_name="public_fetch_rechecks")
    op.drop_table("public_fetch_rechecks")
    with op.batch_alter_table("recovery_cohorts") as batch:
        batch.drop_column("workers")
