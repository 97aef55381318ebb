"""workflow run status width

``workflow_run_projections.status`` was ``VARCHAR(16)``: the reconciler's provisional
``reconciled_not_found`` (20 characters) fits on SQLite, which ignores the length, but
PostgreSQL refused it (``value too long for type character varying(16)``), failing the
worker's pass over a run the server has no history of. Widened to 24, as
``discovery_runs.status`` is (on SQLite through a batch copy of the table).

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-02 07:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workflow_run_projections") as batch:
        batch.alter_column(
            "status", type_=sa.String(24), existing_type=sa.String(16), existing_nullable=False
        )


def downgrade() -> None:
    with op.batch_alter_table("workflow_run_projections") as batch:
        batch.alter_column(
            "status", type_=sa.String(16), existing_type=sa.String(24), existing_nullable=False
        )
