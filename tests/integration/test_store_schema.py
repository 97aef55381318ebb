"""The migrations build exactly the schema the code declares, on SQLite and PostgreSQL,
and two processes opening one empty database at once both end up on it (one migrates,
the other finds it done)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Column, Connection, create_engine

from jobctrl.store import application_tables, operations_tables  # noqa: F401 - metadata
from jobctrl.store.db import create_engines, migrate
from jobctrl.store.schema import metadata
from jobctrl.store.store import Store

ROOT = Path(__file__).resolve().parents[2]

# SQLite's reflection cannot read expression indexes (the job list's): there they are left
# out of the comparison (PostgreSQL compares them).
pytestmark = [
    pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based"),
    pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression"),
]
EXPRESSION_INDEXES = {
    index.name
    for table in metadata.tables.values()
    for index in table.indexes
    if any(not isinstance(e, Column) for e in index.expressions)
}


def _differences(conn: Connection) -> list[object]:
    def compared(obj: object, name: str | None, kind: str, *_: object) -> bool:
        return not (
            conn.dialect.name == "sqlite" and kind == "index" and name in EXPRESSION_INDEXES
        )

    context = MigrationContext.configure(conn, opts={"include_object": compared})
    return list(compare_metadata(context, metadata))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database, never migrated."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    server = request.getfixturevalue("postgres_server")
    name = server.new_database(empty=True)
    yield server.url(name)
    Store.forget(server.url(name))
    server.drop_database(name)


def test_the_migrations_build_the_declared_schema(empty_url: str) -> None:
    writer, reader = create_engines(empty_url)
    migrate(writer, reader)
    with writer.connect() as conn:
        differences = _differences(conn)
    writer.dispose()
    reader.dispose()
    assert differences == []


def test_two_processes_opening_an_empty_database_both_get_the_schema(
    empty_url: str, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    env = {**os.environ, "JOBCTRL_HOME": str(tmp_path / "home"), "JOBCTRL_DATABASE_URL": empty_url}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.support.store_writers", "open", str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )
        for _ in range(2)
    ]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("go.*.waiting"))) < 2:
        assert time.monotonic() < deadline, "the processes never got ready"
        time.sleep(0.01)
    go.touch()
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert json.loads(out.strip().splitlines()[-1]) == {"opened": True}
    engine = create_engine(empty_url)
    with engine.connect() as conn:
        assert _differences(conn) == []
    engine.dispose()


def test_a_new_sqlite_file_whose_write_lock_is_held_turns_to_wal_once_it_is_free(
    tmp_path: Path,
) -> None:
    """Another connection holds the write lock of a new file still in rollback mode (as a
    second process opening the database at the same moment): SQLite refuses the switch to
    WAL at once, without its busy handler. The first connection waits for the lock."""
    path = tmp_path / "new.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE t (x INTEGER)")
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES (1)")
    release = threading.Timer(0.3, other.execute, ("COMMIT",))
    release.start()
    writer, reader = create_engines(f"sqlite:///{path}")
    try:
        started = time.monotonic()
        with writer.connect() as conn:
            mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
        assert mode == "wal"
        assert time.monotonic() - started >= 0.25  # it waited for the lock
    finally:
        release.join()
        other.close()
        writer.dispose()
        reader.dispose()
