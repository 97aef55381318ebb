"""The baseline for bench/prep_vs_bare.py: a workflow of the same shape as a full
JobPreparationWorkflow (Enrich, Score, Tailor, Cover and PDF as five activities with the
same options, then a local finalize activity) whose activities do nothing. Its rate is the
engine's own ceiling for a five-stage preparation here."""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from jobctrl.workflows.models import PrepInput, StageInput

STEPS = ("bare5_enrich", "bare5_score", "bare5_tailor", "bare5_cover", "bare5_pdf")


def _step(name: str):  # type: ignore[no-untyped-def]
    @activity.defn(name=name)
    def step(inp: StageInput) -> str:
        return inp.job_id

    return step


@activity.defn(name="bare5_finalize")
def bare5_finalize(inp: StageInput) -> None:
    return None


@workflow.defn(name="Bare5Workflow")
class Bare5Workflow:
    @workflow.run
    async def run(self, inp: PrepInput) -> str:
        retry = RetryPolicy(maximum_attempts=inp.retry.max_attempts)
        heartbeat = timedelta(seconds=inp.retry.heartbeat_timeout_seconds)
        for name in STEPS:
            await workflow.execute_activity(
                name,
                StageInput(inp.job_id),
                start_to_close_timeout=timedelta(minutes=3),
                heartbeat_timeout=heartbeat,
                retry_policy=retry,
            )
        await workflow.execute_local_activity(
            "bare5_finalize", StageInput(inp.job_id), start_to_close_timeout=timedelta(seconds=60)
        )
        return inp.job_id


ACTIVITIES = [*(_step(name) for name in STEPS), bare5_finalize]
