"""The browser extension's tables (issue 32, migration 0034), on the schema's ``metadata``.

``extension_pair_codes``: one-time pairing codes (their sha256), each for one tenant, valid
ten minutes. ``extension_tokens``: each paired extension's token (its sha256), named per
tenant, with the ``chrome-extension://ID`` origin it paired from. ``job_captures``: each
posting a person's browser sent, a reference to its sanitised snapshot (an artifact) and
when an Enrich used it. Written by ``store/extension.py`` and ``store/captures.py``.
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Index, String, Table, Text, UniqueConstraint

from jobctrl.store.schema import metadata, tenant_id

extension_pair_codes = Table(
    "extension_pair_codes",
    metadata,
    Column("code_sha256", String(64), primary_key=True),
    tenant_id(),
    Column("name", String(64)),  # the name the token will have (None: the extension's own)
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

extension_tokens = Table(
    "extension_tokens",
    metadata,
    tenant_id(pk=True),
    Column("name", String(64), primary_key=True),
    Column("token_sha256", String(64), nullable=False),
    Column("origin", String(128)),  # chrome-extension://ID it paired from (None: unknown)
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_used_at", DateTime(timezone=True)),
    UniqueConstraint("token_sha256", name="uq_extension_tokens_token"),
)

job_captures = Table(
    "job_captures",
    metadata,
    tenant_id(pk=True),
    Column("capture_id", String(32), primary_key=True),
    Column("job_id", String(32), nullable=False),
    Column("url", Text, nullable=False),
    Column("snapshot_artifact", String(64), nullable=False),  # the sanitised page (sha256)
    Column("fields", JSON, nullable=False),  # title, company, location as the browser read them
    Column("token_name", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True)),  # when an Enrich took it as its snapshot
    Index("ix_job_captures_job", "tenant_id", "job_id", "created_at"),
)
