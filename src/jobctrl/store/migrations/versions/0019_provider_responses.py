"""provider responses

``provider_results.response``: the provider's answer (the pydantic-ai response message,
as JSON), written in the same transaction as the call's usage, the moment it arrives.
A worker that dies after that commit and before the validated ``output`` is stored
leaves the answer behind, and the retry re-parses it instead of paying again. Until the
output is stored, ``output`` holds JSON null.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("provider_results", sa.Column("response", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("provider_results") as batch:
        batch.drop_column("response")
