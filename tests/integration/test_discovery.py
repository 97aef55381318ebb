"""DiscoverWorkflow over the demo boards (Greenhouse, Lever and Ashby shapes on loopback),
with one board that always fails."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError

from jobctrl.app.discovery import cancel_discovery, start_discovery
from jobctrl.app.queries import list_jobs
from jobctrl.app.sources import add_source
from jobctrl.demo.boards import DemoBoards, build_boards, duplicate_pairs
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.executions import WorkflowType
from jobctrl.store import schema, tenancy, workflow_runs
from jobctrl.workflows.models import DiscoverInput, RetrySettings
from tests.support.app import app_client
from tests.support.processes import run_cli

# On PostgreSQL too (tests/conftest.py): a run's jobs, observations, links and step rows
# with one family failing, and cancel (its run rows closed; the open run found in the
# store). Left to SQLite (on PostgreSQL they pass but add ~80 s, the time spent preparing
# jobs, not in the store): the second run over known jobs and the kill -9 resume, whose
# store side (one job per posting, one set of events) test_prepare_pipeline's duplicate
# and racing adds check on both stores.
BOTH_STORES = {
    "test_discovery_saves_other_families_when_one_fails",
    "test_cancel_stops_the_run_and_keeps_accepted_results",
    "test_cancel_reaches_a_run_the_schedule_started",
}


@pytest.fixture
def boards() -> Iterator[DemoBoards]:
    with DemoBoards(build_boards(boards=4, per_board=6, duplicate_share=0.5)) as b:
        yield b


@pytest.fixture
def configured(home, boards, fast_settings) -> DemoBoards:
    fast_settings.set_value("min_fit_score", 0)
    for s in boards.sources():
        add_source(home, s["kind"], s["name"], s["base_url"])
    return boards


def _count(store, table, *where) -> int:
    with store.read() as conn:
        mine = tenancy.scoped(table, conn)
        return conn.execute(
            select(func.count()).select_from(table).where(mine, *where)
        ).scalar_one()


async def _wait_prepared(store, n: int, timeout: float = 60) -> None:
    wr = schema.workflow_run_projections
    for _ in range(int(timeout / 0.1)):
        done = _count(store, wr, wr.c.workflow_type == "JobPreparationWorkflow",
                      wr.c.status != "running")  # fmt: skip
        if done >= n:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"only {done} of {n} preparations finished")


async def test_discovery_saves_other_families_when_one_fails(home, store, worker, configured):
    run = await start_discovery(home, wait=True)
    postings = sum(len(b.postings) for b in configured.boards)
    unique = postings - duplicate_pairs(configured.boards)

    assert run.status == "partial"
    assert run.error_code == "SOURCE_UNAVAILABLE", "the failing source's error is shown"
    listed = (await asyncio.to_thread(run_cli, "runs")).stdout  # in words, the code after
    assert "A job board could not be reached" in listed and "(SOURCE_UNAVAILABLE)" in listed
    async with app_client(home) as web:
        assert "A job board could not be reached" in (await web.get("/runs")).text
    assert (run.progress.done, run.progress.total) == (2 + 3, 2 + 3)
    assert _count(store, schema.jobs) == unique, "one job per real posting"
    assert run.counts["jobs_created"] == unique
    assert run.counts["found"] == postings, "a retried family's counts replace, not add"
    assert _count(store, schema.source_observations) == postings
    dej = schema.discovery_execution_jobs
    assert _count(store, dej, dej.c.cohort == "observed_this_run") == unique
    assert _count(store, dej, dej.c.work_plan_state != "planned") == 0
    await _wait_prepared(store, unique)
    listed = list_jobs(home)
    assert all(j.score is not None for j in listed), "each discovered job was scored"

    ps = schema.pipeline_step_projections
    with store.read() as conn:
        steps = {
            (r.step_kind, r.item_key): (r.state, r.error_code)
            for r in conn.execute(select(ps).where(tenancy.scoped(ps, conn)))
        }
    assert steps[("source_planning", "plan")] == ("completed", None)
    assert steps[("source_family", "greenhouse")] == ("failed", "SOURCE_UNAVAILABLE")
    assert steps[("source_family", "lever")][0] == "completed"
    assert steps[("enrichment_pass", "enrichment_pass")][0] == "completed"
    assert steps[("preparation_fanout", "preparation_fanout")][0] == "completed"
    wr = schema.workflow_run_projections
    with store.read() as conn:
        closed = conn.execute(
            select(wr.c.status, wr.c.error_code).where(
                tenancy.scoped(wr, conn), wr.c.workflow_id == run.workflow_id
            )
        ).one()
    assert tuple(closed) == ("failed", "SOURCE_UNAVAILABLE"), "the run's row is closed too"


async def test_a_second_run_finds_no_new_jobs_and_starts_nothing_twice(
    home, store, worker, configured
):
    first = await start_discovery(home, wait=True)
    jobs_after_first = _count(store, schema.jobs)
    await _wait_prepared(store, jobs_after_first)
    second = await start_discovery(home, wait=True)
    assert second.run_id != first.run_id
    assert _count(store, schema.jobs) == jobs_after_first
    assert second.counts.get("new_jobs", 0) == 0
    assert second.counts["jobs_created"] == 0
    postings = sum(len(b.postings) for b in configured.boards)
    assert second.counts["known_jobs"] + second.counts.get("duplicates", 0) == postings
    assert second.counts.get("preparations_started", 0) == 0
    wr = schema.workflow_run_projections
    assert _count(store, wr, wr.c.workflow_type == "JobPreparationWorkflow") == jobs_after_first
    dej = schema.discovery_execution_jobs
    assert _count(store, dej, dej.c.discover_run_id == second.run_id) == jobs_after_first


async def test_kill_9_mid_discovery_resumes_without_duplicates(
    home, store, client, task_queue, fast_settings
):
    from tests.support.processes import WorkerProcess

    fast_settings.set_value("worker.heartbeat_timeout_seconds", 3.0)
    fast_settings.set_value("retry.max_attempts", 5)
    fast_settings.set_value("min_fit_score", 0)
    layout = build_boards(boards=4, per_board=5, duplicate_share=0.4)[:-1]  # no broken board
    with DemoBoards(layout, api_delay=1.0) as boards:
        for s in boards.sources():
            add_source(home, s["kind"], s["name"], s["base_url"])
        first = WorkerProcess()
        first.wait_ready()
        run = await start_discovery(home)
        dej = schema.discovery_execution_jobs
        for _ in range(300):  # until the first family has linked jobs: mid-discovery
            if _count(store, dej) > 0:
                break
            await asyncio.sleep(0.05)
        first.proc.kill()
        first.proc.wait()
        second = WorkerProcess()
        try:
            second.wait_ready()
            handle = client.get_workflow_handle(run.workflow_id, run_id=run.run_id)
            result = await asyncio.wait_for(handle.result(), 90)
        finally:
            second.stop(signal.SIGTERM)
    unique = sum(len(b.postings) for b in layout) - duplicate_pairs(layout)
    assert result["status"] == "completed"
    assert _count(store, schema.jobs) == unique
    e = schema.job_events
    assert _count(store, e, e.c.type == "JobCreated") == unique, "no job created twice"
    with store.read() as conn:
        mine = tenancy.scoped(e, conn)
        keys = conn.execute(select(e.c.idempotency_key).where(mine)).scalars().all()
    assert len(keys) == len(set(keys))
    assert _count(store, dej, dej.c.discover_run_id == run.run_id) == unique
    dr = schema.discovery_runs
    with store.read() as conn:
        row = conn.execute(
            select(dr.c.progress_done, dr.c.progress_total, dr.c.status).where(
                tenancy.scoped(dr, conn)
            )
        ).one()
    assert tuple(row) == (5, 5, "completed")


async def test_cancel_stops_the_run_and_keeps_accepted_results(
    home, store, client, worker, fast_settings
):
    layout = build_boards(boards=3, per_board=3)[:-1]
    with DemoBoards(layout, api_delay=1.5) as boards:
        for s in boards.sources():
            add_source(home, s["kind"], s["name"], s["base_url"])
        run = await start_discovery(home)
        dej = schema.discovery_execution_jobs
        for _ in range(300):
            if _count(store, dej) > 0:
                break
            await asyncio.sleep(0.05)
        result = await cancel_discovery(home)
        assert result.cancel_requested is True
        dr = schema.discovery_runs
        for _ in range(200):
            with store.read() as conn:
                status = conn.execute(select(dr.c.status).where(tenancy.scoped(dr, conn))).scalar()
            if status != "running":
                break
            await asyncio.sleep(0.05)
    assert status == "canceled"
    kept = _count(store, dej, dej.c.discover_run_id == run.run_id)
    assert kept > 0 and _count(store, schema.jobs) >= kept, "accepted results stay"
    handle = client.get_workflow_handle(run.workflow_id, run_id=run.run_id)
    with pytest.raises(WorkflowFailureError):
        await asyncio.wait_for(handle.result(), 30)
    assert (await handle.describe()).status == WorkflowExecutionStatus.CANCELED
    wr = schema.workflow_run_projections
    with store.read() as conn:
        row = conn.execute(
            select(wr.c.status).where(tenancy.scoped(wr, conn), wr.c.run_id == run.run_id)
        ).scalar()
    assert row == "canceled", "no DiscoverWorkflow row stays running"
    with pytest.raises(JobctrlError, match="no discovery run is in progress"):
        await cancel_discovery(home)


async def test_cancel_reaches_a_run_the_schedule_started(home, store, client, task_queue):
    """The schedule names its runs discover-local-<time>: cancel finds the open one the
    store recorded, not only discover-local (no worker polls, so it stays running)."""
    scheduled = "discover-local-2026-12-01T09:00:00Z"
    handle = await client.start_workflow(
        "DiscoverWorkflow",
        DiscoverInput("local", RetrySettings(2, 0.05, 30.0)),
        id=scheduled,
        task_queue=task_queue,
    )
    workflow_runs.record_workflow_started(
        store,
        workflow_id=scheduled,
        run_id=handle.result_run_id or "",
        workflow_type=WorkflowType.DISCOVERY.value,
        job_id=None,
    )
    result = await cancel_discovery(home)
    assert (result.workflow_id, result.run_id) == (scheduled, handle.result_run_id)
    await handle.terminate()
