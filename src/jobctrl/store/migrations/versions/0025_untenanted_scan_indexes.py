"""transitional indexes for the scans that do not name a tenant yet

0023 rebuilt these indexes with ``tenant_id`` first, for queries that say which tenant
they read. The operations snapshot, automatic recovery, start intents, the availability
sweep and the public-fetch recheck (issue 14's WP3 modules) do not say it yet, so without
these they scan their tables (SQLite and PostgreSQL cannot use an index whose first column
is not constrained). The index each had before 0023 is back under a name of its own; the
migration that gives those queries their tenant drops them.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-02 01:10:00
"""

from __future__ import annotations

from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

# name: (table, columns) — each the pre-0023 shape of the index named without "_any".
INDEXES = {
    "ix_job_stage_states_state_any": ("job_stage_states", ["stage", "state"]),
    "ix_job_stage_states_finished_any": ("job_stage_states", ["stage", "state", "finished_at"]),
    "ix_start_intents_open_any": ("start_intents", ["started_at", "created_at"]),
    "ix_recovery_cohorts_state_any": ("recovery_cohorts", ["state", "created_at"]),
    "ix_applications_status_any": ("applications", ["status"]),
    "ix_jobs_availability_due_any": ("jobs", ["availability_next_check_at"]),
    "ix_public_fetch_rechecks_due_any": ("public_fetch_rechecks", ["next_check_at"]),
}


def upgrade() -> None:
    for name, (table, columns) in INDEXES.items():
        op.create_index(name, table, columns)


def downgrade() -> None:
    for name, (table, _) in INDEXES.items():
        op.drop_index(name, table_name=table)
