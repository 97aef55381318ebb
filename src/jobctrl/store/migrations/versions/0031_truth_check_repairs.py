"""what the truth check repaired

A document the check flags is repaired rather than refused (issue 27): each unsupported
sentence removed, a headline or summary sentence replaced, a changed field restored. Each
check row now keeps what was done (``changes``: ``[{where, sentence, action, replacement,
reasons}]``, at most 200) and whether the one repair request went to the model
(``repair_requested``). Rows from before this revision repaired nothing: an empty list,
false.

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-07 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("truth_checks") as batch:
        batch.add_column(sa.Column("changes", sa.JSON(), nullable=True))
        batch.add_column(
            sa.Column("repair_requested", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("truth_checks") as batch:
        batch.drop_column("repair_requested")
        batch.drop_column("changes")
