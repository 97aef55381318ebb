"""Stopping discovery (issue 34) through the real worker, the CLI and the API: cancel stops
finding and, with its preparations, cancels the preparations that run started (finished
work stays, no score lands after the stop); a start while a run discovers or drains is
refused with that run's id (CLI exit 1, API 409, the Runs page's button disabled), and a
run the schedule starts then is listed as skipped with the run it yielded to."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from sqlalchemy import select
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError

from jobctrl.app.discovery import discovery_gate
from jobctrl.app.sources import add_source
from jobctrl.cli import main
from jobctrl.demo.boards import DemoBoards, build_boards
from jobctrl.domain.discovery import ExecutionRef
from jobctrl.store import discovery as runs_store
from jobctrl.store import jobs, schema, stage_states, tenancy
from jobctrl.workflows import starts
from tests.support.app import app_client
from tests.support.processes import run_cli
from tests.support.waiting import eventually_async

SLOW_SCORE_MS = 3_000  # preparations still in Score when the stop comes


@pytest.fixture
def boards(home, fast_settings) -> Iterator[DemoBoards]:
    fast_settings.set_value("min_fit_score", 0)
    fast_settings.set_value("recovery.enabled", False)
    fast_settings.set_value("providers.offline.latency_ms", SLOW_SCORE_MS)
    layout = build_boards(boards=3, per_board=2)[:-1]  # no broken board
    with DemoBoards(layout, api_delay=1.5) as b:
        for s in b.sources():
            add_source(home, s["kind"], s["name"], s["base_url"])
        yield b


def _prep_runs(store, run_id: str) -> list[tuple[str, str | None]]:
    """(job id, preparation workflow id) of the run's members."""
    m = schema.discovery_execution_jobs
    with store.read() as conn:
        return [
            (r.job_id, r.prep_workflow_id)
            for r in conn.execute(
                select(m.c.job_id, m.c.prep_workflow_id).where(
                    tenancy.scoped(m, conn), m.c.discover_run_id == run_id
                )
            )
        ]


async def _closed(client, workflow_id: str) -> WorkflowExecutionStatus:
    async def check():
        status = (await client.get_workflow_handle(workflow_id).describe()).status
        return status if status != WorkflowExecutionStatus.RUNNING else None

    return await eventually_async(check, 60, what=f"{workflow_id} to close")


def _stops(page: str) -> dict[str, str]:
    """A page's two stops (Runs, Operations), each with its class ("": the highlighted
    default)."""
    found = re.findall(
        r'class="(\w*)" data-post="/v1/discovery/cancel\?withPreparations=(\w+)"', page
    )
    return {with_preparations: css for css, with_preparations in found}


async def test_cancel_with_preparations_stops_finding_and_the_preparations_it_started(
    home, store, client, worker, boards, fast_settings
):
    started = await asyncio.to_thread(run_cli, "discover", "--json")
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["runId"]

    async def preparing():
        return any(wf for _, wf in _prep_runs(store, run_id)) or None

    await eventually_async(preparing, 60, what="a preparation started by the run")

    again = await asyncio.to_thread(run_cli, "discover", "--json")
    assert again.returncode == 1, "no second run on top of one still discovering"
    assert run_id in again.stderr and "still finding jobs" in again.stderr, again.stderr
    assert "Traceback" not in again.stderr

    # The setting picks the default stop: the page highlights it, `discover --cancel` does it.
    async with app_client(home) as api:
        assert _stops((await api.get("/runs")).text) == {"false": "", "true": "secondary"}
        fast_settings.set_value("discovery.cancel_preparations", True)
        page = (await api.get("/runs")).text
    assert _stops(page) == {"false": "secondary", "true": ""}
    assert "your default: stop finding jobs and cancel the preparations" in page
    async with app_client(home) as api:  # the Operations page offers the same two stops
        assert _stops((await api.get("/operations")).text) == {"false": "secondary", "true": ""}

    stop = await asyncio.to_thread(run_cli, "discover", "--cancel", "--json")
    assert stop.returncode == 0, stop.stderr
    stopped_at = time.monotonic()
    result = json.loads(stop.stdout)
    assert result["runId"] == run_id and result["cancelRequested"] is True
    assert result["withPreparations"] is True and result["preparationsCanceled"]

    handle = client.get_workflow_handle(result["workflowId"], run_id=run_id)
    assert (await handle.describe()).status == WorkflowExecutionStatus.CANCELED, "stopped finding"
    members = dict(_prep_runs(store, run_id))
    for job_id in result["preparationsCanceled"]:
        assert await _closed(client, members[job_id]) == WorkflowExecutionStatus.CANCELED
    # Past the slow Score's own end: nothing cancelled lands late, and spend stopped.
    await asyncio.sleep(max(0.0, stopped_at + SLOW_SCORE_MS / 1000 + 1 - time.monotonic()))
    for job_id in result["preparationsCanceled"]:
        rows = {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}
        assert jobs.score_row(store, job_id) is None, "no score after the stop"
        assert rows["score"]["error_code"] == "canceled", rows["score"]
        assert rows["enrich"]["state"] == "succeeded", "finished work stays"
    ref = ExecutionRef(store.tenant, result["workflowId"], run_id)
    left = runs_store.open_preparations(store, ref)
    assert left == [], (left, result["preparationsCanceled"])
    assert not discovery_gate(home).busy, "a new run may start once it is stopped"
    plan = (await asyncio.to_thread(run_cli, "runs", "--plan", run_id)).stdout
    assert "You cancelled the preparation of this job. (canceled)" in plan, plan


async def test_a_draining_run_refuses_a_start_and_its_preparations_can_be_cancelled(
    home, store, client, worker, boards, fast_settings
):
    async with app_client(home) as api:
        r = await api.post("/v1/discovery")
        assert r.status_code == 202, r.text
        run_id = r.json()["runId"]
        handle = client.get_workflow_handle(r.json()["workflowId"], run_id=run_id)
        await asyncio.wait_for(handle.result(), 60)  # found everything; Score is slow

        gate = discovery_gate(home)
        assert (gate.busy, gate.phase, gate.run_id) == (True, "draining", run_id)
        refused = await api.post("/v1/discovery")
        assert refused.status_code == 409, refused.text
        error = refused.json()["error"]
        assert error["code"] == "discovery_busy" and run_id in error["message"], error
        page = (await api.get("/runs")).text
        assert 'data-post="/v1/discovery" disabled' in page and "still preparing" in page
        assert "Cancel its preparations" in page
        # A run started past the command (the schedule's way: Temporal starts it) is held
        # to the same rule by its own first step: it ends failed and finds nothing.
        scheduled = await starts.start_discovery(client, store)
        assert scheduled.run_id != run_id
        with pytest.raises(WorkflowFailureError) as failed:
            await client.get_workflow_handle(
                scheduled.workflow_id, run_id=scheduled.run_id
            ).result()
        assert getattr(failed.value.cause, "type", None) == "discovery_busy"
        later = ExecutionRef(store.tenant, scheduled.workflow_id, scheduled.run_id)
        assert runs_store.member_count(store, later) == 0
        assert discovery_gate(home).run_id == run_id, "the draining run is still the one"
        # It is listed as skipped for the run it yielded to, not as a failure.
        listed = (await api.get("/v1/runs")).json()["items"]
        (refused,) = [r for r in listed if r["runId"] == scheduled.run_id]
        assert (refused["status"], refused["errorCode"]) == ("refused", "discovery_busy")
        assert refused["yieldedTo"] == run_id and "started nothing" in refused["sentence"]
        page = (await api.get("/runs")).text
        assert f"Skipped: another search was still running (run <code>{run_id}</code>)" in page
        assert 'badge-refused">skipped<' in page and 'badge-failed">failed<' not in page
        text = await asyncio.to_thread(CliRunner().invoke, main, ["runs"], catch_exceptions=False)
        assert f"{scheduled.run_id}  skipped   another search was still running (run {run_id})" in (
            text.output
        )

        # The explicit choice, the setting off (the first test proves the setting's default).
        stop = await api.post("/v1/discovery/cancel?withPreparations=true")
        assert stop.status_code == 200, stop.text
        body = stop.json()
        assert body["runId"] == run_id and body["cancelRequested"] is False
        assert body["withPreparations"] is True and body["preparationsCanceled"]
        # Cooperative: each preparation closes as canceled, then the run is no longer busy.
        await eventually_async(lambda: not discovery_gate(home).busy, 60, what="the stop")
        page = (await api.get("/runs")).text
        assert 'data-post="/v1/discovery" disabled' not in page
        nothing = await api.post("/v1/discovery/cancel")
        assert nothing.status_code == 409 and nothing.json()["error"]["code"] == "not_running"


async def test_a_run_that_has_not_planned_its_steps_shows_no_step_count(
    home, client, task_queue, fast_settings
):
    # No worker polls: the run cannot have recorded its plan, so it is only "starting".
    started = await asyncio.to_thread(run_cli, "discover")
    try:
        assert started.returncode == 0, started.stderr
        assert "starting" in started.stdout and "0/0" not in started.stdout, started.stdout
    finally:
        await client.get_workflow_handle("discover-local").terminate("test over")
