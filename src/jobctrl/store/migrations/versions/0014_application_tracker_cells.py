"""application tracker cells

``applications.tracker``: the cells of a career-ops ``applications.md`` row as it was
imported (its ``#``, date, score, status, PDF and report cells, and a Via column's), so
an export writes back exactly what was read for every field jobctrl did not change since.
Nullable: rows jobctrl made itself have none.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("applications", sa.Column("tracker", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("applications") as batch:
        batch.drop_column("tracker")
