"""The database schema (SQLAlchemy Core). Alembic migrations create and evolve it."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

metadata = MetaData()


def tenant_id(*, pk: bool = False) -> Column[str]:
    """The row's tenant (store/tenancy.py), stamped by every writer. The default is SQLite's
    only: PostgreSQL has none since 0026 (a row without its tenant is refused there)."""
    return Column("tenant_id", String(64), nullable=False, server_default="local", primary_key=pk)


jobs = Table(
    "jobs",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("idempotency_key", String(64), nullable=False, unique=True),
    Column("url", Text, nullable=False),
    Column("canonical_url", Text, nullable=False),
    Column("source", String(64), nullable=False, server_default="manual"),
    Column("title", Text),
    Column("company", Text),
    Column("location", Text),
    Column("remote", Boolean),
    Column("salary_min", Float),
    Column("salary_max", Float),
    Column("salary_currency", String(8)),
    Column("salary_period", String(16)),
    Column("apply_url", Text),
    Column("date_posted", String(40)),
    Column("valid_through", String(40)),
    Column("extraction_method", String(16)),
    Column("raw_artifact", String(64)),
    Column("text_artifact", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # Recurring availability checks (stages/availability.py); None = never checked.
    Column("availability", String(16)),  # active | unavailable | unknown
    Column("availability_checked_at", DateTime(timezone=True)),
    Column("availability_next_check_at", DateTime(timezone=True)),
    Column("availability_failures", Integer, nullable=False, server_default="0"),
    Column("availability_code", String(64)),
    tenant_id(),
    Index("ix_jobs_availability_due", "tenant_id", "availability_next_check_at"),
)

job_stage_states = Table(
    "job_stage_states",
    metadata,
    Column("job_id", String(32), primary_key=True),
    Column("stage", String(16), primary_key=True),
    Column("state", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("owner_run_id", String(64)),
    Column("error_code", String(64)),
    Column("error_message", Text),
    Column("retryable", Boolean),
    Column("next_attempt_at", DateTime(timezone=True)),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # Automatic recovery (issue 13): attempts it made, and the recovery execution whose
    # frozen cohort holds this row (None: no reservation).
    Column("auto_attempts", Integer, nullable=False, server_default="0"),
    Column("reserved_by", String(128)),
    tenant_id(),
    Index("ix_job_stage_states_state", "tenant_id", "stage", "state"),
    # The newest finished rows per stage and state: the ETA's duration samples (0018).
    Index("ix_job_stage_states_finished", "tenant_id", "stage", "state", "finished_at"),
)

job_events = Table(
    "job_events",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("event_id", String(36), nullable=False, unique=True),
    Column("type", String(64), nullable=False),
    Column("job_id", String(32)),
    Column("payload", JSON, nullable=False),
    Column("idempotency_key", String(255), nullable=False, unique=True),
    tenant_id(),  # a key outside ``local`` is stored as ``tenant/key`` (store.WriteTx)
    Column("occurred_at", DateTime(timezone=True), nullable=False),
    Index("ix_job_events_job", "job_id", "seq"),
    Index("ix_job_events_tenant", "tenant_id", "seq"),
)

job_scores = Table(
    "job_scores",
    metadata,
    Column("job_id", String(32), primary_key=True),
    Column("score", Integer, nullable=False),
    Column("verdict", Text, nullable=False),
    Column("provider", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("report", JSON, nullable=False),
    Column("report_artifact", String(64), nullable=False),
    Column("owner_run_id", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("profile_version", Integer),  # the profile it was scored against (0032)
    tenant_id(),
)

_RANK = (text("(score IS NULL)"), text("score DESC"), "job_id")  # best fit first
job_list_projections = Table(
    "job_list_projections",
    metadata,
    Column("job_id", String(32), primary_key=True),
    Column("url", Text, nullable=False),
    Column("title", Text),
    Column("company", Text),
    Column("location", Text),
    Column("remote", Boolean),
    Column("score", Integer),
    Column("verdict", Text),
    Column("status", String(16), nullable=False),
    Column("current_stage", String(16), nullable=False),
    Column("error_code", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("last_seq", Integer, nullable=False),
    # The fold's state: each stage's [state, code] as the events told it (the status is
    # computed from it), and where title/company/location came from (page or listing).
    Column("stages", JSON),
    Column("title_source", String(16)),
    tenant_id(),
    Index("ix_job_list_score", "tenant_id", "score"),
    # One per order of the Jobs list (store/job_list.py), with its exact expressions.
    Index("ix_job_list_rank", "tenant_id", *_RANK),
    Index("ix_job_list_status_rank", "tenant_id", "status", *_RANK),
    Index("ix_job_list_updated", "tenant_id", text("updated_at DESC"), "job_id"),
    Index("ix_job_list_created", "tenant_id", text("created_at DESC"), "job_id"),
)

workflow_run_projections = Table(
    "workflow_run_projections",
    metadata,
    Column("workflow_id", String(128), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("workflow_type", String(64), nullable=False),
    Column("job_id", String(32)),
    Column("status", String(24), nullable=False),  # reconciled_not_found: 20 (0027)
    Column("outcome", String(32)),
    Column("error_code", String(64)),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("closed_at", DateTime(timezone=True)),
    Column("last_seq", Integer, nullable=False),
    tenant_id(),
    Index("ix_workflow_runs_job", "job_id", "status"),  # a job's runs (migration 0017)
    Index("ix_workflow_runs_tenant", "tenant_id", "status"),
)

projection_watermarks = Table(
    "projection_watermarks",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("position", Integer, nullable=False),
)

llm_spend = Table(
    "llm_spend",
    metadata,
    tenant_id(pk=True),
    Column("day", String(10), primary_key=True),  # UTC day, YYYY-MM-DD
    Column("lane", String(32), primary_key=True),
    Column("input_tokens", BigInteger, nullable=False, server_default="0"),
    Column("output_tokens", BigInteger, nullable=False, server_default="0"),
    Column("cost_usd", Float, nullable=False, server_default="0"),
    Column("calls", Integer, nullable=False, server_default="0"),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

llm_usage_observations = Table(
    "llm_usage_observations",
    metadata,
    Column("observation_id", String(128), primary_key=True),
    Column("day", String(10), nullable=False),
    Column("lane", String(32), nullable=False),
    Column("provider", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("input_tokens", BigInteger, nullable=False),
    Column("output_tokens", BigInteger, nullable=False),
    Column("cost_usd", Float, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    tenant_id(),
)

settings = Table(
    "settings",
    metadata,
    tenant_id(pk=True),
    Column("key", String(128), primary_key=True),
    Column("value", JSON, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

artifacts = Table(
    "artifacts",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("media_type", String(128), nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# -- discovery -----------------------------------------------------------------------------

source_observations = Table(
    "source_observations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("job_id", String(32), nullable=False),
    Column("source_kind", String(32), nullable=False),
    Column("source_name", Text, nullable=False),
    Column("external_id", String(255)),
    Column("url", Text, nullable=False),
    Column("title", Text),
    Column("company", Text),
    Column("location", Text),
    Column("first_seen_at", DateTime(timezone=True), nullable=False),
    Column("last_seen_at", DateTime(timezone=True), nullable=False),
    Column("last_run_id", String(64)),
    tenant_id(),
    UniqueConstraint("job_id", "source_kind", "source_name", "url", name="uq_source_observation"),
    Index("ix_source_observations_external", "tenant_id", "source_kind", "external_id"),
)

discovery_runs = Table(
    "discovery_runs",
    metadata,
    Column("tenant_id", String(64), primary_key=True),
    Column("workflow_id", String(128), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("status", String(24), nullable=False),  # running|completed|partial|failed|canceled
    Column("progress_done", Integer, nullable=False, server_default="0"),
    Column("progress_total", Integer, nullable=False, server_default="0"),
    Column("families", JSON, nullable=False),
    Column("counts", JSON, nullable=False),
    Column("error_code", String(64)),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
)

# A run refused at its first step (0039): no discovery_runs row; store/discovery_refusals.py
discovery_refusals = Table(
    "discovery_refusals",
    metadata,
    tenant_id(pk=True),
    Column("workflow_id", String(128), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("error_code", String(64), nullable=False),  # discovery_busy
    Column("yielded_to_run_id", String(64), nullable=False),  # the run still at work
    Column("refused_at", DateTime(timezone=True), nullable=False),
)

discovery_execution_jobs = Table(
    "discovery_execution_jobs",
    metadata,
    Column("tenant_id", String(64), primary_key=True),
    Column("discover_workflow_id", String(128), primary_key=True),
    Column("discover_run_id", String(64), primary_key=True),
    Column("job_id", String(32), primary_key=True),
    Column("cohort", String(24), nullable=False),  # observed_this_run | existing_backlog
    Column("work_plan_state", String(16), nullable=False),  # pending|planned|not_eligible
    Column("prep_workflow_id", String(128)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

pipeline_step_projections = Table(
    "pipeline_step_projections",
    metadata,
    Column("workflow_id", String(128), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("step_kind", String(32), primary_key=True),
    Column("item_key", String(255), primary_key=True),
    Column("attempt", Integer, nullable=False),
    Column("state", String(16), nullable=False),  # queued|running|completed|failed
    Column("error_code", String(64)),
    Column("counts", JSON),
    Column("queued_at", DateTime(timezone=True)),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("last_seq", Integer, nullable=False),
    tenant_id(),
)
# -- spend reservations and materials (issue 4) ------------------------------------------

llm_reservations = Table(
    "llm_reservations",
    metadata,
    Column("reservation_id", String(128), primary_key=True),
    Column("day", String(10), nullable=False),
    Column("lane", String(32), nullable=False),
    Column("provider", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("amount_usd", Float, nullable=False),
    Column("tokens", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("settled_at", DateTime(timezone=True)),
    Column("owner", String(200)),  # the process whose call may still be answered (0028)
    tenant_id(),
    Index("ix_llm_reservations_open", "tenant_id", "day", "settled_at"),
)

profile_versions = Table(
    "profile_versions",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=True),
    Column("sha256", String(64), nullable=False),
    Column("profile", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    tenant_id(),
    UniqueConstraint("tenant_id", "sha256", name="uq_profile_sha"),
)

materials = Table(
    "materials",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("job_id", String(32), nullable=False),
    Column("kind", String(16), nullable=False),  # resume | cover
    Column("generation", Integer, nullable=False),
    Column("state", String(16), nullable=False),  # draft | approved | rejected | superseded
    Column("content", JSON, nullable=False),
    Column("pdf_artifact", String(64)),
    Column("provider", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("profile_version", Integer),
    Column("owner_run_id", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("decided_at", DateTime(timezone=True)),
    tenant_id(),
    UniqueConstraint("job_id", "kind", "generation", name="uq_material_generation"),
)

provider_results = Table(
    "provider_results",
    metadata,
    Column("key", String(255), primary_key=True),  # lane:job:run — one paid call per step
    Column("lane", String(32), nullable=False),
    Column("job_id", String(32), nullable=False),
    Column("run_id", String(64), nullable=False),
    Column("observation_id", String(128), nullable=False),
    Column("output", JSON, nullable=False),  # JSON null until the answer is parsed
    Column("created_at", DateTime(timezone=True), nullable=False),
    # The provider's answer (raw response message), committed with its usage (0019).
    Column("response", JSON, nullable=True),
    tenant_id(),
    # An earlier run's unparsed answers to one lane of one job (llm.reuse) (0022).
    Index("ix_provider_results_lane_job", "lane", "job_id"),
)

# -- evaluation reports --------------------------------------------------------------------

# One reserved, gap-free report number per job (store/reports.py); ``path`` is relative to
# the home root and set when the Markdown report is first written.
report_numbers = Table(
    "report_numbers",
    metadata,
    Column("job_id", String(32), primary_key=True),
    Column("number", Integer, nullable=False),  # 1, 2, ... per tenant
    Column("path", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("written_at", DateTime(timezone=True)),
    tenant_id(),
    UniqueConstraint("tenant_id", "number", name="uq_report_number"),
)

# -- durable start intents -------------------------------------------------------------------

# A preparation a command means to start, recorded in the same transaction as its job
# (store/start_intents.py): the worker's reconciler starts any the command did not.
start_intents = Table(
    "start_intents",
    metadata,
    Column("workflow_id", String(128), primary_key=True),
    Column("job_id", String(32), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True)),
    Column("run_id", String(64)),
    tenant_id(),
    Index("ix_start_intents_open", "tenant_id", "started_at", "created_at"),
)

# Postings the person hid ("not interested", store/hides.py), by idempotency key: a hidden
# posting stays hidden when its deleted job is found again (0033).
job_hides = Table(
    "job_hides",
    metadata,
    tenant_id(pk=True),
    Column("idempotency_key", String(64), primary_key=True),
    Column("job_id", String(32), nullable=False),
    Column("reason", Text),
    Column("hidden_at", DateTime(timezone=True), nullable=False),
)

# On this metadata too: store/application_tables.py (12), store/operations_tables.py (13),
# store/truth_tables.py (11).
