"""The truth checks' table (issue 11), on the schema's ``metadata``: a module of its own
so that ``schema.py`` stays readable (migration 0012 creates it, 0031 adds the repairs)."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Index,
    Integer,
    String,
    Table,
    UniqueConstraint,
    text,
)

from jobctrl.store.schema import metadata, tenant_id

# One row per checked Tailor/Cover attempt (store/truth_checks.py): kept or refused, lines
# checked, each unsupported claim with its sentence and what the repair did (bounded). For
# `jobctrl show` and the Job page; never in events, projections, histories or logs.
truth_checks = Table(
    "truth_checks",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("job_id", String(32), nullable=False),
    Column("stage", String(16), nullable=False),  # tailor | cover
    Column("run_id", String(64), nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("generation", Integer, nullable=False),  # written, or the one it would have been
    Column("passed", Boolean, nullable=False),
    Column("checked", Integer, nullable=False),  # lines (sentences, bullets, fields) read
    Column("finding_count", Integer, nullable=False),  # all of them; ``findings`` keeps 200
    Column("findings", JSON, nullable=False),  # [{where, sentence, kind, claim}]
    Column("changes", JSON),  # what the repair did: [{where, sentence, action, …}] (0031)
    Column("repair_requested", Boolean, nullable=False, server_default=text("false")),
    Column("profile_version", Integer),
    Column("created_at", DateTime(timezone=True), nullable=False),
    tenant_id(),
    UniqueConstraint("job_id", "stage", "run_id", "attempt", name="uq_truth_check_attempt"),
    Index("ix_truth_checks_job", "job_id", "id"),
)
