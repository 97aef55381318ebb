"""operations

Issue 13's tables: ``recovery_cohorts`` (automatic recovery's frozen cohorts),
``worker_runtime_heartbeats`` (what each worker reports it is executing), ``stop_loss``
(consecutive-failure windows and pauses per lane and source), ``orphan_executions`` and
``stop_requests`` (executions the store does not expect, and stops re-issued until
observed); and on ``job_stage_states`` the automatic attempts and the cohort reservation.
New tables and nullable/defaulted columns: nothing to rebuild.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-05 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column(
        "job_stage_states",
        sa.Column("auto_attempts", sa.Integer(), nullable=False, server_default="0"),
    )
    op.add_column("job_stage_states", sa.Column("reserved_by", sa.String(length=128)))
    op.create_table(
        "recovery_cohorts",
        sa.Column("workflow_id", sa.String(length=128), nullable=False),
        sa.Column("stage", sa.String(length=16), nullable=False),
        sa.Column("job_ids", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("workflow_id"),
    )
    op.create_index("ix_recovery_cohorts_state", "recovery_cohorts", ["state", "created_at"])
    op.create_table(
        "worker_runtime_heartbeats",
        sa.Column("worker_id", sa.String(length=128), nullable=False),
        sa.Column("home_id", sa.String(length=64), nullable=False),
        sa.Column("task_queue", sa.String(length=128), nullable=False),
        sa.Column("started_at", TZ, nullable=False),
        sa.Column("beat_at", TZ, nullable=False),
        sa.Column("interval_seconds", sa.Float(), nullable=False),
        sa.Column("active_slots", sa.Integer(), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.Column("items_total", sa.Integer(), nullable=False),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("durations", sa.JSON(), nullable=False),
        sa.Column("queue", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("worker_id"),
    )
    op.create_table(
        "stop_loss",
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("streak_code", sa.String(length=64), nullable=True),
        sa.Column("streak", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("streak_jobs", sa.JSON(), nullable=True),
        sa.Column("paused_code", sa.String(length=64), nullable=True),
        sa.Column("paused_at", TZ, nullable=True),
        sa.Column("resumed_at", TZ, nullable=True),
        sa.Column("updated_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("kind", "name"),
    )
    op.create_table(
        "orphan_executions",
        sa.Column("workflow_id", sa.String(length=128), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("workflow_type", sa.String(length=64), nullable=False),
        sa.Column("started_at", TZ, nullable=True),
        sa.Column("first_seen_at", TZ, nullable=False),
        sa.Column("last_seen_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("workflow_id", "run_id"),
    )
    op.create_table(
        "stop_requests",
        sa.Column("workflow_id", sa.String(length=128), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("requested_at", TZ, nullable=False),
        sa.Column("issued", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last_issued_at", TZ, nullable=True),
        sa.Column("observed_closed_at", TZ, nullable=True),
        sa.Column("gave_up_at", TZ, nullable=True),
        sa.PrimaryKeyConstraint("workflow_id", "run_id"),
    )


def downgrade() -> None:
    op.drop_table("stop_requests")
    op.drop_table("orphan_executions")
    op.drop_table("stop_loss")
    op.drop_table("worker_runtime_heartbeats")
    op.drop_index("ix_recovery_cohorts_state", table_name="recovery_cohorts")
    op.drop_table("recovery_cohorts")
    with op.batch_alter_table("job_stage_states") as batch:
        batch.drop_column("reserved_by")
        batch.drop_column("auto_attempts")
