"""tenant scans and the stop-loss key

The operations, recovery, availability and public-fetch reads name their tenant now
(issue 14's WP3), so they walk the tenant-first indexes 0023 made; 0025's untenanted
``*_any`` copies of those indexes go (checked with EXPLAIN on both stores: every such read
uses ``ix_job_stage_states_state``/``_finished``, ``ix_start_intents_open``,
``ix_recovery_cohorts_state``, ``ix_applications_status``, ``ix_jobs_availability_due``
or ``ix_public_fetch_rechecks_due``). ``store/stop_loss.py`` upserts on
``(tenant_id, kind, name)``, so ``uq_stop_loss_kind_name_legacy`` goes too: two tenants may
pause a lane or source of the same name. Plain ``DROP INDEX`` on both stores.

PostgreSQL: every writer stamps ``tenant_id``, so the column loses its ``'local'`` default
on the 27 tables 0023 gave it to: a row written without a tenant is refused (NOT NULL)
rather than filed as ``local``'s. SQLite keeps the default (dropping it needs a copy of
each table; the tests' guard catches an unstamped insert there).

Downgrade puts back the defaults and the indexes (the legacy one is refused by the
database while two tenants share a stop-loss name).

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-02 04:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

# 0025's: name -> (table, columns).
UNTENANTED = {
    "ix_job_stage_states_state_any": ("job_stage_states", ["stage", "state"]),
    "ix_job_stage_states_finished_any": ("job_stage_states", ["stage", "state", "finished_at"]),
    "ix_start_intents_open_any": ("start_intents", ["started_at", "created_at"]),
    "ix_recovery_cohorts_state_any": ("recovery_cohorts", ["state", "created_at"]),
    "ix_applications_status_any": ("applications", ["status"]),
    "ix_jobs_availability_due_any": ("jobs", ["availability_next_check_at"]),
    "ix_public_fetch_rechecks_due_any": ("public_fetch_rechecks", ["next_check_at"]),
}
LEGACY = ("uq_stop_loss_kind_name_legacy", "stop_loss", ["kind", "name"])

# The tables 0023 gave ``tenant_id ... DEFAULT 'local'``.
DEFAULTED = (
    "jobs", "job_stage_states", "job_events", "job_scores", "job_list_projections",
    "workflow_run_projections", "llm_usage_observations", "source_observations",
    "pipeline_step_projections", "llm_reservations", "materials", "provider_results",
    "start_intents", "truth_checks", "applications", "apply_attempts",
    "apply_run_projections", "apply_claims", "recovery_cohorts", "public_fetch_rechecks",
    "orphan_executions", "stop_requests",
    "settings", "llm_spend", "stop_loss", "report_numbers", "profile_versions",
)  # fmt: skip


def _postgres() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade() -> None:
    for name, (table, _) in UNTENANTED.items():
        op.drop_index(name, table_name=table)
    op.drop_index(LEGACY[0], table_name=LEGACY[1])
    if _postgres():
        for table in DEFAULTED:
            op.alter_column(table, "tenant_id", server_default=None)


def downgrade() -> None:
    if _postgres():
        for table in DEFAULTED:
            op.alter_column(table, "tenant_id", server_default="local")
    name, table, columns = LEGACY
    op.create_index(name, table, columns, unique=True)
    for name, (table, columns) in UNTENANTED.items():
        op.create_index(name, table, columns)
