"""Engines, migrations and the one statement builder every store module shares (UPSERT).

SQLite runs in WAL mode; every write transaction starts with ``BEGIN IMMEDIATE`` so that
writers queue on the database lock up front instead of failing on upgrade from a read
lock. Reads use a separate engine with deferred transactions so they never block writers.
Migrations (Alembic) are applied when the store opens; whether one is due is read without
the write lock, so a read-only command never queues behind another process's writer, and
without Alembic: one query of ``alembic_version`` against the newest script's revision as
its file name gives it (``head_revision``), so a read imports Alembic and loads the
migration scripts only when one is due (issue 26: ``jobctrl jobs`` answers sooner).

A writer waits for the lock up to ``JOBCTRL_DB_BUSY_TIMEOUT`` seconds (default 30), then
fails with ``DatabaseBusyError`` (``database_busy``: retryable, exit status 75).

PostgreSQL (``postgresql+psycopg://…``) keeps the same contract: every write transaction
first takes one transaction-scoped advisory lock (``WRITER_LOCK``), so writers from every
process and host are serialised exactly as SQLite's single writer serialises them. Every
read-then-write invariant of the store (the spend ceiling, report numbers, stage fences,
claims, the event sequence's commit order) therefore holds across processes, not only
under the process-local lock in ``store.py``. Reads run in REPEATABLE READ, read-only:
one snapshot per read transaction, as SQLite's deferred transactions give, and no write
can bypass the lock.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    CursorResult,
    Engine,
    Table,
    create_engine,
    event,
    inspect,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DatabaseError, OperationalError

from jobctrl.domain.errors import DatabaseBusyError, DatabaseDamagedError

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
# Every script is ``versions/NNNN_what_it_does.py`` with ``revision = "NNNN"``, each one's
# ``down_revision`` the one before (tests/unit/test_migration_head.py holds it).
VERSIONS_DIR = MIGRATIONS_DIR / "versions"

# The key of the advisory lock every PostgreSQL write transaction holds ("jobctrl" in hex).
WRITER_LOCK = 0x6A6F6263746C
# Lock not available (lock_timeout), deadlock, serialization failure: retryable waits.
_PG_BUSY = {"55P03", "40P01", "40001"}


def busy_timeout_ms() -> int:
    """How long a writer waits for another's lock (``JOBCTRL_DB_BUSY_TIMEOUT`` seconds)."""
    try:
        seconds = float(os.environ.get("JOBCTRL_DB_BUSY_TIMEOUT", "30"))
    except ValueError:
        seconds = 30.0
    return max(0, int(seconds * 1000))


@contextmanager
def busy_as_error() -> Iterator[None]:
    """SQLite's "database is locked" (another process held the write lock past the busy
    timeout) as a ``DatabaseBusyError``: a clear, retryable error, not a crash."""
    try:
        yield
    except (OperationalError, sqlite3.OperationalError) as exc:
        # SQLAlchemy wraps the driver's error, except when it came from our BEGIN hook.
        orig = getattr(exc, "orig", exc)
        message = str(orig)
        if "locked" in message or "busy" in message or getattr(orig, "sqlstate", "") in _PG_BUSY:
            raise DatabaseBusyError() from None
        raise


# What SQLite answers for a file whose pages or header are not a database's.
_DAMAGED = ("malformed", "not a database")


@contextmanager
def damaged_as_error() -> Iterator[None]:
    """SQLite's "database disk image is malformed" or "file is not a database" as a
    ``DatabaseDamagedError``: a sentence for the person, not an internal error."""
    try:
        yield
    except (DatabaseError, sqlite3.DatabaseError) as exc:
        orig = getattr(exc, "orig", exc)
        message = str(orig)
        if isinstance(orig, sqlite3.DatabaseError) and any(w in message for w in _DAMAGED):
            raise DatabaseDamagedError(message) from None
        raise


def _begin_immediate(dbapi_connection: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, waiting for another process's writer (``_execute_waiting``).

    SQLite's own busy handler backs off to 100 ms sleeps, so a writer that lost a race by
    a millisecond could wait a tenth of a second; here the lock is retried promptly.
    """
    cursor = dbapi_connection.cursor()
    try:
        _execute_waiting(cursor, "BEGIN IMMEDIATE", busy_timeout_ms())
    finally:
        cursor.close()


def _execute_waiting(cursor: sqlite3.Cursor, sql: str, timeout_ms: int) -> None:
    """``sql``, tried again while SQLite answers "database is locked", in steps of at most
    5 ms until the busy timeout has passed (its busy handler is off meanwhile)."""
    cursor.execute("PRAGMA busy_timeout=0")
    try:
        deadline = time.monotonic() + timeout_ms / 1000
        pause = 0.0005
        while True:
            try:
                cursor.execute(sql)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 0.005)
    finally:
        cursor.execute(f"PRAGMA busy_timeout={timeout_ms}")


def _sqlite_engine(url: str, *, immediate: bool) -> Engine:
    timeout_ms = busy_timeout_ms()
    engine = create_engine(
        url,
        pool_size=8,
        max_overflow=8,
        connect_args={"timeout": timeout_ms / 1000, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Let SQLAlchemy, not pysqlite, decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # A new file turns to WAL under its exclusive lock; while another connection
        # holds the write lock of the file still in rollback mode, SQLite answers
        # "locked" at once, without its busy handler (two processes opening a new
        # database together): waited for like any other lock.
        _execute_waiting(cursor, "PRAGMA journal_mode=WAL", timeout_ms)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:  # type: ignore[no-untyped-def]
        if immediate:
            _begin_immediate(conn.connection.dbapi_connection)
        else:
            conn.exec_driver_sql("BEGIN")

    return engine


def _postgresql_engine(url: str, *, writer: bool) -> Engine:
    # A lock wait ends after the busy timeout (0 would mean "forever" to PostgreSQL).
    lock_timeout = max(1, busy_timeout_ms())
    engine = create_engine(
        url,
        # A process writes through one connection at a time (store.py's lock), so the
        # writer needs few; the server's connections are shared by every worker and app.
        pool_size=2 if writer else 8,
        max_overflow=2 if writer else 8,
        pool_pre_ping=True,
        isolation_level="READ COMMITTED" if writer else "REPEATABLE READ",
        # Every write goes through the writer (and its lock): the reader cannot write.
        execution_options={} if writer else {"postgresql_readonly": True},
        connect_args={"options": f"-c lock_timeout={lock_timeout}"},
    )
    if writer:

        @event.listens_for(engine, "begin")
        def _on_begin(conn) -> None:  # type: ignore[no-untyped-def]
            # One writer at a time across every process: released at COMMIT/ROLLBACK, after
            # the transaction became visible, so sequence order is commit order.
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITER_LOCK})")

    return engine


def create_engines(url: str) -> tuple[Engine, Engine]:
    """(writer, reader) engines for ``url``."""
    if url.startswith("sqlite"):
        return _sqlite_engine(url, immediate=True), _sqlite_engine(url, immediate=False)
    if url.startswith("postgresql"):
        return _postgresql_engine(url, writer=True), _postgresql_engine(url, writer=False)
    engine = create_engine(url, pool_pre_ping=True)
    return engine, engine


_migrated: set[str] = set()


def migrate(writer: Engine, reader: Engine) -> None:
    """Bring the schema to the newest Alembic revision (once per database per process).

    The current revision is read on the reader: only a database that is behind takes the
    write lock to upgrade (Alembic, under that lock, reads the revision again).
    """
    key = writer.url.render_as_string(hide_password=False)
    if key in _migrated:
        return
    with reader.connect() as connection:
        current = current_revision(connection)
    if current != head_revision():
        # Alembic only when a migration is due: importing it and loading its scripts is a
        # seventh of a read command's start-up (issue 26)
        from alembic import command

        config = alembic_config()
        with busy_as_error(), writer.connect() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    _migrated.add(key)


def current_revision(connection: Connection) -> str | None:
    """The database's Alembic revision (None before the first migration), as Alembic's
    ``MigrationContext.get_current_revision`` reads it, without Alembic."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def alembic_config() -> Config:
    """Alembic's configuration for jobctrl's scripts (no ini file)."""
    # Alembic only where a migration runs or is inspected (see ``migrate``)
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


@functools.cache
def head_revision() -> str:
    """The newest revision: the highest ``NNNN`` of the scripts' file names, read without
    loading them (Alembic's ``ScriptDirectory`` would import all of them)."""
    return max(path.name.split("_", 1)[0] for path in VERSIONS_DIR.glob("[0-9]*_*.py"))


# Callers read ``rowcount`` (0: the row existed). SQLAlchemy reads an INSERT's rowcount only
# when asked, and psycopg's cursor forgets it once closed (pysqlite's keeps it).
_KEEP_ROWCOUNT = {"preserve_rowcount": True}

_upserts: dict[tuple[str, str, tuple[str, ...], tuple[str, ...] | None], Any] = {}


def _same_tenant(table: Table, ins: Any) -> ColumnElement[bool] | None:
    """On a per-tenant table, DO UPDATE only a row of the inserting tenant: a key that is
    global (e.g. a workflow id) but held by another tenant's row is then left alone, never
    overwritten (the insert does nothing, rowcount 0)."""
    return table.c.tenant_id == ins.excluded.tenant_id if "tenant_id" in table.c else None


def upsert(
    conn: Connection,
    table: Table,
    values: dict[str, Any],
    *,
    keys: list[str],
    update: Sequence[str] | dict[str, Any] | None = None,
) -> CursorResult[Any]:
    """INSERT ``values`` ... ON CONFLICT (``keys``) DO NOTHING, or DO UPDATE.

    ``update`` names the columns to overwrite with the new values (the statement is built
    once and reused: this runs several times per transaction), or maps columns to
    expressions such as ``calls + 1``.
    """
    builder = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    if isinstance(update, dict):
        stmt = builder(table).values(**values)
        return conn.execute(
            stmt.on_conflict_do_update(
                index_elements=keys, set_=update, where=_same_tenant(table, stmt)
            ),
            execution_options=_KEEP_ROWCOUNT,
        )
    cols = tuple(update) if update is not None else None
    cache_key = (conn.dialect.name, table.name, tuple(keys), cols)
    cached = _upserts.get(cache_key)
    if cached is None:
        ins = builder(table)
        cached = (
            ins.on_conflict_do_nothing(index_elements=keys)
            if cols is None
            else ins.on_conflict_do_update(
                index_elements=keys,
                set_={c: ins.excluded[c] for c in cols},
                where=_same_tenant(table, ins),
            )
        )
        _upserts[cache_key] = cached
    return conn.execute(cached, values, execution_options=_KEEP_ROWCOUNT)
