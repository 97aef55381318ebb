"""contact research: contacts, their attributes, research tasks and candidates

Issue 33: ``contacts`` (the people kept for a company), ``contact_attributes`` (a
contact's jobs, evidence, sources and notes), ``contact_research_tasks`` (one run per job
and request, with its source attempts) and ``contact_candidates`` (the people a run found,
to confirm or dismiss). Tables of ``store/contact_tables.py``.

Revision ID: 0036
Revises: 0035
Create Date: 2026-12-07 11:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None


def _tenant(sqlite: bool) -> sa.Column[str]:
    # PostgreSQL has no default (0026): a row without its tenant is refused there.
    return sa.Column(
        "tenant_id",
        sa.String(64),
        nullable=False,
        primary_key=True,
        server_default="local" if sqlite else None,
    )


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "contacts",
        _tenant(sqlite),
        sa.Column("contact_id", sa.String(32), primary_key=True),
        sa.Column("company", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("email", sa.Text()),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_contacts_company", "contacts", ["tenant_id", "company"])
    op.create_table(
        "contact_attributes",
        _tenant(sqlite),
        sa.Column("contact_id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.Text(), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_contact_attributes_value", "contact_attributes", ["tenant_id", "name", "value"]
    )
    op.create_table(
        "contact_research_tasks",
        _tenant(sqlite),
        sa.Column("task_id", sa.String(32), primary_key=True),
        sa.Column("job_id", sa.String(32), nullable=False),
        sa.Column("request_key", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("sources", sa.JSON(), nullable=False),
        sa.Column("source_attempts_json", sa.JSON(), nullable=False),
        sa.Column("workflow_id", sa.String(128)),
        sa.Column("owner_run_id", sa.String(64)),
        sa.Column("error_code", sa.String(64)),
        sa.Column("candidates", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
    )
    op.create_index(
        "ix_contact_research_tasks_request",
        "contact_research_tasks",
        ["tenant_id", "job_id", "request_key"],
        unique=True,
    )
    op.create_table(
        "contact_candidates",
        _tenant(sqlite),
        sa.Column("candidate_id", sa.String(32), primary_key=True),
        sa.Column("task_id", sa.String(32), nullable=False),
        sa.Column("job_id", sa.String(32), nullable=False),
        sa.Column("source_index", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("title", sa.Text()),
        sa.Column("email", sa.Text()),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("contact_id", sa.String(32)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_contact_candidates_task", "contact_candidates", ["tenant_id", "task_id", "source_index"]
    )
    op.create_index("ix_contact_candidates_job", "contact_candidates", ["tenant_id", "job_id"])


def downgrade() -> None:
    op.drop_index("ix_contact_candidates_job", table_name="contact_candidates")
    op.drop_index("ix_contact_candidates_task", table_name="contact_candidates")
    op.drop_table("contact_candidates")
    op.drop_index("ix_contact_research_tasks_request", table_name="contact_research_tasks")
    op.drop_table("contact_research_tasks")
    op.drop_index("ix_contact_attributes_value", table_name="contact_attributes")
    op.drop_table("contact_attributes")
    op.drop_table("contacts")
