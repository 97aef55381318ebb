"""stop request outcome

``stop_requests.outcome``: how a stop request ended, recorded by the heartbeat that saw
it through: ``closed`` (Temporal reported the execution closed after the cancels),
``terminated`` (the cancels were not honoured: the last step terminated it, and it was
then seen closed), ``gave_up`` (still running after every step), ``not_found`` (Temporal
has no such run: nothing was seen closed). NULL while pending. Rows from before this
revision take the outcome their timestamps claimed.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-06 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("stop_requests") as batch:
        batch.add_column(sa.Column("outcome", sa.String(16), nullable=True))
    op.execute("UPDATE stop_requests SET outcome = 'closed' WHERE observed_closed_at IS NOT NULL")
    op.execute(
        "UPDATE stop_requests SET outcome = 'gave_up' "
        "WHERE outcome IS NULL AND gave_up_at IS NOT NULL"
    )


def downgrade() -> None:
    with op.batch_alter_table("stop_requests") as batch:
        batch.drop_column("outcome")
