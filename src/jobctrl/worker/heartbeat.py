"""The worker's heartbeat: every `worker.heartbeat_seconds` it brings observed state in
line with desired state, so a settings change takes effect without a restart.

- The discovery schedule (`jobctrl-discovery-local`): desired state is the
  `discovery.schedule_*` settings; observed state is what Temporal describes. The
  schedule is created, updated or deleted while the two differ
  (``workflows.starts.reconcile_schedule``).
- Saved posting checks: a bounded availability sweep of due jobs.
- Budget recovery: jobs stopped by a spent budget resume after the UTC day rolls over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from temporalio.client import Client

from jobctrl.stages import availability
from jobctrl.stages.context import StageContext
from jobctrl.worker.recovery import resume_budget_stopped
from jobctrl.workflows.starts import reconcile_schedule

log = logging.getLogger(__name__)


class WorkerHeartbeat:
    def __init__(self, client: Client, ctx: StageContext) -> None:
        self.client = client
        self.ctx = ctx
        self.beats = 0

    async def beat(self) -> None:
        values = await asyncio.to_thread(self.ctx.settings.all)
        try:
            done = await reconcile_schedule(self.client, values)
            if done not in ("unchanged", "absent"):
                log.warning("discovery schedule %s", done)
        except Exception:
            log.exception("could not reconcile the discovery schedule")
        try:
            # The sweep itself does nothing while availability.enabled is off.
            limit = int(values["availability.batch_size"])
            await asyncio.to_thread(availability.sweep, self.ctx, limit=limit)
        except Exception:
            log.exception("availability sweep failed")
        try:
            await resume_budget_stopped(self.client, self.ctx)
        except Exception:
            log.exception("could not resume budget-stopped jobs")
        self.beats += 1

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.beat()
            interval = float(
                await asyncio.to_thread(self.ctx.settings.get, "worker.heartbeat_seconds")
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
