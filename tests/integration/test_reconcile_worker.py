"""The run reconciler through the entry point: `jobctrl worker` as a person runs it (a short
heartbeat), executions ended behind the store's back, and what `jobctrl runs --json` and
`jobctrl executions --json` then say."""

from __future__ import annotations

import json
import signal
import uuid
from collections.abc import Callable, Iterator

import pytest
from temporalio.testing import WorkflowEnvironment

from jobctrl.app.activity import discovery_runs, event_log
from jobctrl.app.discovery import start_discovery
from jobctrl.app.executions import list_executions
from jobctrl.app.jobs import add_job
from jobctrl.app.sources import add_source
from jobctrl.domain import ids
from jobctrl.store import stage_states, workflow_runs
from jobctrl.worker.devserver import temporal_binary
from jobctrl.workflows.models import PrepInput
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.processes import WorkerProcess, run_cli, worker_processes
from tests.support.waiting import eventually

# On PostgreSQL too (tests/conftest.py), only the discovery run a `jobctrl worker` process
# reconciles on its beat (~20 s a store): the other two take 45-55 s a store, and what
# they check of the store (a stage settled as STAGE_INTERRUPTED, reconciled_not_found and
# its restoring) test_reconcile's in-process tests already check on both stores.
BOTH_STORES = {"test_a_discovery_run_terminated_behind_the_store_shows_failed_in_runs"}


@pytest.fixture
def worker_process(
    home, temporal_address, task_queue, fast_settings
) -> Iterator[Callable[[], WorkerProcess]]:
    fast_settings.set_value("worker.heartbeat_seconds", 0.5)
    with worker_processes() as start:
        yield start


def _runs(home, cli: bool = False) -> list[dict]:
    """`jobctrl runs --json` (the CLI is slow to start on a busy machine: polls read the
    same ``app.queries`` function in process, the final assertion runs the command)."""
    if cli:
        return json.loads(run_cli("runs", "--json", process=True).stdout)
    return [r.to_json() for r in discovery_runs(home)]


def _open_runs(home, cli: bool = False) -> list[dict]:
    if cli:
        return json.loads(run_cli("executions", "--json").stdout)["openRuns"]
    return [r.to_json() for r in list_executions(home).open_runs]


async def test_a_discovery_run_terminated_behind_the_store_shows_failed_in_runs(
    home, store, client, fast_settings, worker_process
) -> None:
    fast_settings.set_value("fetch.timeout_seconds", 60.0)
    with FixtureServer() as site:  # a feed that answers only after a minute
        site.add("/feed.xml", Route(body=b"<rss/>", delay=60.0))
        add_source(home, "feed", site.base_url + "/feed.xml", None)
        worker_process()
        started = await start_discovery(home)
        run_id = started.run_id
        assert eventually(lambda: any(r["runId"] == run_id for r in _runs(home)))
        assert next(r for r in _runs(home) if r["runId"] == run_id)["status"] == "running"

        await client.get_workflow_handle(ids.DISCOVER_WORKFLOW_ID, run_id=run_id).terminate()

        def shown() -> dict:
            return next(r for r in _runs(home) if r["runId"] == run_id)

        assert eventually(lambda: shown()["status"] != "running", timeout=15)
        [cli] = [r for r in _runs(home, cli=True) if r["runId"] == run_id]
        assert (cli["status"], cli["errorCode"]) == ("failed", "WORKFLOW_TERMINATED")
        row = workflow_runs.run_row(store, ids.DISCOVER_WORKFLOW_ID, run_id)
        assert row is not None and row["status"] == "failed"
        site.stop()


async def test_a_preparation_whose_worker_was_killed_and_execution_ended_is_settled_at_start(
    home, store, client, fast_settings, site, worker_process
) -> None:
    fast_settings.set_value("providers.offline.latency_ms", 20_000)
    fast_settings.set_value("recovery.enabled", False)  # leave the settled row to be seen
    url = site.add("/jobs/slow", Route(body=posting_html("SRE", "Killed Co", ["Linux"])))
    first = worker_process()
    view = await add_job(home, url)
    job_id, workflow_id = view.job_id, view.workflow_id

    def score_running() -> bool:
        return any(
            r["stage"] == "score" and r["state"] == "running"
            for r in stage_states.stage_rows(store, job_id)
        )

    assert eventually(score_running)
    first.proc.kill()  # SIGKILL: no finalize, nothing settled
    first.proc.wait()
    described = await client.get_workflow_handle(workflow_id).describe()
    run_id = described.run_id
    await client.get_workflow_handle(workflow_id, run_id=run_id).terminate()
    assert workflow_runs.run_row(store, workflow_id, run_id)["status"] == "running"

    worker_process()  # reconciles before it accepts work

    def settled() -> bool:
        return workflow_runs.run_row(store, workflow_id, run_id)["status"] != "running"

    assert eventually(settled, timeout=15)
    row = workflow_runs.run_row(store, workflow_id, run_id)
    assert (row["status"], row["error_code"]) == ("failed", "WORKFLOW_TERMINATED")
    score = next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == "score")
    assert (score["state"], score["error_code"], score["retryable"]) == (
        "failed",
        "STAGE_INTERRUPTED",
        True,
    )
    assert run_id not in {r["runId"] for r in _open_runs(home, cli=True)}


async def test_a_run_the_server_lacks_is_reconciled_not_found_then_restored(
    home, store, client, task_queue, fast_settings, worker_process, monkeypatch
) -> None:
    """The worker first reaches a server without the run's history (another dev server),
    then the one that has it."""
    key = uuid.uuid4().hex
    workflow_id = ids.prep_workflow_id(key, "local")
    handle = await client.start_workflow(
        "JobPreparationWorkflow",
        PrepInput(ids.job_id_for(key), key),
        id=workflow_id,
        task_queue=f"elsewhere-{key[:6]}",  # no worker takes it: it stays running
    )
    run_id = handle.result_run_id or ""
    workflow_runs.record_workflow_started(
        store, workflow_id=workflow_id, run_id=run_id, workflow_type="JobPreparationWorkflow",
        job_id=None,
    )  # fmt: skip
    other = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(), ip="127.0.0.1", dev_server_log_level="error"
    )
    try:
        monkeypatch.setenv(
            "JOBCTRL_TEMPORAL_ADDRESS", other.client.service_client.config.target_host
        )
        lost = worker_process()

        def status() -> str:
            return next(r["status"] for r in _open_runs(home) if r["runId"] == run_id)

        assert eventually(lambda: status() == "reconciled_not_found", timeout=15)
        shown = [r for r in _open_runs(home, cli=True) if r["runId"] == run_id]
        assert [r["status"] for r in shown] == ["reconciled_not_found"]
        lost.stop(signal.SIGTERM)
    finally:
        await other.shutdown()
    monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", client.service_client.config.target_host)
    worker_process()
    assert eventually(lambda: status() == "running", timeout=15)
    await handle.terminate()
    assert eventually(lambda: run_id not in {r["runId"] for r in _open_runs(home)}, timeout=15)
    row = workflow_runs.run_row(store, workflow_id, run_id)
    assert (row["status"], row["error_code"]) == ("failed", "WORKFLOW_TERMINATED")
    timeline = [
        e
        for e in event_log(home, 0, 10_000)
        if e.type == "WorkflowReconciled" and e.payload["runId"] == run_id
    ]
    assert [(e.payload["previous"], e.payload["verdict"]) for e in timeline] == [
        ("running", "reconciled_not_found"),
        ("reconciled_not_found", "running"),
        ("running", "failed"),
    ]
