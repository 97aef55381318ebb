"""tenants

Every table of a tenant's data gets ``tenant_id`` (NOT NULL, default ``'local'``), so every
existing row is the ``local`` tenant's and nothing else changes for a single-person home.
A plain ``ADD COLUMN`` with a constant default on both stores (no table copy: the job
list's expression indexes and a large ``job_events`` stay as they are); PostgreSQL 11+
does not rewrite the table either.

Five small tables change their key to include the tenant: ``settings``, ``llm_spend`` and
``stop_loss`` (primary keys), ``report_numbers.number`` and ``profile_versions.sha256``
(unique). PostgreSQL alters the constraints in place (``profile_versions.version`` keeps its
sequence); SQLite cannot, so those five are copied into a new table and renamed. Their
modules still upsert on the old key, so ``*_legacy`` unique indexes keep it unique until
they upsert on the tenant's (``store/tenant_tables.py``).

The indexes that lists and scans read per tenant get ``tenant_id`` first. New:
``tenants`` (empty: ``local`` always exists; ``jobctrl store copy`` copies only into an
empty database), ``ix_job_events_tenant`` and ``ix_workflow_runs_tenant``.

Downgrade refuses while a tenant other than ``local`` exists (its rows would become
``local``'s).

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-02 10:00:00
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)
LOCAL = "local"

# Tables that get the column with ADD COLUMN on both stores.
ADDED = (
    "jobs", "job_stage_states", "job_events", "job_scores", "job_list_projections",
    "workflow_run_projections", "llm_usage_observations", "source_observations",
    "pipeline_step_projections", "llm_reservations", "materials", "provider_results",
    "start_intents", "truth_checks", "applications", "apply_attempts",
    "apply_run_projections", "apply_claims", "recovery_cohorts", "public_fetch_rechecks",
    "orphan_executions", "stop_requests",
)  # fmt: skip


def _tenant_id() -> sa.Column[str]:
    return sa.Column("tenant_id", sa.String(length=64), nullable=False, server_default=LOCAL)


# -- the five re-keyed tables: their columns (without tenant_id), old and new keys --------

REKEYED: dict[str, Callable[[], list[sa.Column[object]]]] = {
    "settings": lambda: [
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
    ],
    "llm_spend": lambda: [
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("lane", sa.String(length=32), nullable=False),
        sa.Column("input_tokens", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("output_tokens", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("cost_usd", sa.Float(), server_default="0", nullable=False),
        sa.Column("calls", sa.Integer(), server_default="0", nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
    ],
    "stop_loss": lambda: [
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("streak_code", sa.String(length=64), nullable=True),
        sa.Column("streak", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("streak_jobs", sa.JSON(), nullable=True),
        sa.Column("paused_code", sa.String(length=64), nullable=True),
        sa.Column("paused_at", TZ, nullable=True),
        sa.Column("resumed_at", TZ, nullable=True),
        sa.Column("updated_at", TZ, nullable=False),
    ],
    "report_numbers": lambda: [
        sa.Column("job_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("path", sa.Text(), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("written_at", TZ, nullable=True),
    ],
    "profile_versions": lambda: [
        sa.Column("version", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("profile", sa.JSON(), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
    ],
}
# (kind, constraint name, columns): before and after. PostgreSQL's own names before.
Key = tuple[str, str, list[str]]
OLD_KEYS: dict[str, list[Key]] = {
    "settings": [("primary", "settings_pkey", ["key"])],
    "llm_spend": [("primary", "llm_spend_pkey", ["day", "lane"])],
    "stop_loss": [("primary", "stop_loss_pkey", ["kind", "name"])],
    "report_numbers": [
        ("primary", "report_numbers_pkey", ["job_id"]),
        ("unique", "report_numbers_number_key", ["number"]),
    ],
    "profile_versions": [
        ("primary", "profile_versions_pkey", ["version"]),
        ("unique", "profile_versions_sha256_key", ["sha256"]),
    ],
}
NEW_KEYS: dict[str, list[Key]] = {
    "settings": [("primary", "pk_settings", ["tenant_id", "key"])],
    "llm_spend": [("primary", "pk_llm_spend", ["tenant_id", "day", "lane"])],
    "stop_loss": [("primary", "pk_stop_loss", ["tenant_id", "kind", "name"])],
    "report_numbers": [
        ("primary", "report_numbers_pkey", ["job_id"]),
        ("unique", "uq_report_number", ["tenant_id", "number"]),
    ],
    "profile_versions": [
        ("primary", "profile_versions_pkey", ["version"]),
        ("unique", "uq_profile_sha", ["tenant_id", "sha256"]),
    ],
}
# The old keys, unique until their modules upsert on the tenant's key.
LEGACY_UNIQUE = {
    "uq_settings_key_legacy": ("settings", ["key"]),
    "uq_llm_spend_day_lane_legacy": ("llm_spend", ["day", "lane"]),
    "uq_stop_loss_kind_name_legacy": ("stop_loss", ["kind", "name"]),
    "uq_profile_sha_legacy": ("profile_versions", ["sha256"]),
}

# -- indexes: (table, columns before, columns after); None: not there -----------------------

INDEXES: dict[str, tuple[str, list[str] | None, list[str]]] = {
    "ix_jobs_availability_due": (
        "jobs",
        ["availability_next_check_at"],
        ["tenant_id", "availability_next_check_at"],
    ),
    "ix_job_stage_states_state": (
        "job_stage_states",
        ["stage", "state"],
        ["tenant_id", "stage", "state"],
    ),
    "ix_job_stage_states_finished": (
        "job_stage_states",
        ["stage", "state", "finished_at"],
        ["tenant_id", "stage", "state", "finished_at"],
    ),
    "ix_job_events_tenant": ("job_events", None, ["tenant_id", "seq"]),
    "ix_job_list_score": ("job_list_projections", ["score"], ["tenant_id", "score"]),
    "ix_job_list_rank": (
        "job_list_projections",
        ["(score IS NULL)", "score DESC", "job_id"],
        ["tenant_id", "(score IS NULL)", "score DESC", "job_id"],
    ),
    "ix_job_list_status_rank": (
        "job_list_projections",
        ["status", "(score IS NULL)", "score DESC", "job_id"],
        ["tenant_id", "status", "(score IS NULL)", "score DESC", "job_id"],
    ),
    "ix_job_list_updated": (
        "job_list_projections",
        ["updated_at DESC", "job_id"],
        ["tenant_id", "updated_at DESC", "job_id"],
    ),
    "ix_job_list_created": (
        "job_list_projections",
        ["created_at DESC", "job_id"],
        ["tenant_id", "created_at DESC", "job_id"],
    ),
    "ix_workflow_runs_tenant": ("workflow_run_projections", None, ["tenant_id", "status"]),
    "ix_source_observations_external": (
        "source_observations",
        ["source_kind", "external_id"],
        ["tenant_id", "source_kind", "external_id"],
    ),
    "ix_llm_reservations_open": (
        "llm_reservations",
        ["day", "settled_at"],
        ["tenant_id", "day", "settled_at"],
    ),
    "ix_start_intents_open": (
        "start_intents",
        ["started_at", "created_at"],
        ["tenant_id", "started_at", "created_at"],
    ),
    "ix_applications_status": ("applications", ["status"], ["tenant_id", "status"]),
    "ix_recovery_cohorts_state": (
        "recovery_cohorts",
        ["state", "created_at"],
        ["tenant_id", "state", "created_at"],
    ),
    "ix_public_fetch_rechecks_due": (
        "public_fetch_rechecks",
        ["next_check_at"],
        ["tenant_id", "next_check_at"],
    ),
}


def _sqlite() -> bool:
    return bool(op.get_bind().dialect.name == "sqlite")


def _elements(columns: list[str]) -> list[str | sa.TextClause]:
    """Column names as names, the job list's expressions as SQL text."""
    return [c if c.isidentifier() else sa.text(c) for c in columns]


def _constraints(keys: list[Key]) -> list[sa.Constraint]:
    return [
        sa.PrimaryKeyConstraint(*cols, name=name)
        if kind == "primary"
        else sa.UniqueConstraint(*cols, name=name)
        for kind, name, cols in keys
    ]


def _copy_sqlite(table: str, *, tenant: bool, keys: list[Key]) -> None:
    """SQLite cannot change a key in place: ``table`` is copied into a new one with
    ``keys`` (and ``tenant_id`` if ``tenant``), then takes its name. Its rows keep every
    value (a new ``tenant_id`` takes its default)."""
    columns = REKEYED[table]()
    kept = ", ".join(f'"{c.name}"' for c in columns)
    new = f"{table}_0023"
    op.create_table(new, *([_tenant_id()] if tenant else []), *columns, *_constraints(keys))
    op.execute(sa.text(f"INSERT INTO {new} ({kept}) SELECT {kept} FROM {table}"))
    op.drop_table(table)
    op.rename_table(new, table)


def _rekey_postgresql(table: str, old: list[Key], new: list[Key]) -> None:
    """Swap ``table``'s keys in place: the constraints of ``old`` that ``new`` does not
    keep are dropped (under the names the server gave them), ``new``'s are made."""
    inspector = sa.inspect(op.get_bind())
    present = {tuple(u["column_names"]): u["name"] for u in inspector.get_unique_constraints(table)}
    pk = inspector.get_pk_constraint(table)
    for kind, name, cols in old:
        if (kind, name, cols) in new:
            continue
        actual = pk["name"] if kind == "primary" else present.get(tuple(cols))
        op.drop_constraint(actual or name, table, type_=kind)
    for kind, name, cols in new:
        if (kind, name, cols) in old:
            continue
        if kind == "primary":
            op.create_primary_key(name, table, cols)
        else:
            op.create_unique_constraint(name, table, cols)


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("name"),
        sa.UniqueConstraint("token_sha256", name="uq_tenants_token"),
    )
    for name, (table, before, _) in INDEXES.items():
        if before is not None:
            op.drop_index(name, table_name=table)
    for table in ADDED:
        op.add_column(table, _tenant_id())
    for table in REKEYED:
        if _sqlite():
            _copy_sqlite(table, tenant=True, keys=NEW_KEYS[table])
        else:
            op.add_column(table, _tenant_id())
            _rekey_postgresql(table, OLD_KEYS[table], NEW_KEYS[table])
    for name, (table, cols) in LEGACY_UNIQUE.items():
        op.create_index(name, table, cols, unique=True)
    for name, (table, _, after) in INDEXES.items():
        op.create_index(name, table, _elements(after))


def downgrade() -> None:
    others = op.get_bind().execute(
        sa.text("SELECT name FROM tenants WHERE name <> :local ORDER BY name"), {"local": LOCAL}
    )
    names = [row[0] for row in others]
    if names:
        raise RuntimeError(
            f"cannot go below 0023 while tenants other than local exist ({', '.join(names)})"
        )
    for name, (table, _, _) in INDEXES.items():
        op.drop_index(name, table_name=table)
    for name, (table, _) in LEGACY_UNIQUE.items():
        op.drop_index(name, table_name=table)
    for table in REKEYED:
        if _sqlite():
            _copy_sqlite(table, tenant=False, keys=OLD_KEYS[table])
        else:
            _rekey_postgresql(table, NEW_KEYS[table], OLD_KEYS[table])
            op.drop_column(table, "tenant_id")
    for table in ADDED:
        op.drop_column(table, "tenant_id")
    for name, (table, before, _) in INDEXES.items():
        if before is not None:
            op.create_index(name, table, _elements(before))
    op.drop_table("tenants")
