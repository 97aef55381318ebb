"""discovery refusals: a run refused at its first step, with the run it yielded to

A discovery run started by the schedule while another run still finds jobs or prepares
them ends at its first step with ``discovery_busy`` (issue 34) and never gets a
``discovery_runs`` row. ``discovery_refusals`` keeps it (its code, the run it yielded to,
when) so the Runs page, `jobctrl runs` and ``GET /v1/runs`` list it as skipped.

Revision ID: 0039
Revises: 0038
Create Date: 2026-12-07 14:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "discovery_refusals",
        # PostgreSQL has no default (0026): a row without its tenant is refused there.
        sa.Column(
            "tenant_id",
            sa.String(64),
            nullable=False,
            primary_key=True,
            server_default="local" if sqlite else None,
        ),
        sa.Column("workflow_id", sa.String(128), primary_key=True),
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("error_code", sa.String(64), nullable=False),
        sa.Column("yielded_to_run_id", sa.String(64), nullable=False),
        sa.Column("refused_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("discovery_refusals")
