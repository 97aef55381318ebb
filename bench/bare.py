"""The baseline for bench/prepare.py: a workflow of the same shape as
JobPreparationWorkflow (two activities with the same options, then a local finalize
activity) whose activities do nothing. Its rate is the engine's own ceiling here."""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from jobctrl.workflows.models import PrepInput, StageInput


@activity.defn(name="bare_enrich")
def bare_enrich(inp: StageInput) -> str:
    return inp.job_id


@activity.defn(name="bare_score")
def bare_score(inp: StageInput) -> str:
    return inp.job_id


@activity.defn(name="bare_finalize")
def bare_finalize(inp: StageInput) -> None:
    return None


@workflow.defn(name="BareWorkflow")
class BareWorkflow:
    @workflow.run
    async def run(self, inp: PrepInput) -> str:
        retry = RetryPolicy(maximum_attempts=inp.retry.max_attempts)
        heartbeat = timedelta(seconds=inp.retry.heartbeat_timeout_seconds)
        for name in ("bare_enrich", "bare_score"):
            await workflow.execute_activity(
                name,
                StageInput(inp.job_id),
                start_to_close_timeout=timedelta(minutes=3),
                heartbeat_timeout=heartbeat,
                retry_policy=retry,
            )
        await workflow.execute_local_activity(
            "bare_finalize", StageInput(inp.job_id), start_to_close_timeout=timedelta(seconds=60)
        )
        return inp.job_id


ACTIVITIES = [bare_enrich, bare_score, bare_finalize]
