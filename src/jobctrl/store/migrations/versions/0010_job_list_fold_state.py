"""job list keeps its fold state; the unread job detail projection is dropped

``job_detail_projections`` was rewritten on every job event and read by nothing but the
fold itself (the job view reads the write tables). The list row now keeps the little
the fold needs: each stage's state and code, and where the title came from. The
projections are emptied and their watermark reset; the store folds the whole log again
when it opens (``Store.catch_up``).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-30 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

PROJECTIONS = ("job_list_projections", "workflow_run_projections", "pipeline_step_projections")


def upgrade() -> None:
    op.drop_table("job_detail_projections")
    # Plain ADD COLUMN (no batch copy of the table): it keeps the list's expression indexes.
    op.add_column("job_list_projections", sa.Column("stages", sa.JSON(), nullable=True))
    op.add_column(
        "job_list_projections", sa.Column("title_source", sa.String(length=16), nullable=True)
    )
    for table in PROJECTIONS:
        op.execute(sa.text(f"DELETE FROM {table}"))
    op.execute(sa.text("DELETE FROM projection_watermarks WHERE name = 'jobs'"))


def downgrade() -> None:
    op.drop_column("job_list_projections", "title_source")
    op.drop_column("job_list_projections", "stages")
    op.create_table(
        "job_detail_projections",
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("doc", sa.JSON(), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("job_id"),
    )
    for table in PROJECTIONS:
        op.execute(sa.text(f"DELETE FROM {table}"))
    op.execute(sa.text("DELETE FROM projection_watermarks WHERE name = 'jobs'"))
