"""truth checks

Each Tailor and Cover attempt's truth check: passed or refused, the lines it read and
each unsupported claim with its sentence (at most 200), for `jobctrl show` and the Job
page. Events keep carrying only the code and the number of findings.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "truth_checks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("stage", sa.String(length=16), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("checked", sa.Integer(), nullable=False),
        sa.Column("finding_count", sa.Integer(), nullable=False),
        sa.Column("findings", sa.JSON(), nullable=False),
        sa.Column("profile_version", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("job_id", "stage", "run_id", "attempt", name="uq_truth_check_attempt"),
    )
    op.create_index("ix_truth_checks_job", "truth_checks", ["job_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_truth_checks_job", table_name="truth_checks")
    op.drop_table("truth_checks")
