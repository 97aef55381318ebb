"""the unread apply read model is dropped

``apply_run_projections`` was folded from every Application* event and read by nothing but
the fold itself and its tests (the apply commands, the tracker and the job view read
``applications`` and ``apply_attempts``). A read model that nothing reads is deleted, not
maintained. The other projections are untouched: the fold never wrote them from these
events.

Downgrade makes the table again as 0029 had it (``tenant_id`` keeps SQLite's ``'local'``
default and has none on PostgreSQL, as 0026 left it), empty: 0029 reads nothing from it
either, and ``jobctrl projections rebuild`` folds its rows from the log again. The other
projections and their watermark stay as they are.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-07 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_apply_run_projections_job", table_name="apply_run_projections")
    op.drop_table("apply_run_projections")


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "apply_run_projections",
        sa.Column("application_id", sa.String(length=32), nullable=False),
        sa.Column("job_id", sa.String(length=32), nullable=True),
        sa.Column("channel", sa.String(length=16), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("approved_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_event", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column(
            "tenant_id",
            sa.String(length=64),
            nullable=False,
            server_default="local" if sqlite else None,
        ),
        sa.PrimaryKeyConstraint("application_id"),
    )
    op.create_index("ix_apply_run_projections_job", "apply_run_projections", ["job_id"])
