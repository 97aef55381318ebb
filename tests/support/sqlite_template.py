"""A migrated SQLite database to copy into each test's home (as tests/support/postgres.py
copies its template database): running the 29 migrations costs most of a second per home,
copying the file a millisecond.

The template is what ``migrate`` produces on a new file and nothing else (schema, Alembic's
revision, any rows a migration writes), made once per pytest process;
tests/integration/test_store_migrations.py proves a copy equals a database migrated from
nothing. Tests of the migrations themselves (conftest.py's ``MIGRATE_FROM_SCRATCH``) get
no copy: their homes migrate as a person's new home does.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from jobctrl.home import Home
from jobctrl.store.db import create_engines, migrate


def make_template(path: Path) -> Path:
    """Migrate a new SQLite file at ``path`` to head and close it (its WAL checkpointed
    into the file and removed, so the one file is the whole database)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    writer, reader = create_engines(f"sqlite:///{path}")
    try:
        migrate(writer, reader)
    finally:
        writer.dispose()
        reader.dispose()
    leftovers = [p.name for p in path.parent.glob(f"{path.name}-*")]
    assert not leftovers, f"the template is not one closed file: {leftovers}"
    return path


def copy_into(template: Path, home: Home) -> None:
    """``home``'s database, a copy of ``template``, before anything opens it."""
    assert not home.database_path.exists(), home.database_path
    home.root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, home.database_path)
