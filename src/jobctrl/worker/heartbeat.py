"""The worker's heartbeat: every `worker.heartbeat_seconds` it brings observed state in
line with desired state, so a settings change takes effect without a restart.

- The discovery schedule (`jobctrl-discovery-local`): desired state is the
  `discovery.schedule_*` settings; observed state is what Temporal describes. The
  schedule is created, updated or deleted while the two differ
  (``workflows.starts.reconcile_schedule``).
- Saved posting checks: when some are due, a bounded sweep runs as its own workflow
  (`availability-sweep-local`, one at a time), whose activity heartbeats per check.
- Start intents: preparations a command recorded but did not start are started.
- Budget recovery: jobs stopped by a spent budget resume after the UTC day rolls over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from temporalio.client import Client

from jobctrl.domain.errors import JobctrlError
from jobctrl.stages.context import StageContext
from jobctrl.store import availability as evidence
from jobctrl.worker.recovery import resume_budget_stopped, start_intended
from jobctrl.workflows.models import SweepInput
from jobctrl.workflows.starts import reconcile_schedule, start_availability_sweep

log = logging.getLogger(__name__)
SWEEP_BUDGET_SECONDS = 20 * 60  # a sweep starts no new check after this (spec: 20 min)


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
            await self._availability(values)
        except Exception:
            log.exception("could not start an availability sweep")
        try:
            await start_intended(self.client, self.ctx)
        except JobctrlError as exc:  # e.g. a broken config.yaml: said once per beat
            log.warning("could not start intended preparations: %s", exc.message)
        except Exception:
            log.exception("could not start intended preparations")
        try:
            await resume_budget_stopped(self.client, self.ctx)
        except Exception:
            log.exception("could not resume budget-stopped jobs")
        self.beats += 1

    async def _availability(self, values: dict[str, Any]) -> None:
        """Start a sweep (its own workflow and activity) when checks are due."""
        if not values["availability.enabled"]:
            return
        due = await asyncio.to_thread(evidence.due_jobs, self.ctx.store, self.ctx.now(), 1)
        if due:
            await start_availability_sweep(
                self.client,
                SweepInput(
                    limit=int(values["availability.batch_size"]),
                    budget_seconds=SWEEP_BUDGET_SECONDS,
                    heartbeat_timeout_seconds=float(values["worker.heartbeat_timeout_seconds"]),
                ),
            )

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.beat()
            interval = float(
                await asyncio.to_thread(self.ctx.settings.get, "worker.heartbeat_seconds")
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
