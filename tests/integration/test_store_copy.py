"""`jobctrl store copy --to URL`: a SQLite home prepared through the real pipeline (Temporal,
loopback HTTP, the offline provider) copied into a throwaway PostgreSQL database, then
opened there as a store."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import JSON, Text, cast, create_engine, func, inspect, select
from sqlalchemy.pool import NullPool

from jobctrl.app.applications import set_application_outcome
from jobctrl.app.jobs import add_job
from jobctrl.app.materials import decide_materials
from jobctrl.app.queries import JobListItem, list_jobs
from jobctrl.app.store_admin import CopyStep, copy_store
from jobctrl.cli import main
from jobctrl.domain.clock import as_utc
from jobctrl.domain.errors import (
    INVALID_INPUT,
    STORE_COPY_FAILED,
    STORE_SOURCE_IN_USE,
    STORE_TARGET_NOT_EMPTY,
    STORE_TARGET_UNREACHABLE,
    JobctrlError,
)
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.store import jobs, projections, runtime, schema, tenancy
from jobctrl.store.artifacts import ArtifactStore
from jobctrl.store.copy import SKIPPED
from jobctrl.store.store import Store
from jobctrl.store.tenancy import all_tenants as every_tenant
from jobctrl.testing import hooks
from tests.support.app import closed_port_address
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.jobs import failed_job
from tests.support.postgres import PostgresServer
from tests.support.tenants import ACME, TwoTenants

GOOD = posting_html(
    "Senior Backend Engineer",
    "Acme Robotics",
    ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker", "FastAPI"],
)
OTHER = posting_html("Platform Engineer", "Globex", ["Python", "Terraform", "AWS"])
PASSWORD = "s3cret-not-printed"
COPIED = [
    t for t in schema.metadata.sorted_tables if t not in (*SKIPPED, *projections.PROJECTION_TABLES)
]


@pytest.fixture
def target(postgres_server: PostgresServer) -> Iterator[str]:
    """A new, blank PostgreSQL database (not even the schema): its URL, with a password
    (the test server trusts loopback, so any password is accepted and none is needed)."""
    name = postgres_server.new_database(empty=True)
    url = postgres_server.url(name).replace("jobctrl@", f"jobctrl:{PASSWORD}@")
    yield url
    Store.forget(url)
    postgres_server.drop_database(name)


@pytest.fixture
def opened(home: Home) -> Iterator[list[Store]]:
    """Stores opened on a target by a test, disposed of before its database is dropped."""
    stores: list[Store] = []
    yield stores
    for s in stores:
        s.dispose()


def _open(url: str, home: Home, opened: list[Store]) -> Store:
    s = Store(url, ArtifactStore(home.artifacts_dir))
    opened.append(s)
    return s


async def _prepare(home: Home, store: Store, site: FixtureServer, settings) -> None:
    """A home with what a person accumulates: prepared jobs with materials and reports,
    a failed posting and a failed stage, decisions, an outcome, settings, spend, a worker's
    heartbeat."""
    settings.set_value("min_fit_score", 0)
    first = await add_job(home, site.add("/jobs/a", Route(body=GOOD)), wait=True)
    await add_job(home, site.add("/jobs/b", Route(body=OTHER)), wait=True)
    await add_job(home, site.base_url + "/gone", wait=True)
    failed_job(store, "https://boards.example.com/acme/jobs/7")
    decide_materials(home, first.job_id, "approve")
    set_application_outcome(home, first.job_id, "interview", note="call on Monday")
    settings.set_value("daily_budget_usd", 12.5)
    spend = SpendAuthority(store, settings)
    spend.record(
        observation_id="obs-1",
        lane="score",
        provider="openai",
        model="gpt-4o-mini",
        usage=Usage(1200, 300),
    )
    spend.reserve(
        reservation_id="res-1",
        lane="tailor",
        provider="openai",
        model="gpt-4o-mini",
        input_tokens=1000,
        max_output_tokens=500,
    )
    now = datetime.now(UTC)
    runtime.publish(
        store,
        {
            "worker_id": "host:1:abc", "home_id": "h", "task_queue": "q", "started_at": now,
            "beat_at": now, "interval_seconds": 5.0, "active_slots": 0, "capacity": 4,
            "items_total": 0, "items": [], "durations": {}, "queue": None,
        },
    )  # fmt: skip


# A copy is of the whole database: the reads below span every tenant on purpose.
def _rows(s: Store, t) -> dict[tuple, tuple]:
    """Every row of ``t`` by key, JSON as the text stored (SQL NULL apart from JSON null),
    timestamps in UTC."""
    key = [c.name for c in t.primary_key.columns]
    cols = [cast(c, Text).label(c.name) if isinstance(c.type, JSON) else c for c in t.c]
    with s.read() as conn:
        found = conn.execute(every_tenant(select(*cols))).all()

    def plain(v):
        return as_utc(v) if isinstance(v, datetime) else v

    return {tuple(r._mapping[k] for k in key): tuple(plain(v) for v in r) for r in found}


def _instants(view: JobListItem) -> dict:
    """A view's JSON with its ``…At`` times as instants (SQLite's read back without a
    zone)."""
    return {
        k: as_utc(datetime.fromisoformat(v)) if k.endswith("At") and v else v
        for k, v in view.to_json().items()
    }


def _count(s: Store, t) -> int:
    with s.read() as conn:
        return conn.execute(every_tenant(select(func.count()).select_from(t))).scalar_one()


@pytest.mark.postgres
async def test_a_prepared_home_is_copied_whole_and_the_target_works_as_a_store(
    home, store, worker, site, fast_settings, target, opened
):
    await _prepare(home, store, site, fast_settings)
    with pytest.raises(JobctrlError) as refused:  # the worker still beats against the home
        copy_store(home, target)
    assert refused.value.code == STORE_SOURCE_IN_USE and refused.value.exit_status == 1
    assert "--force" in refused.value.message
    plain = create_engine(target, poolclass=NullPool)  # not a Store: that would migrate it
    with plain.connect() as conn:  # nothing was written to the target, not even the schema
        assert not inspect(conn).get_table_names()
    plain.dispose()
    result = copy_store(home, target, force=True).to_json()

    copied = _open(target, home, opened)
    for t in COPIED:
        assert _rows(copied, t) == _rows(store, t), t.name
        assert result["tables"][t.name] == _count(store, t)
    for t in ("jobs", "job_events", "materials", "artifacts", "report_numbers", "llm_spend"):
        assert result["tables"][t] > 0, f"the prepared home has {t}"
    # The event log, identical and in order.
    e = schema.job_events
    log = every_tenant(select(e).order_by(e.c.seq))
    with store.read() as a, copied.read() as b:
        # By column name: a migrated database's physical column order is not the metadata's.
        def _row(r):
            return {**r._mapping, "occurred_at": as_utc(r.occurred_at)}

        source_log = [_row(r) for r in a.execute(log)]
        assert [_row(r) for r in b.execute(log)] == source_log
        last = a.execute(every_tenant(select(func.max(e.c.seq)))).scalar_one()
    assert result["events"] == _count(store, e) and result["lastSeq"] == last
    # The projections, rebuilt on the target, equal the source's.
    assert result["projectionsRebuilt"] and result["projectionsMatchSource"]
    assert result["eventsFolded"] == result["events"]
    for t in projections.PROJECTION_TABLES:
        assert _rows(copied, t) == _rows(store, t), t.name
        assert result["projections"][t.name] == _count(store, t)
    # The source's live processes are not data: left out, and said so.
    assert result["skipped"] == {t.name: _count(store, t) for t in SKIPPED}
    assert all(_count(copied, t) == 0 for t in SKIPPED)
    assert result["workersRunning"] == 1 and "worker" in result["warnings"][0]
    assert result["artifacts"] == {
        "dir": str(home.artifacts_dir),
        "referenced": _count(store, schema.artifacts),
        "missing": 0,
    }
    # Every autoincrement column continues after the copied rows.
    for name in ("job_events.seq", "materials.id", "profile_versions.version"):
        tab, col = name.split(".")
        with copied.read() as conn:
            top = conn.execute(
                every_tenant(select(func.max(schema.metadata.tables[tab].c[col])))
            ).scalar()
        assert result["sequences"][name] == top + 1
    assert set(result["sequences"]) >= {"source_observations.id", "truth_checks.id"}
    # A new write on the target takes the next sequence and folds into its projections.
    added = jobs.create_job(copied, "https://boards.example.com/acme/jobs/new-on-pg")
    assert added.created
    with copied.read() as conn:
        assert conn.execute(every_tenant(select(func.max(e.c.seq)))).scalar_one() == last + 1
    assert _count(copied, schema.job_list_projections) == _count(store, schema.jobs) + 1
    # jobctrl run against the target sees the same jobs.
    before = list_jobs(home)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JOBCTRL_DATABASE_URL", target)
        after = [j for j in list_jobs(home) if j.job_id != added.job_id]
    assert [_instants(j) for j in after] == [_instants(j) for j in before]


@pytest.mark.postgres
def test_a_target_holding_jobctrl_data_is_refused_and_left_alone(home, store, target, opened):
    failed_job(store, "https://boards.example.com/acme/jobs/1")
    copy_store(home, target)
    failed_job(store, "https://boards.example.com/acme/jobs/2")
    with pytest.raises(JobctrlError) as refused:
        copy_store(home, target)
    assert refused.value.code == STORE_TARGET_NOT_EMPTY and refused.value.exit_status == 1
    assert "jobs" in refused.value.message and PASSWORD not in refused.value.message
    assert _count(_open(target, home, opened), schema.jobs) == 1, "nothing was changed"


@pytest.mark.postgres
def test_every_tenants_rows_are_copied_under_the_tenant_guard(
    two_tenants: TwoTenants, target, opened, monkeypatch
):
    local, acme = two_tenants.local, two_tenants.acme
    failed_job(local, "https://boards.example.com/acme/jobs/1")
    failed_job(acme, "https://boards.example.com/acme/jobs/2")
    failed_job(acme, "https://boards.example.com/acme/jobs/3")
    monkeypatch.setenv(hooks.TENANT_GUARD, "1")  # the target's store is checked too
    tenancy.install_guard(local.reader)  # and the source's, whatever this run's setting
    tenancy.install_guard(local.writer)
    result = copy_store(two_tenants.local_home, target, force=True).to_json()
    assert result["tables"]["jobs"] == 3 and result["projectionsMatchSource"]
    copied = _open(target, two_tenants.local_home, opened)
    assert _rows(copied, schema.jobs) == _rows(local, schema.jobs)
    for view, mine in ((copied, 1), (copied.for_tenant(ACME), 2)):  # each its own tenant's
        with view.read() as conn:
            j = schema.jobs
            assert (
                conn.execute(
                    select(func.count()).select_from(j).where(tenancy.scoped(j, conn))
                ).scalar_one()
                == mine
            )


@pytest.mark.postgres
def test_an_empty_database_with_the_schema_already_is_a_fine_target(
    home, store, postgres_server, opened
):
    failed_job(store, "https://boards.example.com/acme/jobs/1")
    name = postgres_server.new_database()  # migrated, no rows
    url = postgres_server.url(name)
    try:
        result = copy_store(home, url).to_json()
        assert result["tables"]["jobs"] == 1
        assert _count(_open(url, home, opened), schema.jobs) == 1
    finally:
        for s in opened:
            s.dispose()
        postgres_server.drop_database(name)


@pytest.mark.postgres
def test_a_copy_the_target_refuses_keeps_nothing(home, store, target, opened):
    for i in range(3):
        failed_job(store, f"https://boards.example.com/acme/jobs/{i}")
    with sqlite3.connect(home.database_path) as db:  # too long for PostgreSQL's varchar(64)
        db.execute("UPDATE job_events SET type = ? WHERE seq = 2", ("x" * 100,))
    with pytest.raises(JobctrlError) as refused:
        copy_store(home, target)
    assert refused.value.code == STORE_COPY_FAILED and "rolled back" in refused.value.message
    copied = _open(target, home, opened)
    assert all(_count(copied, t) == 0 for t in schema.metadata.sorted_tables), "all or nothing"


@pytest.mark.postgres
def test_the_copy_is_one_snapshot_while_the_source_is_written(home, store, target, opened):
    for i in range(3):
        failed_job(store, f"https://boards.example.com/acme/jobs/{i}")
    wrote: list[str] = []

    def write_meanwhile(progress: CopyStep) -> None:
        if progress.phase == "copying" and progress.table == "job_events" and not wrote:
            wrote.append(jobs.create_job(store, "https://boards.example.com/late").job_id)

    result = copy_store(home, target, progress=write_meanwhile).to_json()
    copied = _open(target, home, opened)
    assert wrote and _count(store, schema.jobs) == 4
    assert result["tables"]["jobs"] == _count(copied, schema.jobs) == 3
    e = schema.job_events
    with copied.read() as conn:
        assert (
            conn.execute(every_tenant(select(func.max(e.c.seq)))).scalar_one() == result["lastSeq"]
        )
    assert result["projectionsMatchSource"]


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("not a url", "not a database URL"),
        ("mysql://u@h/db", "must be PostgreSQL"),
        ("postgresql+psycopg2://u@h/db", "psycopg 3"),
        ("postgresql+psycopg://u@h", "names no database"),
    ],
)
def test_a_url_that_is_not_postgresql_is_refused_before_anything_opens(home, url, says):
    with pytest.raises(JobctrlError) as refused:
        copy_store(home, url)
    assert refused.value.code == INVALID_INPUT and says in refused.value.message


def test_an_unreachable_server_is_one_line_and_exit_2(home, store, monkeypatch):
    url = f"postgresql+psycopg://jobctrl:{PASSWORD}@{closed_port_address()}/jobctrl"
    result = CliRunner().invoke(main, ["store", "copy", "--to", url])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: cannot reach postgresql+psycopg://jobctrl:***@")
    assert "Traceback" not in result.output and PASSWORD not in result.output
    with pytest.raises(JobctrlError) as refused:
        copy_store(home, url)
    assert refused.value.code == STORE_TARGET_UNREACHABLE


@pytest.mark.postgres
def test_a_database_the_server_refuses_is_a_wrong_url_exit_1_not_an_outage(
    home, store, postgres_server
):
    url = postgres_server.url("no_such_database").replace("jobctrl@", f"jobctrl:{PASSWORD}@")
    result = CliRunner().invoke(main, ["store", "copy", "--to", url])
    assert result.exit_code == 1, result.output
    assert "refused the connection" in result.stderr and "no_such_database" in result.stderr
    assert "Traceback" not in result.output and PASSWORD not in result.output


def test_a_password_in_the_query_string_is_never_printed(home, store):
    url = f"postgresql+psycopg://jobctrl@{closed_port_address()}/db?password={PASSWORD}"
    for to in (url, url.replace("?password=", "?sslpassword=")):
        result = CliRunner().invoke(main, ["store", "copy", "--to", to])
        assert result.exit_code == 2, result.output
        assert PASSWORD not in result.output and "=***" in result.stderr


@pytest.mark.postgres
def test_the_source_must_be_a_sqlite_home(home, target, monkeypatch):
    monkeypatch.setenv("JOBCTRL_DATABASE_URL", target)
    with pytest.raises(JobctrlError) as refused:
        copy_store(home, target)
    assert refused.value.code == INVALID_INPUT and "must be a SQLite home" in refused.value.message
    assert PASSWORD not in refused.value.message


@pytest.mark.postgres
def test_the_cli_copies_and_prints_json_without_the_password(home, store, target, opened):
    failed_job(store, "https://boards.example.com/acme/jobs/1")
    result = CliRunner().invoke(main, ["store", "copy", "--to", target, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert PASSWORD not in result.output
    assert out["target"] == target.replace(PASSWORD, "***")
    assert out["source"] == str(home.database_path)
    assert out["tables"]["jobs"] == 1 and out["events"] == _count(store, schema.job_events)
    assert out["projectionsRebuilt"] and out["projectionsMatchSource"]
    assert out["warnings"] == []
    for key in ("rows", "skipped", "lastSeq", "sequences", "projections", "artifacts", "seconds"):
        assert key in out
    # Piped, the human summary names the tables and where the artifacts stay.
    again = CliRunner().invoke(main, ["store", "copy", "--to", target])
    assert again.exit_code == 1 and "already holds jobctrl data" in again.stderr


@pytest.mark.postgres
def test_the_human_summary_lists_tables_and_the_artifacts_dir(home, store, target):
    failed_job(store, "https://boards.example.com/acme/jobs/1")
    result = CliRunner().invoke(main, ["store", "copy", "--to", target])
    assert result.exit_code == 0, result.output
    assert "job_events" in result.stdout and str(home.artifacts_dir) in result.stdout
    assert "projections rebuilt" in result.stdout and PASSWORD not in result.output


@pytest.mark.postgres
def test_ctrl_c_during_a_copy_rolls_it_back(home, store, target, opened):
    with store.write() as tx:  # enough rows that the copy is still running when asked
        for i in range(4000):
            jobs.create_job_in(tx, f"https://boards.example.com/acme/jobs/{i}")
    copying = subprocess.Popen(
        [str(Path(sys.executable).with_name("jobctrl")), "store", "copy", "--to", target, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's
    )
    assert copying.stderr is not None
    seen = []
    for line in copying.stderr:  # piped: plain progress lines on stderr (--json)
        seen.append(line)
        if line.startswith("copying"):
            copying.send_signal(signal.SIGINT)
    code = copying.wait(30)
    copied = _open(target, home, opened)
    if code == 0:
        # The progress line is the display's last look: on a loaded machine the copy can
        # already be committing when it is printed, and a commit is not interrupted. All
        # or nothing either way: then everything is there.
        assert _count(copied, schema.jobs) == 4000, seen
        return
    assert code == 130, seen
    assert seen[-1] == "interrupted\n" and copying.stdout.read() == ""
    assert all(_count(copied, t) == 0 for t in schema.metadata.sorted_tables), "rolled back"


def test_a_refused_target_leaves_the_source_untouched(tmp_path, monkeypatch):
    monkeypatch.setenv("JOBCTRL_HOME", str(tmp_path / "old"))
    monkeypatch.delenv("JOBCTRL_DATABASE_URL", raising=False)
    old = Home.resolve()
    old.root.mkdir()
    sqlite3.connect(old.database_path).execute("PRAGMA user_version = 7").connection.close()
    url = f"postgresql+psycopg://jobctrl@{closed_port_address()}/jobctrl"
    with pytest.raises(JobctrlError) as refused:
        copy_store(old, url)
    assert refused.value.code == STORE_TARGET_UNREACHABLE
    with sqlite3.connect(old.database_path) as db:  # not migrated, nothing created
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []
    assert sorted(p.name for p in old.root.iterdir()) == ["jobctrl.db"]
