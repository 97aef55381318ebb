"""JobPreparationWorkflow: Enrich, Score, then (for a job at or above min_fit_score)
Tailor, Cover and PDF, for one job.

The workflow holds ids and artifact references only; the activities do the I/O. Whatever
happens, a finalize step settles this run's stage rows and records the outcome, so no
stage stays "running" after the workflow closes.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, TimeoutError

with workflow.unsafe.imports_passed_through():
    from jobctrl.workflows.models import (
        EnrichResult,
        FinalizeInput,
        PrepInput,
        PrepResult,
        ScoreResult,
        StageInput,
    )

ENRICH_TIMEOUT = timedelta(minutes=3)
SCORE_TIMEOUT = timedelta(minutes=10)
FINALIZE_TIMEOUT = timedelta(seconds=60)
MATERIALS_PATCH = "materials-v1"


def _error_code(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type:
        return cause.type
    if isinstance(cause, TimeoutError):
        return "STAGE_TIMEOUT"
    return "STAGE_ERROR"


@workflow.defn(name="JobPreparationWorkflow")
class JobPreparationWorkflow:
    @workflow.run
    async def run(self, inp: PrepInput) -> PrepResult:
        retry = inp.retry.policy()
        heartbeat = inp.retry.heartbeat_timeout
        stage_input = StageInput(inp.job_id, inp.profile_version)
        try:
            await workflow.execute_activity(
                "enrich",
                stage_input,
                result_type=EnrichResult,
                start_to_close_timeout=ENRICH_TIMEOUT,
                heartbeat_timeout=heartbeat,
                retry_policy=retry,
            )
            scored = await workflow.execute_activity(
                "score",
                stage_input,
                result_type=ScoreResult,
                start_to_close_timeout=SCORE_TIMEOUT,
                heartbeat_timeout=heartbeat,
                retry_policy=retry,
            )
            # Executions recorded before materials existed replay without these steps.
            if inp.materials and not scored.below_threshold and workflow.patched(MATERIALS_PATCH):
                for name in ("tailor", "cover", "render_pdf"):
                    await workflow.execute_activity(
                        name,
                        stage_input,
                        result_type=int,
                        start_to_close_timeout=SCORE_TIMEOUT,
                        heartbeat_timeout=heartbeat,
                        retry_policy=retry,
                    )
        except ActivityError as error:
            code = _error_code(error)
            await self._finalize(inp, "failed", code)
            raise ApplicationError(
                f"preparation of job {inp.job_id} failed: {code}", type=code, non_retryable=True
            ) from None
        outcome = "skipped" if scored.below_threshold else "prepared"
        await self._finalize(inp, outcome, None)
        return PrepResult(inp.job_id, outcome, scored.score)

    async def _finalize(self, inp: PrepInput, outcome: str, error_code: str | None) -> None:
        info = workflow.info()
        await workflow.execute_local_activity(
            "finalize_preparation",
            FinalizeInput(inp.job_id, info.workflow_id, info.run_id, outcome, error_code),
            start_to_close_timeout=FINALIZE_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=10, maximum_interval=timedelta(seconds=10)),
        )
