"""Migration 0023 (tenants) on both stores: every row of a database from before it is the
``local`` tenant's afterwards, nothing else changes, the keys that must hold per tenant do,
and a database with another tenant refuses to go back below it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Engine,
    Float,
    Integer,
    String,
    Text,
    create_engine,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.exc import IntegrityError

from jobctrl.app.models import dumps
from jobctrl.app.queries import list_jobs
from jobctrl.home import Home
from jobctrl.store import jobs, tenancy, tenants
from jobctrl.store.db import MIGRATIONS_DIR
from jobctrl.store.schema import metadata
from jobctrl.store.store import Store

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
BEFORE = "0022"
# Projections a later migration empties so that the next Store.open folds them again from
# the event log (0037: the attempt metrics start with every attempt the log holds).
REBUILT = frozenset(
    {"job_list_projections", "workflow_run_projections", "pipeline_step_projections"}
)


def _migrate(url: str, revision: str, *, down: bool = False) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    engine = create_engine(url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)
    engine.dispose()


def _head() -> str | None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return ScriptDirectory.from_config(config).get_current_head()


@pytest.fixture
def old_database(home: Home, store: Store) -> Iterator[Engine]:
    """The test's database taken back to the revision before tenants, empty."""
    url = home.database_url
    store.dispose()
    _migrate(url, BEFORE, down=True)
    engine = create_engine(url)
    yield engine
    engine.dispose()


def _value(column: Any) -> Any:
    kind = column.type
    if isinstance(kind, DateTime):
        return NOW
    if isinstance(kind, Date):
        return date(2026, 12, 2)
    if isinstance(kind, JSON):
        return {"n": 1}
    if isinstance(kind, Boolean):
        return True
    if isinstance(kind, Integer | BigInteger):
        return 1
    if isinstance(kind, Float):
        return 1.5
    if isinstance(kind, String | Text):
        return "x"
    raise AssertionError(f"no sample value for {column}")


def _one_row_each(engine: Engine) -> list[str]:
    """One row in every table of the old schema (every key "x" or 1, so foreign keys
    hold); the tables filled."""
    with engine.begin() as conn:
        inspector = inspect(conn)
        present = {
            t: {c["name"] for c in inspector.get_columns(t)} for t in inspector.get_table_names()
        }
        filled = []
        for table in metadata.sorted_tables:
            if table.name not in present:
                continue
            row = {c.name: _value(c) for c in table.c if c.name in present[table.name]}
            row.update({"tenant_id": "local"} if "tenant_id" in row else {})  # discovery's
            conn.execute(insert(table).inline().values(row))  # no RETURNING of new columns
            filled.append(table.name)
    return filled


def test_every_existing_row_becomes_the_local_tenants(home: Home, old_database: Engine) -> None:
    filled = _one_row_each(old_database)
    assert "tenants" not in inspect(old_database).get_table_names()

    _migrate(home.database_url, "head")

    with old_database.connect() as conn:
        for name in sorted(tenancy.TENANT_TABLES):
            tenant_ids = conn.execute(text(f"SELECT tenant_id FROM {name}")).scalars().all()
            kept = name in filled and name not in REBUILT
            assert tenant_ids == (["local"] if kept else []), name
        assert conn.execute(text("SELECT count(*) FROM tenants")).scalar_one() == 0
        # Values survive the re-keyed tables' copy (SQLite) or in-place change.
        assert conn.execute(text("SELECT version, sha256 FROM profile_versions")).all() == [
            (1, "x")
        ]
        assert conn.execute(text("SELECT key FROM settings")).scalars().all() == ["x"]


def test_the_local_tenants_jobs_read_the_same_after_the_round_trip(
    home: Home, store: Store
) -> None:
    for n in range(3):
        jobs.create_job(store, f"https://jobs.example.com/older/{n}")
    before = list_jobs(home)
    url = home.database_url
    store.dispose()
    _migrate(url, BEFORE, down=True)
    _migrate(url, "head")
    store.catch_up()  # what the next process's Store.open does after an upgrade
    assert dumps(list_jobs(home)) == dumps(before)


def test_report_numbers_and_profiles_are_per_tenant(home: Home, store: Store) -> None:
    r, p = metadata.tables["report_numbers"], metadata.tables["profile_versions"]
    with store.writer.begin() as conn:
        for tenant, job in (("local", "a"), ("acme", "b")):
            conn.execute(insert(r).values(tenant_id=tenant, job_id=job, number=1, created_at=NOW))
    with pytest.raises(IntegrityError), store.writer.begin() as conn:
        conn.execute(insert(r).values(tenant_id="acme", job_id="c", number=1, created_at=NOW))
    with store.writer.begin() as conn:
        conn.execute(insert(p).values(tenant_id="local", sha256="s", profile={}, created_at=NOW))
    # The same profile in another tenant (0024 dropped the old key's index), not twice in one.
    with store.writer.begin() as conn:
        conn.execute(insert(p).values(tenant_id="acme", sha256="s", profile={}, created_at=NOW))
    with pytest.raises(IntegrityError), store.writer.begin() as conn:
        conn.execute(insert(p).values(tenant_id="acme", sha256="s", profile={}, created_at=NOW))
    with store.reader.connect() as conn:
        numbers = conn.execute(select(r.c.tenant_id, r.c.number).order_by(r.c.tenant_id))
        assert numbers.all() == [("acme", 1), ("local", 1)]
        shas = conn.execute(select(p.c.tenant_id, p.c.sha256).order_by(p.c.tenant_id))
        assert shas.all() == [("acme", "s"), ("local", "s")]


def test_going_below_0023_is_refused_while_another_tenant_exists(home: Home, store: Store) -> None:
    tenants.add(store, "acme", None)
    store.dispose()
    with pytest.raises(RuntimeError, match=r"tenants other than local exist \(acme\)"):
        _migrate(home.database_url, BEFORE, down=True)
    engine = create_engine(home.database_url)
    with engine.connect() as conn:
        # The whole downgrade is one transaction: nothing of it stays.
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == _head()
    engine.dispose()
