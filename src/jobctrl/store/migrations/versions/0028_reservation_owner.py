"""reservation owner

``llm_reservations.owner``: the process (``host/pid/start``, ``domain.processes``) whose
attempt may still be asking the provider under this reservation, NULL once that attempt
is over without an answer recorded (its reservation stays open: it may have been paid).
A later attempt of the same lane of the same job waits while an owner may still get an
answer, and reuses it, instead of paying again (``llm.lanes``). Rows from before this
revision have no owner: nobody waits on them.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-02 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("llm_reservations") as batch:
        batch.add_column(sa.Column("owner", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("llm_reservations") as batch:
        batch.drop_column("owner")
