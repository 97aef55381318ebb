"""Contact research's tables (issue 33, migration 0036), on the schema's ``metadata``.

``contacts``: the people the person keeps for a company (name, role, email), made from a
confirmed candidate or added by hand; one contact may serve several jobs of that company
(their ``job`` attributes). ``contact_attributes``: what else is known of a contact, one
row per (name, value): ``job`` (a job it is a contact for), ``evidence``, ``source``,
``note``. ``contact_research_tasks``: one research run per (job, request), its sources and
each source attempt with its outcome (``source_attempts``), fenced on the Temporal run
that owns it. ``contact_candidates``: the people a run found, with the sentence and source
each came from, waiting to be confirmed or dismissed.

Personal data of third parties lives here only: events and histories carry ids and counts.
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Float, Index, Integer, String, Table, Text

from jobctrl.store.schema import metadata, tenant_id

contacts = Table(
    "contacts",
    metadata,
    tenant_id(pk=True),
    Column("contact_id", String(32), primary_key=True),
    Column("company", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("role", String(32), nullable=False),
    Column("email", Text),
    Column("origin", String(16), nullable=False),  # research | added
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("ix_contacts_company", "tenant_id", "company"),
)

contact_attributes = Table(
    "contact_attributes",
    metadata,
    tenant_id(pk=True),
    Column("contact_id", String(32), primary_key=True),
    Column("name", String(32), primary_key=True),  # job | evidence | source | note
    Column("value", Text, primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_contact_attributes_value", "tenant_id", "name", "value"),
)

contact_research_tasks = Table(
    "contact_research_tasks",
    metadata,
    tenant_id(pk=True),
    Column("task_id", String(32), primary_key=True),
    Column("job_id", String(32), nullable=False),
    Column("request_key", String(64), nullable=False),  # one task per (job, request)
    Column("status", String(16), nullable=False),  # queued | running | succeeded | failed
    Column("sources", JSON, nullable=False),  # [{kind, ref}]: what the person asked for
    Column("source_attempts_json", JSON, nullable=False),  # [{index, kind, outcome, …}]
    Column("workflow_id", String(128)),
    Column("owner_run_id", String(64)),  # the run whose writes are accepted
    Column("error_code", String(64)),
    Column("candidates", Integer, nullable=False, server_default="0"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Index("ix_contact_research_tasks_request", "tenant_id", "job_id", "request_key", unique=True),
)

contact_candidates = Table(
    "contact_candidates",
    metadata,
    tenant_id(pk=True),
    Column("candidate_id", String(32), primary_key=True),
    Column("task_id", String(32), nullable=False),
    Column("job_id", String(32), nullable=False),
    Column("source_index", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("role", String(32), nullable=False),
    Column("title", Text),  # the words the role was read from ("Senior Technical Recruiter")
    Column("email", Text),
    Column("evidence", Text, nullable=False),
    Column("source", Text, nullable=False),  # "the posting", "pasted text" or the page's URL
    Column("confidence", Float, nullable=False),
    Column("status", String(16), nullable=False),  # new | confirmed | dismissed
    Column("contact_id", String(32)),  # the contact it became
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_contact_candidates_task", "tenant_id", "task_id", "source_index"),
    Index("ix_contact_candidates_job", "tenant_id", "job_id"),
)
