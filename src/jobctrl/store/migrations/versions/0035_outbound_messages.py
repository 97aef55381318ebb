"""outbound messages: follow-ups and outreach

``outbound_messages`` (a follow-up to an application or an outreach message to a contact,
its exact email and approval) and ``outbound_attempts`` (their sends, at most one live per
message), issue 33 (store/outbound_tables.py).

Revision ID: 0035
Revises: 0034
Create Date: 2026-12-07 11:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None

_LIVE = "state IN ('intent', 'data_sent')"


def _tenant(sqlite: bool) -> sa.Column[str]:
    # PostgreSQL has no default (0026): a row without its tenant is refused there.
    return sa.Column(
        "tenant_id", sa.String(64), nullable=False, server_default="local" if sqlite else None
    )


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "outbound_messages",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("job_id", sa.String(32)),
        sa.Column("application_id", sa.String(32)),
        sa.Column("contact_id", sa.String(32)),
        sa.Column("sequence", sa.Integer(), nullable=False, server_default="1"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("email_to", sa.JSON()),
        sa.Column("email_subject", sa.Text()),
        sa.Column("email_body", sa.Text()),
        sa.Column("in_reply_to", sa.Text()),
        sa.Column("thread_references", sa.Text()),
        sa.Column("message_id", sa.Text()),
        sa.Column("approval_digest", sa.String(64)),
        sa.Column("approved_at", sa.DateTime(timezone=True)),
        sa.Column("approval_expires_at", sa.DateTime(timezone=True)),
        sa.Column("error_code", sa.String(64)),
        sa.Column("sent_at", sa.DateTime(timezone=True)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        _tenant(sqlite),
    )
    op.create_index(
        "ix_outbound_application",
        "outbound_messages",
        ["tenant_id", "application_id", "sequence"],
    )
    op.create_index(
        "ix_outbound_contact", "outbound_messages", ["tenant_id", "contact_id", "job_id"]
    )
    op.create_table(
        "outbound_attempts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("outbound_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("message_id", sa.Text()),
        sa.Column("approval_digest", sa.String(64)),
        sa.Column("owner", sa.String(255)),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.Column("error_code", sa.String(64)),
        _tenant(sqlite),
    )
    op.create_index(
        "ix_outbound_attempts_message", "outbound_attempts", ["outbound_id", "started_at"]
    )
    op.create_index(
        "ix_outbound_attempts_day", "outbound_attempts", ["tenant_id", "kind", "started_at"]
    )
    op.create_index(
        "uq_outbound_attempts_live",
        "outbound_attempts",
        ["outbound_id"],
        unique=True,
        sqlite_where=sa.text(_LIVE),
        postgresql_where=sa.text(_LIVE),
    )


def downgrade() -> None:
    op.drop_index("uq_outbound_attempts_live", table_name="outbound_attempts")
    op.drop_index("ix_outbound_attempts_day", table_name="outbound_attempts")
    op.drop_index("ix_outbound_attempts_message", table_name="outbound_attempts")
    op.drop_table("outbound_attempts")
    op.drop_index("ix_outbound_contact", table_name="outbound_messages")
    op.drop_index("ix_outbound_application", table_name="outbound_messages")
    op.drop_table("outbound_messages")
