"""The run reconciler against a real Temporal dev server: executions are started with no
worker polling their queue (so they stay running until the test ends them behind the
store's back), and ``reconcile_runs`` must bring the store in line with what Temporal
reports for each exact execution."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select
from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from jobctrl.app import executions
from jobctrl.app.activity import discovery_runs
from jobctrl.domain import ids
from jobctrl.domain.clock import utcnow
from jobctrl.domain.discovery import ExecutionRef, StepKind
from jobctrl.stages.context import StageContext
from jobctrl.store import discovery, events, jobs, orphans, schema, stage_states, workflow_runs
from jobctrl.worker import reconcile
from jobctrl.worker.devserver import temporal_binary
from jobctrl.workflows.client import connect
from jobctrl.workflows.models import ApplyWorkflowInput, DiscoverInput, PrepInput
from tests.support.processes import run_cli

BOTH_STORES = True  # every test, on SQLite and on PostgreSQL (tests/conftest.py)


def _ctx(home, store, ahead: float = 0.0) -> StageContext:
    """A stage context whose clock runs ``ahead`` seconds (past the start grace)."""
    return StageContext(home=home, store=store, clock=lambda: utcnow() + timedelta(seconds=ahead))


def _reconciled(store, workflow_id: str) -> list[dict]:
    return [
        e["payload"]
        for e in events.events_after(store, 0, 10_000)
        if e["type"] == "WorkflowReconciled" and e["payload"]["workflowId"] == workflow_id
    ]


async def _prep(client, store, task_queue, url: str) -> tuple[str, str, str]:
    """A job whose preparation runs in Temporal (no worker: it stays running), recorded as
    started, with its Score row claimed by that run as if an attempt were in flight. The
    URL is made unique: the variant on the other store shares the Temporal server, where
    an execution of this job's workflow id may still run."""
    job = jobs.create_job(store, f"{url}-{uuid.uuid4().hex[:8]}")
    workflow_id = ids.prep_workflow_id(job.idempotency_key, store.tenant)
    handle = await client.start_workflow(
        "JobPreparationWorkflow",
        PrepInput(job.job_id, job.idempotency_key),
        id=workflow_id,
        task_queue=task_queue,
    )
    run_id = handle.result_run_id
    assert run_id
    workflow_runs.record_workflow_started(
        store, workflow_id=workflow_id, run_id=run_id, workflow_type="JobPreparationWorkflow",
        job_id=job.job_id,
    )  # fmt: skip
    with store.write() as tx:
        stage_states.ensure_stages(tx, job.job_id, ["score"])
    stage_states.claim_stage(store, job.job_id, "score", run_id)
    return job.job_id, workflow_id, run_id


async def test_a_terminated_preparation_is_closed_and_its_running_stage_settled(
    home, store, client, task_queue
) -> None:
    job_id, workflow_id, run_id = await _prep(client, store, task_queue, "https://x.test/a")
    ctx = _ctx(home, store)

    await reconcile.reconcile_runs(client, ctx)
    assert workflow_runs.run_row(store, workflow_id, run_id)["status"] == "running"
    assert not _reconciled(store, workflow_id), "a running execution changes nothing"

    await client.get_workflow_handle(workflow_id, run_id=run_id).terminate()
    done = await reconcile.reconcile_runs(client, ctx)

    assert done["changed"] == 1
    row = workflow_runs.run_row(store, workflow_id, run_id)
    assert (row["status"], row["error_code"]) == ("failed", "WORKFLOW_TERMINATED")
    [verdict] = _reconciled(store, workflow_id)
    assert (verdict["verdict"], verdict["previous"]) == ("failed", "running")
    [score] = [r for r in stage_states.stage_rows(store, job_id) if r["stage"] == "score"]
    assert (score["state"], score["error_code"], score["retryable"]) == (
        "failed",
        "STAGE_INTERRUPTED",
        True,
    )
    assert workflow_runs.open_runs(store) == []
    await reconcile.reconcile_runs(client, ctx)
    assert len(_reconciled(store, workflow_id)) == 1, "a settled run is not reconciled again"


async def test_a_discovery_run_ended_behind_the_store_shows_its_real_end(
    home, store, client, task_queue
) -> None:
    workflow_id = f"discover-test-{uuid.uuid4().hex[:8]}"
    handle = await client.start_workflow(
        "DiscoverWorkflow", DiscoverInput(), id=workflow_id, task_queue=task_queue
    )
    run_id = handle.result_run_id
    assert run_id
    ref = ExecutionRef("local", workflow_id, run_id)
    discovery.open_run(store, ref, ["feed"], 3, 1, 1)
    discovery.step_started(store, ref, StepKind.SOURCE_FAMILY, "feed", 1)
    ctx = _ctx(home, store)
    [shown] = [r for r in discovery_runs(home) if r.run_id == run_id]
    assert shown.status == "running"

    await handle.terminate()
    await reconcile.reconcile_runs(client, ctx)

    [shown] = [r for r in discovery_runs(home) if r.run_id == run_id]
    assert (shown.status, shown.error_code) == ("failed", "WORKFLOW_TERMINATED")
    assert shown.finished_at is not None
    types = [e["type"] for e in events.events_after(store, 0, 1000)]
    assert "DiscoveryRunFailed" in types and "WorkflowReconciled" in types
    ps = schema.pipeline_step_projections
    with store.read() as conn:
        mine = ps.c.tenant_id == store.tenant
        states = set(conn.execute(select(ps.c.state).where(mine, ps.c.run_id == run_id)).scalars())
    assert "running" not in states, "a closed run holds no live step"


async def test_a_run_temporal_cannot_find_is_provisional_and_restored_when_found(
    home, store, client, task_queue
) -> None:
    """Two dev servers: the one the worker reaches first lacks the run's history (as after
    a server lost it), the other has it."""
    job_id, workflow_id, run_id = await _prep(client, store, task_queue, "https://x.test/b")
    ref = ExecutionRef("local", ids.DISCOVER_WORKFLOW_ID, str(uuid.uuid4()))
    discovery.open_run(store, ref, [], 2, 1, 0)  # a discovery run no server has
    ctx = _ctx(home, store)
    other = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(), ip="127.0.0.1", dev_server_log_level="error"
    )
    try:
        await reconcile.probe_open_runs(other.client, ctx, 200)
    finally:
        await other.shutdown()

    assert workflow_runs.run_row(store, workflow_id, run_id)["status"] == "reconciled_not_found"
    [lost] = [r for r in discovery_runs(home) if r.run_id == ref.run_id]
    assert lost.status == "reconciled_not_found"
    assert {r["run_id"] for r in workflow_runs.open_runs(store)} == {run_id}
    score = next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == "score")
    assert score["state"] == "running", "not found is no proof that it ended"

    await reconcile.probe_open_runs(client, ctx, 200)  # the server that has it answers
    assert workflow_runs.run_row(store, workflow_id, run_id)["status"] == "running"
    assert [(v["previous"], v["verdict"]) for v in _reconciled(store, workflow_id)] == [
        ("running", "reconciled_not_found"),
        ("reconciled_not_found", "running"),
    ], "the false verdict stays in the log"

    await client.get_workflow_handle(workflow_id, run_id=run_id).cancel()
    await client.get_workflow_handle(workflow_id, run_id=run_id).terminate()
    await reconcile.probe_open_runs(client, ctx, 200)
    assert workflow_runs.run_row(store, workflow_id, run_id)["status"] == "failed"
    [still] = [r for r in discovery_runs(home) if r.run_id == ref.run_id]
    assert still.status == "reconciled_not_found", "probed again, never invented"


async def test_a_server_that_does_not_answer_changes_nothing(
    home, store, client, task_queue, monkeypatch
) -> None:
    _, workflow_id, run_id = await _prep(client, store, task_queue, "https://x.test/c")

    async def away(*_: object) -> None:
        raise RPCError("unavailable", RPCStatusCode.UNAVAILABLE, b"")

    monkeypatch.setattr(reconcile.starts, "describe_run", away)
    with pytest.raises(RPCError):
        await reconcile.probe_open_runs(client, _ctx(home, store), 200)
    assert workflow_runs.run_row(store, workflow_id, run_id)["status"] == "running"
    assert not _reconciled(store, workflow_id)


async def test_probes_per_beat_are_bounded_least_recently_probed_first(
    home, store, client, task_queue
) -> None:
    for n in range(5):
        await _prep(client, store, task_queue, f"https://x.test/bound-{n}")
    ctx = _ctx(home, store)
    first = await reconcile.probe_open_runs(client, ctx, 2)
    second = await reconcile.probe_open_runs(client, ctx, 2)
    third = await reconcile.probe_open_runs(client, ctx, 2)
    assert (first["probed"], second["probed"], third["probed"]) == (2, 2, 2)
    probed = {k[1:] for k in reconcile._probed if k[0] == store.url}
    assert len(probed) == 5, "each beat takes the ones probed longest ago"


async def test_orphans_are_listed_ours_adopted_and_a_stop_is_reissued_then_terminated(
    home, store, client, task_queue
) -> None:
    stray = await client.start_workflow(
        "ApplyWorkflow", ApplyWorkflowInput(continuous=True), id=f"stray-{uuid.uuid4().hex[:6]}",
        task_queue=task_queue,
    )  # fmt: skip
    job = jobs.create_job(store, f"https://x.test/adopt-{uuid.uuid4().hex[:8]}")
    prep_id = ids.prep_workflow_id(job.idempotency_key, store.tenant)
    lost = await client.start_workflow(
        "JobPreparationWorkflow", PrepInput(job.job_id, job.idempotency_key), id=prep_id,
        task_queue=task_queue,
    )  # fmt: skip
    scheduled = await client.start_workflow(  # as the discovery schedule names its runs
        "DiscoverWorkflow", DiscoverInput(), id=f"discover-local-{uuid.uuid4().hex[:8]}",
        task_queue=task_queue,
    )  # fmt: skip
    ctx = _ctx(home, store, ahead=120)  # past the start grace
    for _ in range(50):  # the visibility store is eventually consistent: until it lists all
        if await reconcile.observe_queue(client, ctx) == 1 and workflow_runs.run_row(
            store, scheduled.id, scheduled.result_run_id or ""
        ):
            break
        await asyncio.sleep(0.1)
    [orphan] = orphans.orphans(store)
    assert (orphan.workflow_id, orphan.run_id) == (stray.id, stray.result_run_id)
    assert orphan.workflow_type == "ApplyWorkflow"
    adopted = workflow_runs.run_row(store, prep_id, lost.result_run_id or "")
    assert adopted is not None and adopted["job_id"] == job.job_id, "ours: recorded, no orphan"
    found = workflow_runs.run_row(store, scheduled.id, scheduled.result_run_id or "")
    assert found is not None and found["workflow_type"] == "DiscoverWorkflow"
    listed = executions.list_executions(home)
    assert [o.workflow_id for o in listed.orphans] == [stray.id]
    assert prep_id in {r.workflow_id for r in listed.open_runs}

    # No worker polls the queue: the cancel is requested but never taken, so it is
    # re-issued on each beat, five times, then the execution is terminated.
    request = await executions.stop_execution(home, stray.id)
    assert (request.run_id, request.reason) == (stray.result_run_id, "orphan")
    for _ in range(7):
        await reconcile.issue_stops(client, ctx)
    [stop] = orphans.stop_requests(store)
    assert stop.issued == 5 and stop.observed_closed_at and not stop.gave_up_at
    assert stop.outcome == "terminated"
    described = await client.get_workflow_handle(stray.id).describe()
    assert described.status == WorkflowExecutionStatus.TERMINATED

    await executions.stop_execution(home, stray.id, stray.result_run_id)  # again: afresh
    await reconcile.issue_stops(client, ctx)
    [stop] = orphans.stop_requests(store)
    assert stop.issued == 0 and stop.outcome == "closed" and not stop.gave_up_at
    for _ in range(50):
        if await reconcile.observe_queue(client, ctx) == 0:
            break
    assert orphans.orphans(store) == [], "the set is replaced on every beat"
    await lost.terminate()
    await scheduled.terminate()


async def test_missing_workflow_run_rows_are_rebuilt_from_the_event_log(
    home, store, client, task_queue
) -> None:
    _, workflow_id, run_id = await _prep(client, store, task_queue, "https://x.test/d")
    await client.get_workflow_handle(workflow_id, run_id=run_id).terminate()
    await reconcile.reconcile_runs(client, _ctx(home, store))
    before = workflow_runs.run_row(store, workflow_id, run_id)
    wr = schema.workflow_run_projections
    with store.write() as tx:
        tx.conn.execute(wr.delete().where(wr.c.tenant_id == tx.tenant))
    assert workflow_runs.run_row(store, workflow_id, run_id) is None

    fresh = await connect(home)
    await reconcile.reconcile_on_start(fresh, _ctx(home, store))

    assert workflow_runs.run_row(store, workflow_id, run_id) == before
    assert workflow_runs.repair_missing(store) == 0


async def test_a_run_id_temporal_refuses_is_not_found_and_the_pass_goes_on(
    home, store, client, task_queue
) -> None:
    workflow_runs.record_workflow_started(
        store,
        workflow_id="prep-odd",
        run_id="not-a-run-id",
        workflow_type="JobPreparationWorkflow",
        job_id=None,
    )
    _, workflow_id, run_id = await _prep(client, store, task_queue, "https://x.test/e")
    await client.get_workflow_handle(workflow_id, run_id=run_id).terminate()
    done = await reconcile.probe_open_runs(client, _ctx(home, store), 200)
    assert done["changed"] == 2
    assert workflow_runs.run_row(store, "prep-odd", "not-a-run-id")["status"] == (
        "reconciled_not_found"
    )
    assert workflow_runs.run_row(store, workflow_id, run_id)["status"] == "failed"


async def test_a_run_the_queue_no_longer_lists_is_probed_first(
    home, store, client, task_queue
) -> None:
    runs = [await _prep(client, store, task_queue, f"https://x.test/s-{n}") for n in range(4)]
    ctx = _ctx(home, store)
    await reconcile.probe_open_runs(client, ctx, 200)  # all probed just now
    _, workflow_id, run_id = runs[2]
    await client.get_workflow_handle(workflow_id, run_id=run_id).terminate()
    for _ in range(50):  # the listing is eventually consistent
        listed = await reconcile.starts.running_on_queue(client)
        if run_id not in {r.run_id for r in listed}:
            break
    # Without the head start it would go last: it looks the most recently probed.
    reconcile._probed[(store.url, workflow_id, run_id)] = time.monotonic() + 100
    done = await reconcile.reconcile_runs(client, ctx, probes=1)
    assert done["changed"] == 1
    assert workflow_runs.run_row(store, workflow_id, run_id)["status"] == "failed"


async def test_jobctrl_runs_checks_an_open_run_with_temporal_before_showing_it(
    home, store, client, task_queue
) -> None:
    """No worker runs (so no beat reconciles): `jobctrl runs --json` itself describes the
    runs it is about to show as running — one terminated behind the store's back shows
    its real end; one Temporal has no history of shows ``reconciled_not_found``, never
    ``running``, while recording it is left to the worker's pass (the command's settings
    may name another namespace than the worker's)."""
    workflow_id = f"discover-test-{uuid.uuid4().hex[:8]}"
    handle = await client.start_workflow(
        "DiscoverWorkflow", DiscoverInput(), id=workflow_id, task_queue=task_queue
    )
    ended = ExecutionRef("local", workflow_id, handle.result_run_id or "")
    discovery.open_run(store, ended, ["feed"], 3, 1, 1)
    lost = ExecutionRef("local", ids.DISCOVER_WORKFLOW_ID, str(uuid.uuid4()))
    discovery.open_run(store, lost, [], 2, 1, 0)
    await handle.terminate()

    result = await asyncio.to_thread(run_cli, "runs", "--json")

    assert result.returncode == 0, result.stderr
    shown = {r["runId"]: r for r in json.loads(result.stdout)}
    assert (shown[ended.run_id]["status"], shown[ended.run_id]["errorCode"]) == (
        "failed",
        "WORKFLOW_TERMINATED",
    )
    assert shown[lost.run_id]["status"] == "reconciled_not_found"
    assert "no Temporal server" not in result.stderr
    [recorded] = [r for r in discovery_runs(home) if r.run_id == lost.run_id]
    assert recorded.status == "running", "the command's view is not recorded"


async def test_jobctrl_runs_without_a_server_shows_the_record_and_says_so(
    home, store, no_temporal
) -> None:
    ref = ExecutionRef("local", ids.DISCOVER_WORKFLOW_ID, str(uuid.uuid4()))
    discovery.open_run(store, ref, [], 2, 1, 0)

    result = await asyncio.to_thread(run_cli, "runs", "--json")

    assert result.returncode == 0, result.stderr
    assert [r["status"] for r in json.loads(result.stdout)] == ["running"]
    assert "no Temporal server answered" in result.stderr
