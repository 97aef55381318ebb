"""Stopping an execution (`jobctrl executions stop`) against a real Temporal dev server:
the stop is observed, not only asked for. A cancel that is never acted on (a workflow
type no worker runs) ends in a terminate; a workflow that honours its cancel is
cancelled, never terminated; a run Temporal does not have is refused by the command and,
met later by the heartbeat, is recorded not found, never closed."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import timedelta

from temporalio import workflow
from temporalio.client import WorkflowExecutionStatus
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from jobctrl.domain.clock import utcnow
from jobctrl.stages.context import StageContext
from jobctrl.store import orphans
from jobctrl.store.stage_control import JOB_CANCEL
from jobctrl.worker import reconcile
from tests.support.processes import run_cli

BOTH_STORES = True  # every test, on SQLite and on PostgreSQL (tests/conftest.py)


def _ctx(home, store) -> StageContext:
    """A stage context whose clock runs past the orphans' start grace."""
    return StageContext(home=home, store=store, clock=lambda: utcnow() + timedelta(seconds=120))


async def _listed_as_orphan(client, ctx, workflow_id: str) -> None:
    for _ in range(100):  # the visibility store is eventually consistent
        await reconcile.observe_queue(client, ctx)
        if workflow_id in {o.workflow_id for o in orphans.orphans(ctx.store)}:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{workflow_id} was never listed as an orphan")


def _stops(workflow_id: str) -> list[dict]:
    shown = run_cli("executions", "--json")
    assert shown.returncode == 0, shown.stderr
    return [s for s in json.loads(shown.stdout)["stopRequests"] if s["workflowId"] == workflow_id]


@workflow.defn(name="WaitsForCancel")
class WaitsForCancel:
    """Runs until cancelled, then ends as cancelled (it honours the cancel)."""

    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: False)


async def test_an_orphan_that_never_acts_on_a_cancel_is_terminated_and_says_so(
    home, store, client, task_queue
) -> None:
    workflow_id = f"my-orphan-{uuid.uuid4().hex[:8]}"
    handle = await client.start_workflow("NoSuchWorkflow", id=workflow_id, task_queue=task_queue)
    ctx = _ctx(home, store)
    await _listed_as_orphan(client, ctx, workflow_id)

    stopped = await asyncio.to_thread(  # the console script, once
        run_cli, "executions", "stop", workflow_id, "--json", process=True
    )
    assert stopped.returncode == 0, stopped.stderr
    assert json.loads(stopped.stdout)["reason"] == "orphan"
    for _ in range(reconcile.STOP_ISSUES + 2):  # the beats: five cancels, then a terminate
        await reconcile.issue_stops(client, ctx)

    described = await handle.describe()
    assert described.status == WorkflowExecutionStatus.TERMINATED, "the stop is observed"
    history = await handle.fetch_history()
    [ended] = [
        e for e in history.events if e.HasField("workflow_execution_terminated_event_attributes")
    ]
    assert ended.workflow_execution_terminated_event_attributes.reason == reconcile.TERMINATE_REASON
    [stop] = await asyncio.to_thread(_stops, workflow_id)
    assert (stop["outcome"], stop["issued"]) == ("terminated", reconcile.STOP_ISSUES)
    assert stop["observedClosedAt"] and not stop["gaveUpAt"]
    text = await asyncio.to_thread(run_cli, "executions")
    assert f"stop {workflow_id} (run {handle.result_run_id}): terminated" in text.stdout


async def test_a_workflow_that_honours_its_cancel_is_cancelled_not_terminated(
    home, store, client, task_queue
) -> None:
    workflow_id = f"coop-{uuid.uuid4().hex[:8]}"
    queue = f"{task_queue}-coop"  # its own worker; the home's queue stays unpolled
    async with Worker(
        client, task_queue=queue, workflows=[WaitsForCancel],
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):  # fmt: skip
        handle = await client.start_workflow(WaitsForCancel.run, id=workflow_id, task_queue=queue)
        run_id = handle.result_run_id or ""
        stopped = await asyncio.to_thread(
            run_cli, "executions", "stop", workflow_id, "--run", run_id, "--json"
        )
        assert stopped.returncode == 0, stopped.stderr
        ctx = _ctx(home, store)
        for _ in range(reconcile.STOP_ISSUES + 2):
            await reconcile.issue_stops(client, ctx)
            await asyncio.sleep(0.3)  # a beat's interval: time to act on the cancel

        described = await handle.describe()
    assert described.status == WorkflowExecutionStatus.CANCELED
    [stop] = orphans.stop_requests(store)
    assert stop.outcome == "closed" and stop.observed_closed_at and not stop.gave_up_at
    assert stop.issued < reconcile.STOP_ISSUES


async def test_a_stop_of_a_run_temporal_does_not_have_is_refused_and_records_nothing(
    home, store, client, task_queue
) -> None:
    workflow_id = f"my-orphan-{uuid.uuid4().hex[:8]}"
    handle = await client.start_workflow("NoSuchWorkflow", id=workflow_id, task_queue=task_queue)

    for run_id in ("bogusrun", str(uuid.uuid4())):  # refused as a run id; a well-formed one
        refused = await asyncio.to_thread(
            run_cli, "executions", "stop", workflow_id, "--run", run_id, "--json"
        )
        assert refused.returncode == 1, refused.stdout
        assert refused.stderr.startswith("error: ") and len(refused.stderr.splitlines()) == 1
        assert run_id in refused.stderr and refused.stdout == ""
    elsewhere = await asyncio.to_thread(
        run_cli, "executions", "stop", f"nobody-{uuid.uuid4().hex[:6]}", "--run", str(uuid.uuid4())
    )
    assert elsewhere.returncode == 1 and elsewhere.stderr.startswith("error: ")
    assert orphans.stop_requests(store) == [], "nothing recorded"

    ok = await asyncio.to_thread(
        run_cli, "executions", "stop", workflow_id, "--run", handle.result_run_id or ""
    )
    assert ok.returncode == 0, ok.stderr  # the exact run Temporal has is accepted
    await handle.terminate()


async def test_a_stop_whose_run_is_gone_is_not_found_never_closed(
    home, store, client, task_queue
) -> None:
    """A stop recorded for a run Temporal has no history of (its history gone, another
    namespace) is not called closed: nothing was seen closed."""
    workflow_id = f"gone-{uuid.uuid4().hex[:8]}"
    orphans.request_stop(store, workflow_id, "bogusrun", "operator")
    orphans.request_stop(store, workflow_id, str(uuid.uuid4()), "operator")

    assert await reconcile.issue_stops(client, _ctx(home, store)) == 0

    stops = await asyncio.to_thread(_stops, workflow_id)
    assert [s["observedClosedAt"] for s in stops] == [None, None], "never seen closed"
    assert [s["outcome"] for s in stops] == ["not_found", "not_found"]
    assert all(s["gaveUpAt"] for s in stops)
    assert orphans.pending_stops(store) == [], "not re-issued"
    text = await asyncio.to_thread(run_cli, "executions")
    assert f"stop {workflow_id} (run bogusrun): not found" in text.stdout


async def test_a_job_cancel_is_never_terminated_and_a_young_stop_waits(
    home, store, client, task_queue
) -> None:
    """jobctrl's own cancel of a job is never escalated (its workflow must end canceled,
    keeping its results): after the cancels it is given up. A person's stop is terminated
    only ``TERMINATE_AFTER`` after it was asked for, however fast the beats come."""
    cancelled = await client.start_workflow(
        "NoSuchWorkflow", id=f"job-{uuid.uuid4().hex[:8]}", task_queue=task_queue
    )
    young = await client.start_workflow(
        "NoSuchWorkflow", id=f"young-{uuid.uuid4().hex[:8]}", task_queue=task_queue
    )
    orphans.request_stop(store, cancelled.id, cancelled.result_run_id or "", JOB_CANCEL)
    orphans.request_stop(store, young.id, young.result_run_id or "", "operator")
    now = StageContext(home=home, store=store)  # its clock is the real one
    try:
        for _ in range(reconcile.STOP_ISSUES + 2):
            await reconcile.issue_stops(client, now)
    finally:
        now.close()
    for handle in (cancelled, young):
        assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
    stops = {s.workflow_id: s for s in orphans.stop_requests(store)}
    assert stops[cancelled.id].outcome == "gave_up"
    assert stops[young.id].outcome is None, "still pursued: terminated once old enough"
    later = _ctx(home, store)  # its clock runs 120 s ahead
    try:
        await reconcile.issue_stops(client, later)
    finally:
        later.close()
    assert (await young.describe()).status == WorkflowExecutionStatus.TERMINATED
    assert (await cancelled.describe()).status == WorkflowExecutionStatus.RUNNING
    await cancelled.terminate()
