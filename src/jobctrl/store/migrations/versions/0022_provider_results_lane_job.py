"""provider results by lane and job

An index on ``provider_results (lane, job_id)``: a run about to pay looks for an earlier
run's answer to the same request that was never parsed (a worker killed between the answer
and its output), among the answers to that lane of that job.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-01 21:30:00
"""

from __future__ import annotations

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_provider_results_lane_job", "provider_results", ["lane", "job_id"])


def downgrade() -> None:
    op.drop_index("ix_provider_results_lane_job", table_name="provider_results")
