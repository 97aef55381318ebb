"""Writers in several processes on one store (SQLite and PostgreSQL): the invariants that
one writer at a time gives SQLite hold across processes on PostgreSQL too — the spend
ceiling, one attempt number per stage claim, gap-free report numbers, and an event
sequence in commit order (a reader's ``seq > cursor`` never skips a late commit) — and a
writer kept waiting past the busy timeout fails as busy on both."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import func, make_url, select

from jobctrl.domain.errors import DatabaseBusyError
from jobctrl.domain.events import WorkflowCanceled
from jobctrl.llm.spend import utc_day
from jobctrl.store import events, jobs, schema, spend, stage_states, tenancy
from jobctrl.store.db import WRITER_LOCK
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.support.tenants import ACME, TwoTenants

ROOT = Path(__file__).resolve().parents[2]


def _start(*args: str, tenant: str | None = None) -> subprocess.Popen[str]:
    env = os.environ.copy() | ({"JOBCTRL_TENANT": tenant} if tenant else {})
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.store_writers", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
    )  # fmt: skip


def _result(proc: subprocess.Popen[str], timeout: float = 120) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _wait_for(path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def _release(go: Path, writers: int, timeout: float = 60) -> None:
    """Once every writer has opened the store and waits for ``go``, let them all go."""
    deadline = time.monotonic() + timeout
    while len(list(go.parent.glob(f"{go.name}.*.waiting"))) < writers:
        assert time.monotonic() < deadline, "the writers never got ready"
        time.sleep(0.01)
    go.touch()


def test_fifty_paid_calls_from_three_processes_never_exceed_the_ceiling(
    store: Store, settings: Settings, tmp_path: Path
) -> None:
    settings.set_value("daily_budget_usd", 1.0)
    go = tmp_path / "go"
    procs = [_start("spend", str(go), str(n), f"p{i}-") for i, n in enumerate((17, 17, 16))]
    _release(go, 3)
    results = [_result(p) for p in procs]
    assert sum(r["admitted"] + r["refused"] for r in results) == 50
    assert all(r["peak"] <= 1.0 + 1e-9 for r in results), results
    with store.read() as conn:
        ls = schema.llm_spend
        total = select(func.sum(ls.c.cost_usd), func.sum(ls.c.calls))
        spent = conn.execute(total.where(tenancy.scoped(ls, conn))).one()
    # Every call costs its reservation ($0.075): 13 fit in $1, a 14th would make $1.05.
    assert float(spent[0]) <= 1.0, results
    assert int(spent[1]) == sum(r["admitted"] for r in results) == 13


def test_each_tenants_ceiling_holds_under_paid_calls_from_several_processes(
    two_tenants: TwoTenants, tmp_path: Path
) -> None:
    """Two tenants on one database, 50 paid calls each from two processes apiece: each
    tenant's spend and reservations count against its own ceiling only."""
    for store in (two_tenants.local, two_tenants.acme):
        Settings(store).set_value("daily_budget_usd", 1.0)
    go = tmp_path / "go"
    procs = {
        tenant: [_start("spend", str(go), "25", f"{tenant}{i}-", tenant=tenant) for i in (0, 1)]
        for tenant in ("local", ACME)
    }
    _release(go, 4)
    for tenant, store in (("local", two_tenants.local), (ACME, two_tenants.acme)):
        results = [_result(p) for p in procs[tenant]]
        assert sum(r["admitted"] + r["refused"] for r in results) == 50
        assert all(r["peak"] <= 1.0 + 1e-9 for r in results), (tenant, results)
        rows = spend.lane_rows(store, utc_day())
        assert sum(r["cost_usd"] for r in rows) <= 1.0, (tenant, results)
        # 13 calls of $0.075 fit in $1 (a 14th would make $1.05), in each tenant.
        assert sum(r["calls"] for r in rows) == sum(r["admitted"] for r in results) == 13


def test_report_numbers_from_processes_of_two_tenants_run_from_one_in_each(
    two_tenants: TwoTenants, tmp_path: Path
) -> None:
    made = {
        tenant: [jobs.create_job(store, f"https://example.com/r/{n}").job_id for n in range(12)]
        for tenant, store in (("local", two_tenants.local), (ACME, two_tenants.acme))
    }
    go = tmp_path / "go"
    procs = {
        tenant: [_start("report", str(go), *ids[i::2], tenant=tenant) for i in (0, 1)]
        for tenant, ids in made.items()
    }
    _release(go, 4)
    for tenant in made:
        numbers = [n for p in procs[tenant] for n in _result(p)["numbers"].values()]
        assert sorted(numbers) == list(range(1, 13)), tenant


def test_two_processes_claiming_the_same_stages_get_distinct_attempts(
    store: Store, tmp_path: Path
) -> None:
    job_ids = [jobs.create_job(store, f"https://example.com/jobs/{n}").job_id for n in range(30)]
    go = tmp_path / "go"
    procs = [_start("claim", str(go), run, *job_ids) for run in ("run-a", "run-b")]
    _release(go, 2)
    a, b = (_result(p)["attempts"] for p in procs)
    for job_id in job_ids:
        assert {a[job_id], b[job_id]} == {1, 2}, (job_id, a[job_id], b[job_id])
        rows = {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}
        assert rows["enrich"]["attempts"] == 2
        winner = "run-a" if a[job_id] == 2 else "run-b"
        assert rows["enrich"]["owner_run_id"] == winner


def test_report_numbers_from_three_processes_are_distinct_and_gap_free(
    store: Store, tmp_path: Path
) -> None:
    job_ids = [jobs.create_job(store, f"https://example.com/r/{n}").job_id for n in range(30)]
    go = tmp_path / "go"
    procs = [_start("report", str(go), *job_ids[i::3]) for i in range(3)]
    _release(go, 3)
    numbers = [n for p in procs for n in _result(p)["numbers"].values()]
    assert sorted(numbers) == list(range(1, 31))


def test_an_event_committed_late_is_never_skipped_by_a_reader(store: Store, tmp_path: Path) -> None:
    """Writer A appends an event and holds its transaction open; writer B (another process)
    appends one after it. B must not commit first: a reader that saw B's event would move
    its cursor past A's, and never see A's."""
    cursor = events.latest_seq(store)
    go, ready = tmp_path / "go", tmp_path / "ready"
    holder = _start("hold-event", str(go), str(ready), "late-a")
    _wait_for(ready)
    follower = _start("append-event", str(tmp_path / "now"), "late-b")
    _release(tmp_path / "now", 1)
    _wait_for(tmp_path / "now.trying")
    time.sleep(0.5)  # B has had every chance to commit
    seen_early = [e["seq"] for e in events.events_after(store, cursor)]
    assert follower.poll() is None, "B committed while A's earlier event was uncommitted"
    assert seen_early == []
    go.touch()
    a, b = _result(holder), _result(follower)
    seen = [e["seq"] for e in events.events_after(store, cursor)]
    assert seen == [a["seq"], b["seq"]] and a["seq"] < b["seq"]


def test_a_writer_held_up_past_the_busy_timeout_fails_as_busy(
    store: Store, monkeypatch, tmp_path: Path
) -> None:
    """Another connection holds the write lock; a writer gives up after
    ``JOBCTRL_DB_BUSY_TIMEOUT`` with ``database_busy`` (retryable), not a crash or a hang."""
    monkeypatch.setenv("JOBCTRL_DB_BUSY_TIMEOUT", "0.3")
    impatient = Store(store.url, store.artifacts, run_migrations=False)
    with _write_lock_held_elsewhere(store.url):
        started = time.monotonic()
        with pytest.raises(DatabaseBusyError), impatient.write() as tx:
            tx.append(WorkflowCanceled(workflow_id="wf-busy", run_id="busy"), key="busy")
        assert time.monotonic() - started < 10
    impatient.dispose()
    with impatient.write() as tx:  # the lock is free again: the same write goes through
        assert tx.append(WorkflowCanceled(workflow_id="wf-busy", run_id="busy"), key="busy")
    impatient.dispose()


@contextmanager
def _write_lock_held_elsewhere(url: str) -> Iterator[None]:
    if url.startswith("sqlite"):
        conn = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            conn.execute("ROLLBACK")
            conn.close()
        return
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn:
        conn.execute(f"SELECT pg_advisory_xact_lock({WRITER_LOCK})")  # type: ignore[arg-type]
        yield
        conn.rollback()
