"""the browser extension: pairing codes, extension tokens, captures

Issue 32: ``extension_pair_codes`` (one-time codes, by sha256), ``extension_tokens``
(each paired extension's token, by sha256, scoped to captures and status) and
``job_captures`` (postings a person's browser sent, by reference to their sanitised
snapshot). Tables of ``store/extension_tables.py``.

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-07 10:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None


def _tenant(sqlite: bool, *, pk: bool = False) -> sa.Column[str]:
    # PostgreSQL has no default (0026): a row without its tenant is refused there.
    return sa.Column(
        "tenant_id",
        sa.String(64),
        nullable=False,
        primary_key=pk,
        server_default="local" if sqlite else None,
    )


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "extension_pair_codes",
        sa.Column("code_sha256", sa.String(64), primary_key=True),
        _tenant(sqlite),
        sa.Column("name", sa.String(64)),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "extension_tokens",
        _tenant(sqlite, pk=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("token_sha256", sa.String(64), nullable=False),
        sa.Column("origin", sa.String(128)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True)),
        sa.UniqueConstraint("token_sha256", name="uq_extension_tokens_token"),
    )
    op.create_table(
        "job_captures",
        _tenant(sqlite, pk=True),
        sa.Column("capture_id", sa.String(32), primary_key=True),
        sa.Column("job_id", sa.String(32), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("snapshot_artifact", sa.String(64), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("token_name", sa.String(64)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_job_captures_job", "job_captures", ["tenant_id", "job_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_job_captures_job", table_name="job_captures")
    op.drop_table("job_captures")
    op.drop_table("extension_tokens")
    op.drop_table("extension_pair_codes")
