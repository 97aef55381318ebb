"""attempt metrics: a stage's newest successes, and interrupted attempts

pipeline-eta-v1 reads each stage's most recent successful attempts from
``operational_attempt_metrics`` (issue 34): an index on (tenant, stage, outcome, finished)
serves that read. The fold now closes an attempt left open when a later attempt of the
same stage starts (``interrupted``); the fold's watermark is reset so the store's next
open folds the log again and the rows already kept follow the rule too.

Revision ID: 0038
Revises: 0037
Create Date: 2026-12-07 13:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None

PROJECTIONS = (
    "job_list_projections",
    "workflow_run_projections",
    "pipeline_step_projections",
    "operational_attempt_metrics",
)


def upgrade() -> None:
    op.create_index(
        "ix_attempt_metrics_stage",
        "operational_attempt_metrics",
        ["tenant_id", "stage", "outcome", "finished_at"],
    )
    for table in PROJECTIONS:
        op.execute(sa.text(f"DELETE FROM {table}"))
    op.execute(sa.text("DELETE FROM projection_watermarks WHERE name = 'jobs'"))


def downgrade() -> None:
    op.drop_index("ix_attempt_metrics_stage", "operational_attempt_metrics")
