"""An existing home opens on a newer jobctrl: the schema migrates and the read models are
rebuilt from the event log, through the command a person runs."""

from __future__ import annotations

import json

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, inspect

from jobctrl.store import jobs
from jobctrl.store.db import MIGRATIONS_DIR
from tests.support.processes import run_cli


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

    result = run_cli("jobs", "--json", timeout=60)  # a new process migrates and catches up

    assert result.returncode == 0, result.stderr
    assert {row["jobId"] for row in json.loads(result.stdout)} == created
    engine = create_engine(home.database_url)
    assert "job_detail_projections" not in inspect(engine).get_table_names()
    engine.dispose()
