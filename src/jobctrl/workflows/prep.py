"""JobPreparationWorkflow: Enrich, Score, then (for a job at or above min_fit_score)
Tailor, Cover and PDF, for one job.

The workflow holds ids and artifact references only; the activities do the I/O. Whatever
happens, a finalize step settles this run's stage rows and records the outcome, so no
stage stays "running" after the workflow closes.

It runs outside Temporal's sandbox (``sandboxed=False``): the sandbox re-imports this
module for every run and passes each activation and payload through code it compiles
anew, about a quarter of the worker's CPU for a prepared job. What the sandbox would
catch is kept out by hand instead, and tests/unit/test_prep_workflow_module.py checks
it: the module imports only Temporal's workflow API, the standard library's asyncio,
builtins and timedelta, and the light modules passed through below (no database, fetch,
clock or randomness), and keeps no state between runs.
"""

from __future__ import annotations

import asyncio
import builtins
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    TimeoutError,
    is_cancelled_exception,
)

with workflow.unsafe.imports_passed_through():
    import jobctrl.workflows.activity_defs as act
    from jobctrl.domain.errors import CANCELED, STAGE_ERROR, STAGE_TIMEOUT
    from jobctrl.domain.executions import Outcome
    from jobctrl.workflows.models import FinalizeInput, PrepInput, PrepResult, StageInput

ENRICH_TIMEOUT = timedelta(minutes=3)
SCORE_TIMEOUT = timedelta(minutes=10)
FINALIZE_TIMEOUT = timedelta(seconds=60)
MATERIALS_PATCH = "materials-v1"
CANCEL_PATCH = "cooperative-cancel-v1"
# A stage refused because the person cancelled the job, before Temporal's cancel request
# reached the run: it waits this long for that request (the heartbeat re-issues it).
CANCEL_WAIT = timedelta(minutes=10)


def canceled(error: BaseException) -> bool:
    """A cancel of this run (Temporal's request), or a stage refused because the person
    cancelled the job (``canceled``)."""
    if is_cancelled_exception(error):
        return True
    return isinstance(error, ActivityError) and error_code(error) == CANCELED


def error_code(error: ActivityError) -> str:
    """The stable code an activity failed with (its ApplicationError type)."""
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type:
        return cause.type
    if isinstance(cause, TimeoutError):
        return STAGE_TIMEOUT
    return STAGE_ERROR


@workflow.defn(name="JobPreparationWorkflow", sandboxed=False)
class JobPreparationWorkflow:
    @workflow.run
    async def run(self, inp: PrepInput) -> PrepResult:
        retry = inp.retry.policy()
        heartbeat = inp.retry.heartbeat_timeout
        stage_input = StageInput(
            inp.job_id, inp.profile_version, inp.materials, inp.tenant_id, inp.paid_score
        )
        try:
            await workflow.execute_activity(
                act.enrich,
                stage_input,
                start_to_close_timeout=ENRICH_TIMEOUT,
                heartbeat_timeout=heartbeat,
                retry_policy=retry,
            )
            scored = await workflow.execute_activity(
                act.score,
                stage_input,
                start_to_close_timeout=SCORE_TIMEOUT,
                heartbeat_timeout=heartbeat,
                retry_policy=retry,
            )
            # A new execution records no materials-v1 patch marker (it came with a
            # TemporalChangeVersion search-attribute upsert: a visibility write on the
            # server for every job); its input says whether materials run. A replay asks
            # for the patch, which matches the marker of an execution recorded while it
            # was patched: those ran materials even when their input, admitted before
            # materials existed, has no ``materials`` field (read as False).
            marked = workflow.unsafe.is_replaying() and workflow.patched(MATERIALS_PATCH)
            if not scored.below_threshold and (inp.materials or marked):
                for step in (act.tailor, act.cover, act.render_pdf):
                    await workflow.execute_activity(
                        step,
                        stage_input,
                        start_to_close_timeout=SCORE_TIMEOUT,
                        heartbeat_timeout=heartbeat,
                        retry_policy=retry,
                    )
        except (ActivityError, asyncio.CancelledError) as error:
            # Executions recorded before cooperative cancel replay their old commands.
            if canceled(error) and workflow.patched(CANCEL_PATCH):
                await self._finalize(inp, CANCELED, None)  # WorkflowCanceled; results kept
                if not is_cancelled_exception(error):
                    # Refused by the job's cancel: Temporal's request is on its way.
                    try:
                        await workflow.wait_condition(lambda: False, timeout=CANCEL_WAIT)
                    except builtins.TimeoutError:
                        raise ApplicationError(
                            f"preparation of job {inp.job_id} was cancelled",
                            type=CANCELED,
                            non_retryable=True,
                        ) from None
                raise
            if not isinstance(error, ActivityError):
                raise
            code = error_code(error)
            await self._finalize(inp, Outcome.FAILED, code)
            raise ApplicationError(
                f"preparation of job {inp.job_id} failed: {code}", type=code, non_retryable=True
            ) from None
        outcome = Outcome.SKIPPED if scored.below_threshold else Outcome.PREPARED
        await self._finalize(inp, outcome, None)
        return PrepResult(inp.job_id, outcome, scored.score)

    async def _finalize(self, inp: PrepInput, outcome: str, code: str | None) -> None:
        info = workflow.info()
        await workflow.execute_local_activity(
            act.finalize_preparation,
            FinalizeInput(inp.job_id, info.workflow_id, info.run_id, outcome, code, inp.tenant_id),
            start_to_close_timeout=FINALIZE_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=10, maximum_interval=timedelta(seconds=10)),
        )
