"""What the reconcilers observe through ``workflows.starts``: an exact run, the runs on
this home's task queue, the queue's pollers and backlog, and cancelling an exact run."""

from __future__ import annotations

import uuid

from temporalio.client import WorkflowExecutionStatus

from jobctrl.workflows import starts
from jobctrl.workflows.models import ApplyWorkflowInput, SweepInput


async def test_an_exact_run_is_described_listed_and_cancelled(client, task_queue) -> None:
    # No worker polls: the execution stays running, which is what we observe.
    handle = await client.start_workflow(
        "ApplyWorkflow", ApplyWorkflowInput(continuous=True), id="observe-1", task_queue=task_queue
    )
    run_id = handle.result_run_id
    assert run_id
    described = await starts.describe_run(client, "observe-1", run_id)
    assert described is not None and described.status == WorkflowExecutionStatus.RUNNING
    assert await starts.describe_run(client, "observe-1", str(uuid.uuid4())) is None
    assert await starts.describe_run(client, "never-started", run_id) is None
    for _ in range(50):  # visibility is eventually consistent
        running = await starts.running_on_queue(client)
        if running:
            break
    assert [(r.workflow_id, r.run_id, r.workflow_type) for r in running] == [
        ("observe-1", run_id, "ApplyWorkflow")
    ]
    seen = await starts.observe_task_queue(client)
    assert seen.workflow_pollers == 0 and seen.activity_pollers == 0
    assert await starts.cancel_run(client, "observe-1", run_id) is True
    await handle.terminate()
    assert await starts.cancel_run(client, "observe-1", run_id) is False


async def test_a_polling_worker_is_observed_on_the_queue(client, worker) -> None:
    seen = await starts.observe_task_queue(client)
    for _ in range(40):
        if seen.workflow_pollers and seen.activity_pollers:
            break
        seen = await starts.observe_task_queue(client)
    assert seen.workflow_pollers >= 1 and seen.activity_pollers >= 1


async def test_a_sweep_left_running_on_another_homes_queue_does_not_stand_in(
    client, task_queue, monkeypatch
) -> None:
    """Homes sharing one server each have their own availability sweep: one left running
    by another home's stopped worker (its queue polled by no one) is not joined."""
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", f"{task_queue}-other")
    await starts.start_availability_sweep(client, SweepInput(limit=1, budget_seconds=60))
    other = starts.availability_sweep_id("local")
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", task_queue)
    mine = starts.availability_sweep_id("local")
    assert mine != other
    await starts.start_availability_sweep(client, SweepInput(limit=1, budget_seconds=60))
    described = await starts.describe(client, mine)
    assert described is not None and described.task_queue == task_queue
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", "jobctrl")
    assert starts.availability_sweep_id("local") == "availability-sweep-local"  # the default home's
    for workflow_id in (mine, other):
        await client.get_workflow_handle(workflow_id).terminate()
