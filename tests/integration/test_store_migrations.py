"""An existing home opens on a newer jobctrl: the schema migrates and the read models are
rebuilt from the event log, through the command a person runs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, inspect

from jobctrl.app.home import init_home
from jobctrl.home import Home
from jobctrl.store import jobs
from jobctrl.store.db import MIGRATIONS_DIR
from jobctrl.store.store import Store
from tests.support.processes import run_cli
from tests.support.profile import TEST_PROFILE
from tests.support.sqlite_template import copy_into


def _to_revision(url: str, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    engine = create_engine(url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
    engine.dispose()


def test_a_home_from_before_0010_lists_its_jobs_after_upgrading(home, store) -> None:
    created = {
        jobs.create_job(store, f"https://jobs.example.com/older/{n}").job_id for n in range(3)
    }
    store.dispose()
    _to_revision(home.database_url, "0009")  # the list projection is emptied on the way down
    engine = create_engine(home.database_url)
    assert "job_detail_projections" in inspect(engine).get_table_names()
    engine.dispose()

    # A new process: it migrates and catches up (this one has the store open and migrated).
    result = run_cli("jobs", "--json", timeout=60, process=True)

    assert result.returncode == 0, result.stderr
    assert {row["jobId"] for row in json.loads(result.stdout)} == created
    engine = create_engine(home.database_url)
    assert "job_detail_projections" not in inspect(engine).get_table_names()
    engine.dispose()


def _dump(path: Path) -> list[str]:
    """Every statement that recreates the database (schema and rows), sorted: Alembic's
    batch mode recreates a table's indexes in no fixed order."""
    with sqlite3.connect(path) as db:
        return sorted(db.iterdump())


def test_a_test_home_copied_from_the_template_equals_one_migrated_from_nothing(
    tmp_path, sqlite_template
) -> None:
    """Every SQLite test home outside this module starts as a copy of one migrated file
    (tests/conftest.py): its schema, Alembic revision and rows are a new home's."""
    scratch, copied = Home(tmp_path / "scratch"), Home(tmp_path / "copied")
    copy_into(sqlite_template, copied)
    for home in (scratch, copied):
        init_home(home, profile=TEST_PROFILE)
        Store.forget(home.database_url)

    dumped = _dump(copied.database_path)
    assert dumped == _dump(scratch.database_path)
    assert any("alembic_version" in line for line in dumped)
