"""Activities of DiscoverWorkflow: thin adapters from Temporal to ``stages.discover``.

Starting a job's preparation needs the Temporal client, which lives on the worker's event
loop; these activities run in worker threads and hand the start to that loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TypeVar

from temporalio import activity
from temporalio.client import Client

from jobctrl import services
from jobctrl.domain.errors import StageError
from jobctrl.stages import discover
from jobctrl.stages.context import StageContext
from jobctrl.workflows.activities import _as_application_error
from jobctrl.workflows.models import (
    DiscoverFinish,
    DiscoveryPlan,
    ExecutionRef,
    FamilyInput,
    StepResult,
)

T = TypeVar("T")
log = logging.getLogger(__name__)
START_TIMEOUT = 60.0


class DiscoveryActivities:
    def __init__(self, ctx: StageContext, client: Client, loop: asyncio.AbstractEventLoop):
        self.ctx = ctx
        self.client = client
        self.loop = loop

    def _run(self, work: Callable[[], T]) -> T:
        try:
            return work()
        except StageError as error:
            info = activity.info()
            log.warning("%s: %s (attempt %d)", info.activity_type, error.code, info.attempt)
            raise _as_application_error(error) from None

    def start_preparations(self, ref: ExecutionRef) -> dict[str, int]:
        """Start (or find) the preparation of every member still waiting for one."""
        if not self.ctx.settings.get("discovery.prepare_jobs"):
            return {}
        started = 0
        for job_id, key, existing in discover.pending_members(self.ctx, ref):
            if existing is None:
                future = asyncio.run_coroutine_threadsafe(
                    services.start_preparation(
                        self.client, self.ctx.home, self.ctx.store, job_id, key
                    ),
                    self.loop,
                )
                existing, _ = future.result(START_TIMEOUT)
                started += 1
            discover.mark_planned(self.ctx, ref, job_id, existing)
        return {"preparations_started": started}

    @activity.defn(name="discovery_plan")
    def plan(self, ref: ExecutionRef) -> DiscoveryPlan:
        return self._run(lambda: discover.plan(self.ctx, ref, activity.info().attempt))

    @activity.defn(name="discovery_family")
    def family(self, inp: FamilyInput) -> StepResult:
        counts = self._run(
            lambda: discover.run_family(
                self.ctx,
                inp.ref,
                inp.family,
                inp.index,
                activity.info().attempt,
                self.start_preparations,
            )
        )
        return StepResult(counts)

    @activity.defn(name="discovery_enrichment_pass")
    def enrichment_pass(self, ref: ExecutionRef) -> StepResult:
        """Terminal pass: every member this run linked has its preparation started."""

        def work() -> dict[str, int]:
            counts = self.start_preparations(ref)
            total = discover.progress_total(self.ctx, ref)
            discover.terminal_step(
                self.ctx, ref, "enrichment_pass", total - 1, activity.info().attempt, counts
            )
            return counts

        return StepResult(self._run(work))

    @activity.defn(name="discovery_preparation_fanout")
    def preparation_fanout(self, ref: ExecutionRef) -> StepResult:
        """Close membership: the run's jobs and their preparations are all accounted for."""

        def work() -> dict[str, int]:
            counts = {
                "members": discover.member_count(self.ctx, ref),
                "jobs_created": discover.jobs_created_by(self.ctx, ref),
            }
            total = discover.progress_total(self.ctx, ref)
            discover.terminal_step(
                self.ctx, ref, "preparation_fanout", total, activity.info().attempt, counts
            )
            return {}

        return StepResult(self._run(work))

    @activity.defn(name="discovery_finish")
    def finish(self, fin: DiscoverFinish) -> None:
        discover.finish(self.ctx, fin)

    def all(self) -> list[Callable[..., object]]:
        return [
            self.plan,
            self.family,
            self.enrichment_pass,
            self.preparation_fanout,
            self.finish,
        ]
