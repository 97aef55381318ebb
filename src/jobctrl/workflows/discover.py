"""DiscoverWorkflow (`discover-local`): plan the source families, read each family, then a
terminal enrichment pass and a preparation fan-out close the run's membership, and the
existing-backlog sweep re-admits stale pending work nothing owns (its own cohort).

The workflow reads its identity once and passes that execution reference to every step.
A family that still fails after its retries leaves the others' results saved: the run
ends partial and fails with that source's error code. Cancellation is cooperative:
accepted results stay and the run is recorded as canceled.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

with workflow.unsafe.imports_passed_through():
    from jobctrl.domain.discovery import DiscoverFinish, ExecutionRef, RunStatus
    from jobctrl.workflows import activity_defs as act
    from jobctrl.workflows.models import DiscoverInput, DiscoverResult, FamilyInput
    from jobctrl.workflows.prep import error_code

FAMILY_TIMEOUT = timedelta(minutes=30)
STEP_TIMEOUT = timedelta(minutes=10)
# Executions recorded before the existing-backlog sweep replay without it.
BACKLOG_SWEEP_PATCH = "existing-backlog-sweep-v1"


@workflow.defn(name="DiscoverWorkflow")
class DiscoverWorkflow:
    @workflow.run
    async def run(self, inp: DiscoverInput) -> DiscoverResult:
        info = workflow.info()
        ref = ExecutionRef(inp.tenant_id, info.workflow_id, info.run_id)
        retry = inp.retry.policy()
        heartbeat = inp.retry.heartbeat_timeout
        counts: dict[str, int] = {}
        failure: str | None = None
        try:
            plan = await workflow.execute_activity(
                act.discovery_plan,
                ref,
                start_to_close_timeout=STEP_TIMEOUT,
                retry_policy=retry,
            )
            for index, family in enumerate(plan.families):
                try:
                    result = await workflow.execute_activity(
                        act.discovery_family,
                        FamilyInput(ref, family, index),
                        start_to_close_timeout=FAMILY_TIMEOUT,
                        heartbeat_timeout=heartbeat,
                        retry_policy=retry,
                    )
                    _merge(counts, result.counts)
                except ActivityError as error:
                    if isinstance(error.cause, CancelledError):
                        raise asyncio.CancelledError() from None
                    failure = failure or error_code(error)
                    counts["failed_families"] = counts.get("failed_families", 0) + 1
            for step in (act.discovery_enrichment_pass, act.discovery_preparation_fanout):
                result = await workflow.execute_activity(
                    step,
                    ref,
                    start_to_close_timeout=STEP_TIMEOUT,
                    retry_policy=retry,
                )
                _merge(counts, result.counts)
            if workflow.patched(BACKLOG_SWEEP_PATCH):
                try:
                    result = await workflow.execute_activity(
                        act.discovery_backlog_sweep,
                        ref,
                        start_to_close_timeout=STEP_TIMEOUT,
                        heartbeat_timeout=heartbeat,
                        retry_policy=retry,
                    )
                    _merge(counts, result.counts)
                except ActivityError as error:
                    # Like a failed family: the sources' results stand, the run is partial.
                    if isinstance(error.cause, CancelledError):
                        raise asyncio.CancelledError() from None
                    failure = failure or error_code(error)
        except asyncio.CancelledError:
            await self._finish(DiscoverFinish(ref, RunStatus.CANCELED, None, counts))
            raise
        except ActivityError as error:
            code = error_code(error)
            await self._finish(DiscoverFinish(ref, RunStatus.FAILED, code, counts))
            raise ApplicationError(
                f"discovery failed: {code}", type=code, non_retryable=True
            ) from None
        status = RunStatus.PARTIAL if failure else RunStatus.COMPLETED
        await self._finish(DiscoverFinish(ref, status, failure, counts))
        if failure:
            raise ApplicationError(
                f"discovery finished partially: {failure}", type=failure, non_retryable=True
            )
        return DiscoverResult(status, failure, counts)

    async def _finish(self, fin: DiscoverFinish) -> None:
        # Shielded so that the outcome is recorded even while the run is being canceled.
        await asyncio.shield(
            asyncio.ensure_future(
                workflow.execute_activity(
                    act.discovery_finish,
                    fin,
                    start_to_close_timeout=timedelta(seconds=60),
                    retry_policy=RetryPolicy(maximum_attempts=10),
                )
            )
        )


def _merge(into: dict[str, int], more: dict[str, int]) -> None:
    for key, value in more.items():
        into[key] = into.get(key, 0) + value
