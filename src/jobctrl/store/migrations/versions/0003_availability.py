"""availability

Recurring availability checks of saved jobs: the latest evidence and its clock on ``jobs``.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02 09:12:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("availability", sa.String(length=16), nullable=True))
        batch_op.add_column(
            sa.Column("availability_checked_at", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(
            sa.Column("availability_next_check_at", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(
            sa.Column("availability_failures", sa.Integer(), server_default="0", nullable=False)
        )
        batch_op.add_column(sa.Column("availability_code", sa.String(length=64), nullable=True))
        batch_op.create_index(
            "ix_jobs_availability_due", ["availability_next_check_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_availability_due")
        batch_op.drop_column("availability_code")
        batch_op.drop_column("availability_failures")
        batch_op.drop_column("availability_next_check_at")
        batch_op.drop_column("availability_checked_at")
        batch_op.drop_column("availability")
