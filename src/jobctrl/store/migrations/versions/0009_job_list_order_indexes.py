"""job list order indexes

The Jobs list is read page by page in one of three orders, optionally within one status;
each order gets an index with the exact expressions of its ORDER BY, so a page is read in
index order instead of sorting every row (bench/api.py: 20,000 jobs, sorted page p50
37 ms → 3 ms).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-29 17:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

TABLE = "job_list_projections"
INDEXES = {
    "ix_job_list_rank": ["(score IS NULL)", "score DESC", "job_id"],
    "ix_job_list_status_rank": ["status", "(score IS NULL)", "score DESC", "job_id"],
    "ix_job_list_updated": ["updated_at DESC", "job_id"],
    "ix_job_list_created": ["created_at DESC", "job_id"],
}


def upgrade() -> None:
    for name, columns in INDEXES.items():
        op.create_index(name, TABLE, [sa.text(c) for c in columns])


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name=TABLE)
