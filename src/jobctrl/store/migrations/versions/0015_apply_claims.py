"""apply claims

``apply_claims``: the apply workflow's claims on jobs (the standing loop and one-shot
applies), at most one live per job (a partial unique index, as for send attempts), each
with its workflow run, lease and outcome. A new table: nothing to rebuild.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

LIVE = "state = 'claimed'"


def upgrade() -> None:
    op.create_table(
        "apply_claims",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("job_id", sa.String(length=32), sa.ForeignKey("jobs.id"), nullable=False),
        sa.Column("application_id", sa.String(length=32), nullable=True),
        sa.Column("workflow_id", sa.String(length=128), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retry_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_apply_claims_job", "apply_claims", ["job_id", "claimed_at"])
    op.create_index("ix_apply_claims_run", "apply_claims", ["workflow_id", "run_id"])
    op.create_index(
        "uq_apply_claims_live",
        "apply_claims",
        ["job_id"],
        unique=True,
        sqlite_where=sa.text(LIVE),
        postgresql_where=sa.text(LIVE),
    )


def downgrade() -> None:
    op.drop_index("uq_apply_claims_live", table_name="apply_claims")
    op.drop_index("ix_apply_claims_run", table_name="apply_claims")
    op.drop_index("ix_apply_claims_job", table_name="apply_claims")
    op.drop_table("apply_claims")
