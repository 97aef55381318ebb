"""the profile version a score was made with

``job_scores.profile_version``: the candidate profile version the score was computed
against (issue 28: a job is stale when its score was made with another version than the
current one; staleness is derived from this, never stored as a flag). A score from
before this revision takes its tenant's newest recorded version: the profile that was
current when the database was upgraded, the one most scores were made with (NULL when
the tenant recorded none: such a score counts as of no known version, never stale).

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-08 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("job_scores") as batch:
        batch.add_column(sa.Column("profile_version", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE job_scores SET profile_version = (SELECT max(pv.version) FROM "
        "profile_versions pv WHERE pv.tenant_id = job_scores.tenant_id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("job_scores") as batch:
        batch.drop_column("profile_version")
