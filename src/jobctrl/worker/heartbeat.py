"""The worker's heartbeat: every `worker.heartbeat_seconds` it brings observed state in
line with desired state, so a settings change takes effect without a restart.

- The discovery schedule (`jobctrl-discovery-local`): desired state is the
  `discovery.schedule_*` settings; observed state is what Temporal describes. The
  schedule is created, updated or deleted while the two differ.
- Saved posting checks: a bounded availability sweep of due jobs.
- Budget recovery: jobs stopped by a spent budget resume after the UTC day rolls over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleState,
    ScheduleUpdate,
    ScheduleUpdateInput,
)
from temporalio.service import RPCError, RPCStatusCode

from jobctrl.stages.context import StageContext
from jobctrl.store.settings import Settings
from jobctrl.worker.connection import default_task_queue
from jobctrl.worker.recovery import resume_budget_stopped
from jobctrl.workflows.discover import DISCOVER_WORKFLOW_ID, DiscoverWorkflow
from jobctrl.workflows.models import DiscoverInput

log = logging.getLogger(__name__)
SCHEDULE_ID = "jobctrl-discovery-local"


def _schedule(cron: str, inp: DiscoverInput) -> Schedule:
    return Schedule(
        action=ScheduleActionStartWorkflow(
            DiscoverWorkflow.run, inp, id=DISCOVER_WORKFLOW_ID, task_queue=default_task_queue()
        ),
        spec=ScheduleSpec(cron_expressions=[cron]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        # The note records the desired cron as applied: Temporal describes a cron spec back
        # as calendar entries, which cannot be compared with the setting directly.
        state=ScheduleState(note=f"cron={cron}"),
    )


async def reconcile_schedule(client: Client, settings: Settings) -> str:
    """Make the schedule match the settings; returns what was done."""
    from jobctrl.services import retry_settings

    values = settings.all()
    enabled, cron = bool(values["discovery.schedule_enabled"]), values["discovery.schedule_cron"]
    handle = client.get_schedule_handle(SCHEDULE_ID)
    try:
        observed = await handle.describe()
    except RPCError as exc:
        if exc.status != RPCStatusCode.NOT_FOUND:
            raise
        observed = None
    if not enabled:
        if observed is None:
            return "absent"
        await handle.delete()
        return "deleted"
    desired = _schedule(cron, DiscoverInput("local", retry_settings(settings)))
    if observed is None:
        await client.create_schedule(SCHEDULE_ID, desired)
        return "created"
    if observed.schedule.state.note == desired.state.note:
        return "unchanged"

    def update(_: ScheduleUpdateInput) -> ScheduleUpdate:
        return ScheduleUpdate(schedule=desired)

    await handle.update(update)
    return "updated"


class WorkerHeartbeat:
    def __init__(self, client: Client, ctx: StageContext) -> None:
        self.client = client
        self.ctx = ctx
        self.beats = 0

    async def beat(self) -> None:
        settings = self.ctx.settings
        try:
            done = await reconcile_schedule(self.client, settings)
            if done not in ("unchanged", "absent"):
                log.warning("discovery schedule %s", done)
        except Exception:
            log.exception("could not reconcile the discovery schedule")
        await self._availability(settings)
        try:
            await resume_budget_stopped(self.client, self.ctx)
        except Exception:
            log.exception("could not resume budget-stopped jobs")
        self.beats += 1

    async def _availability(self, settings: Settings) -> None:
        from jobctrl.stages import availability

        try:
            # The sweep itself does nothing while availability.enabled is off.
            limit = int(settings.get("availability.batch_size"))
            await asyncio.to_thread(availability.sweep, self.ctx, limit=limit)
        except Exception:
            log.exception("availability sweep failed")

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.beat()
            interval = float(self.ctx.settings.get("worker.heartbeat_seconds"))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
