"""Activities of DiscoverWorkflow: thin adapters from Temporal to ``stages.discover``.

The family and the enrichment pass start new jobs' preparations, which needs the Temporal
client: they are async activities on the worker's own event loop, and the blocking work
(reading sources, the store) runs in threads. Starts go through ``workflows.starts``
with the settings read once per batch, several at a time, and the batch is recorded in
one transaction.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import activity
from temporalio.client import Client

from jobctrl.domain.discovery import DiscoverFinish, DiscoveryPlan, ExecutionRef, StepKind
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.executions import WorkflowType
from jobctrl.stages import discover
from jobctrl.stages.context import StageContext
from jobctrl.store import discovery as runs
from jobctrl.store import stage_control, workflow_runs
from jobctrl.workflows import activity_defs as act
from jobctrl.workflows import starts
from jobctrl.workflows.activities import (
    as_application_error,
    cooperative,
    heartbeat_from_threads,
)
from jobctrl.workflows.models import FamilyInput, StepResult

T = TypeVar("T")
log = logging.getLogger(__name__)
STARTS_AT_ONCE = 16  # concurrent start requests to the Temporal server


def _application_error(error: JobctrlError) -> Exception:
    info = activity.info()
    log.warning("%s: %s (attempt %d)", info.activity_type, error.code, info.attempt)
    return as_application_error(error)


class DiscoveryActivities:
    def __init__(self, ctx: StageContext, client: Client) -> None:
        self.ctx = ctx
        self.client = client

    def _for(self, ref: ExecutionRef) -> StageContext:
        """The context of the tenant whose execution ``ref`` is."""
        return self.ctx.for_tenant(ref.tenant_id)

    def _run(self, work: Callable[[], T]) -> T:
        try:
            return work()
        except JobctrlError as error:  # a source's code, or config.yaml's
            raise _application_error(error) from None

    async def _run_async(self, work: Callable[[], Awaitable[T]]) -> T:
        try:
            return await work()
        except JobctrlError as error:
            raise _application_error(error) from None

    async def start_preparations(self, ref: ExecutionRef) -> dict[str, int]:
        """Start (or find) the preparation of every member still waiting for one.

        The starts run several at a time; every one that succeeded is recorded (with the
        members already started) before the first failure, if any, is raised: a retry
        then finds the rest still pending and never starts a second execution.
        """
        ctx = self._for(ref)
        if not await asyncio.to_thread(ctx.settings.get, "discovery.prepare_jobs"):
            return {}
        if await self._stop_reason(ref) is not None:
            return {}  # the person stopped this run: it starts nothing more
        members = await asyncio.to_thread(runs.pending_members, ctx.store, ref)
        new = [(job_id, key) for job_id, key, existing in members if existing is None]
        planned = {job_id: existing for job_id, _, existing in members if existing is not None}
        started: dict[str, starts.Started] = {}
        failures: list[BaseException] = []
        if new:
            defaults = await asyncio.to_thread(starts.prep_defaults, ctx.home, ctx.store)
            gate = asyncio.Semaphore(STARTS_AT_ONCE)

            async def start(job_id: str, key: str) -> None:
                async with gate:
                    started[job_id] = await starts.start_preparation_execution(
                        self.client, job_id, key, defaults
                    )

            results = await asyncio.gather(
                *(start(job_id, key) for job_id, key in new), return_exceptions=True
            )
            failures = [r for r in results if isinstance(r, BaseException)]
        if started or planned:
            await asyncio.to_thread(self._record, ref, started, planned)
        if started and await self._stop_reason(ref) == stage_control.DISCOVERY_STOP_PREPARATIONS:
            await self._cancel_started(ref, started)
        if failures:
            raise failures[0]
        return {"preparations_started": len(started)}

    async def _stop_reason(self, ref: ExecutionRef) -> str | None:
        store = self._for(ref).store
        return await asyncio.to_thread(
            stage_control.stop_reason, store, ref.workflow_id, ref.run_id
        )

    async def _cancel_started(self, ref: ExecutionRef, started: dict[str, starts.Started]) -> None:
        """A stop with the preparations came while this batch was being started: the
        command cancelled those it could list; these it may have missed, so cancel them
        here as it does (their stop requests recorded, stages canceled, then Temporal)."""
        store = self._for(ref).store

        def settle() -> None:
            for job_id, execution in started.items():
                stage_control.cancel_job(store, job_id, [(execution.workflow_id, execution.run_id)])

        await asyncio.to_thread(settle)
        await starts.cancel_runs(self.client, [(e.workflow_id, e.run_id) for e in started.values()])

    def _record(
        self, ref: ExecutionRef, started: dict[str, starts.Started], planned: dict[str, str]
    ) -> None:
        """The batch's WorkflowStarted events and every member marked planned, at once."""
        ctx = self._for(ref)
        with ctx.store.write(clock=ctx.clock) as tx:
            for job_id, execution in started.items():
                workflow_runs.record_started(
                    tx,
                    workflow_id=execution.workflow_id,
                    run_id=execution.run_id,
                    workflow_type=WorkflowType.PREPARATION.value,
                    job_id=job_id,
                )
                runs.mark_planned(tx, ref, job_id, execution.workflow_id)
            for job_id, workflow_id in planned.items():
                runs.mark_planned(tx, ref, job_id, workflow_id)

    @activity.defn(name=act.DISCOVERY_PLAN)
    @cooperative
    def plan(self, ref: ExecutionRef) -> DiscoveryPlan:
        return self._run(lambda: discover.plan(self._for(ref), ref, activity.info().attempt))

    @activity.defn(name=act.DISCOVERY_FAMILY)
    async def family(self, inp: FamilyInput) -> StepResult:
        heartbeat_from_threads()
        counts = await self._run_async(
            lambda: discover.run_family(
                self._for(inp.ref),
                inp.ref,
                inp.family,
                inp.index,
                activity.info().attempt,
                self.start_preparations,
            )
        )
        return StepResult(counts)

    @activity.defn(name=act.DISCOVERY_ENRICHMENT_PASS)
    async def enrichment_pass(self, ref: ExecutionRef) -> StepResult:
        """Terminal pass: every member this run linked has its preparation started."""
        heartbeat_from_threads()
        attempt = activity.info().attempt

        async def work() -> dict[str, int]:
            counts = await self.start_preparations(ref)
            await asyncio.to_thread(
                discover.terminal_step,
                self._for(ref),
                ref,
                StepKind.ENRICHMENT_PASS,
                attempt,
                counts,
                last=False,
            )
            return counts

        return StepResult(await self._run_async(work))

    @activity.defn(name=act.DISCOVERY_PREPARATION_FANOUT)
    @cooperative
    def preparation_fanout(self, ref: ExecutionRef) -> StepResult:
        """Close membership: the run's jobs and their preparations are all accounted for."""
        self._run(lambda: discover.close_membership(self._for(ref), ref, activity.info().attempt))
        return StepResult({})

    @activity.defn(name=act.DISCOVERY_BACKLOG_SWEEP)
    async def backlog_sweep(self, ref: ExecutionRef) -> StepResult:
        """Re-admit stale pending work nothing owns (``existing_backlog``) and start each
        swept job's preparation under its own deterministic id: a retried attempt starts
        the members an earlier one linked, joining what it already started."""
        heartbeat_from_threads()
        attempt = activity.info().attempt
        ctx = self._for(ref)

        async def work() -> dict[str, int]:
            swept = await asyncio.to_thread(discover.begin_sweep, ctx, ref, attempt)
            started: dict[str, starts.Started] = {}
            failures: list[BaseException] = []
            if swept:
                defaults = await asyncio.to_thread(starts.prep_defaults, ctx.home, ctx.store)
                gate = asyncio.Semaphore(STARTS_AT_ONCE)

                async def start(job_id: str, key: str, workflow_id: str) -> None:
                    async with gate:
                        started[job_id] = await starts.start_preparation_execution(
                            self.client, job_id, key, defaults, workflow_id=workflow_id
                        )
                    activity.heartbeat()  # a hundred starts on a slow server stay alive

                results = await asyncio.gather(
                    *(start(s.job_id, s.idempotency_key, s.workflow_id) for s in swept),
                    return_exceptions=True,
                )
                failures = [r for r in results if isinstance(r, BaseException)]
            if started:
                await asyncio.to_thread(self._record, ref, started, {})
            if failures:
                raise failures[0]
            return await asyncio.to_thread(discover.end_sweep, ctx, ref, attempt, len(started))

        try:
            return StepResult(await self._run_async(work))
        except Exception as error:
            code = getattr(error, "type", None) or type(error).__name__
            await asyncio.to_thread(discover.sweep_failed, ctx, ref, attempt, str(code))
            raise

    @activity.defn(name=act.DISCOVERY_FINISH)
    @cooperative
    def finish(self, fin: DiscoverFinish) -> None:
        discover.finish(self._for(fin.ref), fin)

    def all(self) -> list[Callable[..., object]]:
        return [
            self.plan,
            self.family,
            self.enrichment_pass,
            self.preparation_fanout,
            self.backlog_sweep,
            self.finish,
        ]
