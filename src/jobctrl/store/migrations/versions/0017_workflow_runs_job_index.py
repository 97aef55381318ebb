"""workflow runs by job

An index on ``workflow_run_projections (job_id, status)``: the reconciler, automatic
recovery, the backlog sweep and `jobctrl cancel` ask for one job's runs (or which jobs
have an open run); without it each such read scans every run ever recorded.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05 12:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_workflow_runs_job", "workflow_run_projections", ["job_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_workflow_runs_job", table_name="workflow_run_projections")
