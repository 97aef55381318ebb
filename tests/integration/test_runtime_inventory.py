"""The runtime inventory on a real Temporal worker: a slow Score in flight shows as one
slot and one `score` item of its exact run (joined to its job's title by the reader);
once it completes its duration counts; the stored row carries no URL, title or posting
text. Through `jobctrl worker`: the row appears with the item, and a worker stopped with
SIGTERM reads unavailable (never zero)."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest_asyncio

from jobctrl.app.jobs import add_job
from jobctrl.domain.runtime import RuntimeItem, home_identity
from jobctrl.store import runtime, stage_states
from jobctrl.worker.inventory import RuntimeInventory
from jobctrl.worker.run import build_worker
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.processes import WorkerProcess, run_cli
from tests.support.waiting import eventually_async

TITLE, COMPANY = "Runtime Inventory Engineer", "Slotful Systems"
POSTING = posting_html(TITLE, COMPANY, ["Rust and Python", "Observability tooling"])
PRIVATE = [TITLE, COMPANY, "Rust and Python", "Observability", "http", "127.0.0.1", "/jobs/"]


def _stage_running(store, job_id: str, stage: str) -> bool:
    return any(
        r["stage"] == stage and r["state"] == "running"
        for r in stage_states.stage_rows(store, job_id)
    )


def _serialized(store) -> str:
    return json.dumps(runtime.heartbeat_rows(store), default=str)


@pytest_asyncio.fixture
async def observed(client, home, store, task_queue, fast_settings) -> AsyncIterator[tuple]:
    inventory = RuntimeInventory(capacity=16, task_queue=task_queue)
    worker, ctx = build_worker(client, store, home, task_queue=task_queue, inventory=inventory)
    async with worker:
        yield inventory, ctx
    ctx.close()


async def test_a_score_in_flight_is_a_slot_and_an_item_of_its_exact_run(
    home, store, client, fast_settings, site: FixtureServer, observed
) -> None:
    inventory, ctx = observed
    fast_settings.set_value("providers.offline.latency_ms", 4000)
    home_id = home_identity(home)
    await inventory.publish(client, ctx)
    empty = runtime.read_runtime(store, datetime.now(UTC), home_id=home_id)
    assert (empty.state, empty.active_slots, empty.items, empty.items_total) == ("fresh", 0, [], 0)

    view = await add_job(home, site.add("/jobs/slow-score", Route(body=POSTING)))
    job_id = view.job_id
    await eventually_async(lambda: _stage_running(store, job_id, "score"), 60, what="Score to run")
    await inventory.publish(client, ctx)

    [row] = runtime.heartbeat_rows(store, home_id=home_id)
    assert row["active_slots"] == 1 and row["items_total"] == 1 and row["capacity"] == 16
    [item] = row["items"]
    assert item["kind"] == "score"
    assert (item["workflowId"], item["runId"]) == (view.workflow_id, view.run_id)
    assert set(item) == {"kind", "workflowId", "runId", "key", "startedAt"}
    queue = row["queue"]
    assert queue is not None and queue["approximate"] is True
    assert queue["activityPollers"] >= 1 and queue["workflowPollers"] >= 1
    serialized = _serialized(store)
    assert not [text for text in PRIVATE if text in serialized], serialized

    live = runtime.read_runtime(store, datetime.now(UTC), home_id=home_id)
    assert (live.state, live.active_slots, live.items_total, live.truncated) == (
        "fresh",
        1,
        1,
        False,
    )
    [shown] = live.items
    assert (shown.kind, shown.label, shown.stage) == ("score", "Score", "score")
    assert (shown.job_id, shown.job_title, shown.company) == (job_id, TITLE, COMPANY)

    handle = client.get_workflow_handle(view.workflow_id, run_id=view.run_id)
    await asyncio.wait_for(handle.result(), 60)
    await inventory.publish(client, ctx)
    done = runtime.read_runtime(store, datetime.now(UTC), home_id=home_id)
    assert (done.active_slots, done.items, done.items_total) == (0, [], 0)
    score = done.durations["score"]
    assert score["count"] == 1 and 4.0 <= score["p50"] == score["max"] < 30
    assert done.durations["enrich"]["count"] == 1
    serialized = _serialized(store)
    assert not [text for text in PRIVATE if text in serialized], serialized


async def test_through_jobctrl_worker_the_row_appears_and_a_stopped_worker_is_unavailable(
    home, store, temporal_address, task_queue, fast_settings, site: FixtureServer
) -> None:
    fast_settings.set_value("worker.heartbeat_seconds", 0.5)
    fast_settings.set_value("providers.offline.latency_ms", 6000)
    home_id = home_identity(home)
    process = WorkerProcess()
    try:
        process.wait_ready()

        def fresh_empty() -> bool:
            view = runtime.read_runtime(store, datetime.now(UTC), home_id=home_id)
            return view.state == "fresh" and view.active_slots == 0

        await eventually_async(fresh_empty, 30, what="a fresh, idle worker row")
        added = run_cli("add", site.add("/jobs/slow-cli", Route(body=POSTING)), "--json")
        assert added.returncode == 0, added.stderr
        job_id = json.loads(added.stdout)["jobId"]

        def scoring() -> list[RuntimeItem]:
            view = runtime.read_runtime(store, datetime.now(UTC), home_id=home_id)
            return [i for i in view.items if i.job_id == job_id and i.kind == "score"]

        await eventually_async(lambda: bool(scoring()), 60, what="the Score item")
        [item] = scoring()
        assert (item.label, item.job_title, item.company) == ("Score", TITLE, COMPANY)
        [row] = runtime.heartbeat_rows(store, home_id=home_id)
        assert row["task_queue"] == task_queue and row["interval_seconds"] == 0.5
        serialized = _serialized(store)
        assert not [text for text in PRIVATE if text in serialized], serialized
    finally:
        assert process.stop(signal.SIGTERM) == 0, "\n".join(process.lines)
    view = runtime.read_runtime(store, datetime.now(UTC), home_id=home_id)
    assert view.state == "unavailable" and view.active_slots is None
    assert runtime.heartbeat_rows(store) == []
