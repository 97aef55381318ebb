"""Alembic environment: runs on the connection jobctrl hands it (no ini file needed)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from jobctrl.store import (
    application_tables,  # noqa: F401 - its tables join the metadata
    operations_tables,  # noqa: F401 - its tables join the metadata
    tenant_tables,  # noqa: F401 - its tables join the metadata
    truth_tables,  # noqa: F401 - its tables join the metadata
)
from jobctrl.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only when run through the alembic CLI
    connection = create_engine(context.config.get_main_option("sqlalchemy.url") or "").connect()

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    # The whole upgrade is one transaction on both stores (SQLite's DDL is transactional
    # too; Alembic assumes not and commits per revision): the current revision is read
    # under the write lock (BEGIN IMMEDIATE / the writers' advisory lock), so a second
    # process opening the same new database waits, then finds nothing left to do.
    transactional_ddl=True,
)
with context.begin_transaction():
    context.run_migrations()
