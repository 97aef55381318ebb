"""The outbound messages' tables (issue 33, migration 0035), on the schema's ``metadata``.

``outbound_messages``: one row per follow-up to an application or outreach message to a
contact, with its exact email (recipients, subject, body, threading headers: only here,
never in events) and its approval. ``outbound_attempts``: their send attempts, at most one
live (``intent`` | ``data_sent``) per message, held by the store under the write lock and
by the partial unique index. Written by ``store/outbound.py``.
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Index, Integer, String, Table, Text, text

from jobctrl.store.schema import metadata, tenant_id

outbound_messages = Table(
    "outbound_messages",
    metadata,
    Column("id", String(32), primary_key=True),  # "out-" + 12 hex
    Column("kind", String(16), nullable=False),  # domain.followups.OutboundKind
    Column("channel", String(16), nullable=False),  # email | note
    Column("job_id", String(32)),
    Column("application_id", String(32)),  # a follow-up's application
    Column("contact_id", String(32)),  # an outreach message's contact
    Column("sequence", Integer, nullable=False, server_default="1"),  # the follow-up's number
    Column("status", String(16), nullable=False),  # domain.followups.OutboundStatus
    Column("email_to", JSON),
    Column("email_subject", Text),
    Column("email_body", Text),
    Column("in_reply_to", Text),  # the original message's Message-ID (a follow-up)
    Column("thread_references", Text),  # the References header
    Column("message_id", Text),
    Column("approval_digest", String(64)),
    Column("approved_at", DateTime(timezone=True)),
    Column("approval_expires_at", DateTime(timezone=True)),
    Column("error_code", String(64)),
    Column("sent_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    tenant_id(),
    Index("ix_outbound_application", "tenant_id", "application_id", "sequence"),
    Index("ix_outbound_contact", "tenant_id", "contact_id", "job_id"),
)

outbound_attempts = Table(
    "outbound_attempts",
    metadata,
    Column("id", String(32), primary_key=True),  # "att-" + 12 hex
    Column("outbound_id", String(32), nullable=False),
    Column("kind", String(16), nullable=False),  # the message's kind (the daily cap counts them)
    Column("state", String(16), nullable=False),  # domain.applications.AttemptState
    Column("message_id", Text),
    Column("approval_digest", String(64)),
    Column("owner", String(255)),  # host/pid/process start time of the process sending it
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("error_code", String(64)),
    tenant_id(),
    Index("ix_outbound_attempts_message", "outbound_id", "started_at"),
    Index("ix_outbound_attempts_day", "tenant_id", "kind", "started_at"),
    Index(
        "uq_outbound_attempts_live",
        "outbound_id",
        unique=True,
        sqlite_where=text("state IN ('intent', 'data_sent')"),
        postgresql_where=text("state IN ('intent', 'data_sent')"),
    ),
)
