"""The applications' tables (issue 12), on the schema's ``metadata``: applications, their
send and prefill attempts, and the apply read model. A module of its own so that
``schema.py`` stays readable; Alembic migration 0013 creates them.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    text,
)

from jobctrl.store.schema import metadata, tenant_id

# One row per job application (store/applications.py); a tracker row may have no job (an
# imported one). The email's recipients, subject and body live only here, never in events.
applications = Table(
    "applications",
    metadata,
    Column("id", String(32), primary_key=True),  # "app-" + 12 hex
    Column("job_id", String(32), ForeignKey("jobs.id"), unique=True),
    Column("company", Text),
    Column("role", Text),
    Column("url", Text),  # the posting
    Column("channel", String(16)),  # email | browser
    Column("status", String(16), nullable=False),  # domain.applications.ApplicationStatus
    Column("outcome", String(16)),  # domain.applications.Outcome
    Column("email_to", JSON),
    Column("email_subject", Text),
    Column("email_body", Text),
    Column("attachments", JSON),  # [{kind, name, sha256, size}]
    Column("message_id", Text),
    Column("approval_digest", String(64)),
    Column("approved_at", DateTime(timezone=True)),
    Column("approval_expires_at", DateTime(timezone=True)),
    Column("error_code", String(64)),
    Column("form_url", Text),
    Column("notes", Text),
    Column("follow_up", Date),
    Column("applied_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("score", Integer),
    Column("source", String(16), nullable=False, server_default="jobctrl"),
    # A career-ops row's cells as imported (migration 0014; store/application_tracker.py).
    Column("tracker", JSON),
    tenant_id(),
    Index("ix_applications_status", "tenant_id", "status"),
)

# Send and prefill attempts; at most one live (intent | data_sent | prefilling) per
# application, held by the store under the write lock and by this partial unique index.
apply_attempts = Table(
    "apply_attempts",
    metadata,
    Column("id", String(32), primary_key=True),  # "att-" + 12 hex
    Column("application_id", String(32), ForeignKey("applications.id"), nullable=False),
    Column("kind", String(16), nullable=False),  # email | browser
    Column("state", String(16), nullable=False),  # domain.applications.AttemptState
    Column("message_id", Text),
    Column("approval_digest", String(64)),
    Column("owner", String(255)),  # host/pid/process start time of the process running it
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("error_code", String(64)),
    tenant_id(),
    Index("ix_apply_attempts_application", "application_id", "started_at"),
    Index(
        "uq_apply_attempts_live",
        "application_id",
        unique=True,
        sqlite_where=text("state IN ('intent', 'data_sent', 'prefilling')"),
        postgresql_where=text("state IN ('intent', 'data_sent', 'prefilling')"),
    ),
)

# The apply workflow's claims on jobs (store/apply_claims.py, migration 0015): at most one
# live (``claimed``) per job, held under the write lock and by this partial unique index.
apply_claims = Table(
    "apply_claims",
    metadata,
    Column("id", String(32), primary_key=True),  # "clm-" + 12 hex
    Column("job_id", String(32), ForeignKey("jobs.id"), nullable=False),
    Column("application_id", String(32)),  # once prepared (or failed) with one
    Column("workflow_id", String(128), nullable=False),
    Column("run_id", String(64), nullable=False),
    Column("state", String(16), nullable=False),  # domain.apply_loop.ClaimState
    Column("error_code", String(64)),
    Column("claimed_at", DateTime(timezone=True), nullable=False),
    Column("lease_until", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("retry_at", DateTime(timezone=True)),  # a failed claim: not before this
    tenant_id(),
    Index("ix_apply_claims_job", "job_id", "claimed_at"),
    Index("ix_apply_claims_run", "workflow_id", "run_id"),
    Index(
        "uq_apply_claims_live",
        "job_id",
        unique=True,
        sqlite_where=text("state = 'claimed'"),
        postgresql_where=text("state = 'claimed'"),
    ),
)
