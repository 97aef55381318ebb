"""Availability sweeps, one at a time for the whole deployment: a sweep holds an activity
slot for up to 20 minutes, so one per tenant could fill every slot of the worker and hold
every tenant's preparations. The due tenants take turns (review s8).

No worker polls this test's task queue (the sweeps' ids name it), so a started sweep stays
running until the test ends it: what the heartbeat sees is exactly what it started."""

from __future__ import annotations

import asyncio

from temporalio.client import Client, WorkflowExecutionStatus

from jobctrl.stages.context import StageContext
from jobctrl.store import jobs
from jobctrl.worker.heartbeat import WorkerHeartbeat
from jobctrl.workflows import starts
from tests.support.tenants import ACME, TwoTenants


async def _running(client: Client, tenant: str) -> bool:
    found = await starts.describe(client, starts.availability_sweep_id(tenant))
    return found is not None and found.status == WorkflowExecutionStatus.RUNNING


async def _end(client: Client, tenant: str) -> None:
    if await _running(client, tenant):
        await client.get_workflow_handle(starts.availability_sweep_id(tenant)).terminate()


async def _beats_until_running(heartbeat: WorkerHeartbeat, client: Client, tenant: str) -> None:
    """Beat until ``tenant``'s sweep runs: the heartbeat learns that a sweep ended from
    Temporal's visibility list, which may show a terminated run as running for a moment
    (so a beat may start nothing: the next one starts it)."""
    for _ in range(20):
        await heartbeat.beat()
        if await _running(client, tenant):
            return
        await asyncio.sleep(0.5)
    raise AssertionError(f"{tenant}'s sweep never started")


async def test_one_sweep_at_a_time_and_the_due_tenants_take_turns(
    two_tenants: TwoTenants, client: Client, task_queue: str
) -> None:
    t = two_tenants
    for store, url in (
        (t.local, "https://jobs.example.com/l/1"),
        (t.acme, "https://jobs.example.com/a/1"),
    ):
        jobs.create_job(store, url)  # never checked: due now
    heartbeat = WorkerHeartbeat(client, StageContext(home=t.local_home, store=t.local))
    try:
        await heartbeat.beat()
        assert await _running(client, "local") and not await _running(client, ACME)

        await heartbeat.beat()  # local's still runs: acme waits, though due
        assert not await _running(client, ACME)

        await _end(client, "local")
        await _beats_until_running(heartbeat, client, ACME)  # acme's turn, local still due
        assert not await _running(client, "local")

        await _end(client, ACME)
        await _beats_until_running(heartbeat, client, "local")  # and back to local
        assert not await _running(client, ACME)
    finally:
        await heartbeat.step_down()
        for tenant in ("local", ACME):
            await _end(client, tenant)
