"""worker leases

``worker_leases``: who runs the heartbeat's singleton duties of a task queue (one worker
of several), until when. A new table: nothing to rebuild.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-01 21:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "worker_leases",
        sa.Column("name", sa.String(length=160), nullable=False),
        sa.Column("holder", sa.String(length=128), nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
        sa.Column("acquired_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("worker_leases")
