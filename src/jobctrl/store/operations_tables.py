"""The operations tables (issue 13), on the schema's ``metadata``: automatic recovery's
cohorts, the workers' runtime heartbeats, stop-loss windows, orphan executions and stop
requests. A module of its own so that ``schema.py`` stays readable; Alembic migration 0016
creates them (and adds ``auto_attempts``/``reserved_by`` to ``job_stage_states``).
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Float, Index, Integer, String, Table

from jobctrl.store.schema import metadata, tenant_id

# Automatic preparation recovery (store/recovery.py): one frozen cohort per recovery
# execution (one stage, at most 25 jobs), reserved in one transaction with its
# deterministic workflow id before Temporal is asked to start it.
recovery_cohorts = Table(
    "recovery_cohorts",
    metadata,
    Column("workflow_id", String(128), primary_key=True),  # prepare-auto-local-<stage>-<24 hex>
    Column("stage", String(16), nullable=False),
    Column("job_ids", JSON, nullable=False),
    Column("state", String(16), nullable=False),  # reserved | started | closed
    Column("run_id", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # Members it runs at once: its share of pipeline_internal_concurrency, frozen with it
    # (the input it is started with, again and again); NULL before migration 0020 (2).
    Column("workers", Integer),
    tenant_id(),
    Index("ix_recovery_cohorts_state", "tenant_id", "state", "created_at"),
)

# The public-fetch recheck (store/public_fetch.py): the typed evidence of an Enrich
# refused because a host name resolved to a non-public address (one row per job: its
# latest such failure, by run and attempt), and its checks. Migration 0020.
public_fetch_rechecks = Table(
    "public_fetch_rechecks",
    metadata,
    Column("job_id", String(32), primary_key=True),
    Column("run_id", String(64), nullable=False),  # the failed attempt's run and number
    Column("attempt", Integer, nullable=False),
    Column("cause", String(32), nullable=False),  # domain.public_fetch: dns_non_public
    Column("host", String(255), nullable=False),  # the failed request's host name
    Column("checks", Integer, nullable=False),
    Column("next_check_at", DateTime(timezone=True)),  # NULL: no more checks
    Column("result", String(16)),  # the last check's: public | non_public | unresolved
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    tenant_id(),
    Index("ix_public_fetch_rechecks_due", "tenant_id", "next_check_at"),
)

# What each worker process reports on its heartbeat (store/runtime.py): runtime facts that
# no durable event holds. Allowlisted activity kinds, workflow/run ids and opaque ids only.
worker_runtime_heartbeats = Table(
    "worker_runtime_heartbeats",
    metadata,
    Column("worker_id", String(128), primary_key=True),  # host~space:pid:random
    Column("home_id", String(64), nullable=False),  # which database/app dir it serves
    Column("task_queue", String(128), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("beat_at", DateTime(timezone=True), nullable=False),
    Column("interval_seconds", Float, nullable=False),
    Column("active_slots", Integer, nullable=False),
    Column("capacity", Integer, nullable=False),
    Column("items_total", Integer, nullable=False),
    Column(
        "items", JSON, nullable=False
    ),  # <= 20 oldest: {kind, workflowId, runId, key, startedAt}
    Column("durations", JSON, nullable=False),  # {kind: {count, p50, p90, max}} seconds
    Column("queue", JSON),  # approximate Temporal task-queue observations, or null
)

# Stop-loss (store/stop_loss.py): per lane and per source, the current run of consecutive
# failures with one code, and whether that automation is paused.
stop_loss = Table(
    "stop_loss",
    metadata,
    tenant_id(pk=True),  # lanes and sources are each tenant's own configuration
    Column("kind", String(8), primary_key=True),  # lane | source
    Column("name", String(128), primary_key=True),
    Column("streak_code", String(64)),
    Column("streak", Integer, nullable=False, server_default="0"),
    Column("streak_jobs", JSON),  # the job ids (or source runs) of the streak, bounded
    Column("paused_code", String(64)),  # not null: paused
    Column("paused_at", DateTime(timezone=True)),
    Column("resumed_at", DateTime(timezone=True)),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

# Executions Temporal runs that the store does not expect (orphans), as the reconciler last
# observed them, and stop requests re-issued until Temporal reports the execution closed.
orphan_executions = Table(
    "orphan_executions",
    metadata,
    Column("workflow_id", String(128), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("workflow_type", String(64), nullable=False),
    Column("started_at", DateTime(timezone=True)),
    Column("first_seen_at", DateTime(timezone=True), nullable=False),
    Column("last_seen_at", DateTime(timezone=True), nullable=False),
    tenant_id(),  # ids.tenant_of(workflow_id); an execution not of ours: local's
)

stop_requests = Table(
    "stop_requests",
    metadata,
    Column("workflow_id", String(128), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("reason", String(32), nullable=False),  # orphan | job_cancel | ...
    Column("requested_at", DateTime(timezone=True), nullable=False),
    Column("issued", Integer, nullable=False, server_default="0"),
    Column("last_issued_at", DateTime(timezone=True)),
    Column("observed_closed_at", DateTime(timezone=True)),
    Column("gave_up_at", DateTime(timezone=True)),
    # How it ended (0029): closed | terminated | gave_up | not_found; NULL while pending.
    Column("outcome", String(16)),
    tenant_id(),
)

# Leases (store/leases.py): the heartbeat's singleton duties (recovery dispatch, the
# schedule, sweeps, budget resumes...) run in the one worker holding its task queue's
# lease, so several workers of one deployment never dispatch the same thing twice.
# Migration 0021.
worker_leases = Table(
    "worker_leases",
    metadata,
    Column("name", String(160), primary_key=True),  # heartbeat-duties:<task queue>
    Column("holder", String(128), nullable=False),  # the worker's runtime id
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("acquired_at", DateTime(timezone=True), nullable=False),
)

# Operational attempt metrics (store/attempt_metrics.py, issue 34): one row per stage
# attempt, folded from StageStarted / StageSucceeded / StageFailed like the other
# projections (rebuilt from the log): its stage and LLM lane, when it started and ended,
# how long it took and its failure code. The durable source of "why is it slow" and of
# the Operations page's per-stage attempts, durations and failure codes. Migration 0037.
operational_attempt_metrics = Table(
    "operational_attempt_metrics",
    metadata,
    tenant_id(pk=True),
    Column("job_id", String(32), primary_key=True),
    Column("stage", String(16), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("attempt", Integer, primary_key=True),
    Column("lane", String(32)),  # the stage's LLM lane (None: enrich, pdf)
    # running | succeeded | failed | interrupted (a later attempt of the stage started)
    Column("outcome", String(16), nullable=False),
    Column("error_code", String(64)),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("duration_seconds", Float),
    Column("last_seq", Integer, nullable=False),
    # The day's attempts: those that ended since, and those still open (NULL) that began.
    Index("ix_attempt_metrics_finished", "tenant_id", "finished_at"),
    # pipeline-eta-v1's samples: a stage's newest successes (0038).
    Index("ix_attempt_metrics_stage", "tenant_id", "stage", "outcome", "finished_at"),
)
