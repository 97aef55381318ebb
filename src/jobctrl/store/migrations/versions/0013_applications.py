"""applications

Job applications (issue 12): one row per application with the exact email that would go
out and its approval; its send and prefill attempts (at most one live per application,
also held by a partial unique index); and ``apply_run_projections``, the read model
folded from the Application* events. No event of these types existed before, so the
projections need no rebuild.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

LIVE = "state IN ('intent', 'data_sent', 'prefilling')"


def upgrade() -> None:
    op.create_table(
        "applications",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("job_id", sa.String(length=32), sa.ForeignKey("jobs.id"), nullable=True),
        sa.Column("company", sa.Text(), nullable=True),
        sa.Column("role", sa.Text(), nullable=True),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("channel", sa.String(length=16), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("email_to", sa.JSON(), nullable=True),
        sa.Column("email_subject", sa.Text(), nullable=True),
        sa.Column("email_body", sa.Text(), nullable=True),
        sa.Column("attachments", sa.JSON(), nullable=True),
        sa.Column("message_id", sa.Text(), nullable=True),
        sa.Column("approval_digest", sa.String(length=64), nullable=True),
        sa.Column("approved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("approval_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.Column("form_url", sa.Text(), nullable=True),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("follow_up", sa.Date(), nullable=True),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(length=16), server_default="jobctrl", nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("job_id"),
    )
    op.create_index("ix_applications_status", "applications", ["status"])
    op.create_table(
        "apply_attempts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column(
            "application_id",
            sa.String(length=32),
            sa.ForeignKey("applications.id"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("message_id", sa.Text(), nullable=True),
        sa.Column("approval_digest", sa.String(length=64), nullable=True),
        sa.Column("owner", sa.String(length=255), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_apply_attempts_application", "apply_attempts", ["application_id", "started_at"]
    )
    op.create_index(
        "uq_apply_attempts_live",
        "apply_attempts",
        ["application_id"],
        unique=True,
        sqlite_where=sa.text(LIVE),
        postgresql_where=sa.text(LIVE),
    )
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
        sa.PrimaryKeyConstraint("application_id"),
    )
    op.create_index("ix_apply_run_projections_job", "apply_run_projections", ["job_id"])


def downgrade() -> None:
    op.drop_index("ix_apply_run_projections_job", table_name="apply_run_projections")
    op.drop_table("apply_run_projections")
    op.drop_index("uq_apply_attempts_live", table_name="apply_attempts")
    op.drop_index("ix_apply_attempts_application", table_name="apply_attempts")
    op.drop_table("apply_attempts")
    op.drop_index("ix_applications_status", table_name="applications")
    op.drop_table("applications")
