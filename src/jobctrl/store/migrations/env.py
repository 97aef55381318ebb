"""Alembic environment: runs on the connection jobctrl hands it (no ini file needed)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from jobctrl.store import (
    application_tables,  # noqa: F401 - its tables join the metadata
    operations_tables,  # noqa: F401 - its tables join the metadata
)
from jobctrl.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only when run through the alembic CLI
    connection = create_engine(context.config.get_main_option("sqlalchemy.url") or "").connect()

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
