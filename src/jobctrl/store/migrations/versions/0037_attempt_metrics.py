"""operational attempt metrics

``operational_attempt_metrics``: one row per stage attempt (stage, LLM lane, start, end,
duration, failure code), a projection folded from the stage events (issue 34). The fold's
watermark is reset so the store's next open folds the whole log again: the table starts
with every attempt the log already holds.

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-07 10:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None

PROJECTIONS = ("job_list_projections", "workflow_run_projections", "pipeline_step_projections")


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"  # PostgreSQL has no default (0026)
    op.create_table(
        "operational_attempt_metrics",
        sa.Column(
            "tenant_id",
            sa.String(64),
            primary_key=True,
            server_default="local" if sqlite else None,
        ),
        sa.Column("job_id", sa.String(32), primary_key=True),
        sa.Column("stage", sa.String(16), primary_key=True),
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("attempt", sa.Integer(), primary_key=True),
        sa.Column("lane", sa.String(32)),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("error_code", sa.String(64)),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.Column("duration_seconds", sa.Float()),
        sa.Column("last_seq", sa.Integer(), nullable=False),
    )
    op.create_index(
        "ix_attempt_metrics_finished",
        "operational_attempt_metrics",
        ["tenant_id", "finished_at"],
    )
    # Every projection is folded again from the log (the others' rows come out the same).
    for table in PROJECTIONS:
        op.execute(sa.text(f"DELETE FROM {table}"))
    op.execute(sa.text("DELETE FROM projection_watermarks WHERE name = 'jobs'"))


def downgrade() -> None:
    op.drop_index("ix_attempt_metrics_finished", "operational_attempt_metrics")
    op.drop_table("operational_attempt_metrics")
