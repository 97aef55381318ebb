"""durable start intents

`jobctrl add` committed the job, then started its workflow: a failure between the two
(a broken config.yaml, a lost server) left the job pending with no execution. The intent
to start is now recorded with the job, and the worker starts what was not started.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 02:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "start_intents",
        sa.Column("workflow_id", sa.String(length=128), nullable=False),
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("workflow_id"),
    )
    op.create_index("ix_start_intents_open", "start_intents", ["started_at", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_start_intents_open", table_name="start_intents")
    op.drop_table("start_intents")
