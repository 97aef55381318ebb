"""PreparationRecoveryWorkflow (``prepare-auto-<tenant>-<stage>-<24 hex>``): one stage for a
frozen cohort of at most 25 jobs, started by the worker's heartbeat (automatic recovery).

It binds the cohort to its run first, so the members' claims are recognised, then runs
the stage's normal activity (the same ``enrich``/``score``/``tailor``/``cover``/
``render_pdf`` a preparation runs) for each member, at most ``concurrency`` at a time
(its immutable share of ``pipeline_internal_concurrency``, frozen in its input), each with ONE
Temporal attempt: the job's durable state and the next heartbeats own any later attempt
(with backoff and a cap). A member whose reservation a person's cancel, retry or reset
took back is skipped (its claim answers ``OWNERSHIP_LOST``); one member's failure leaves
the others alone. A stage that succeeds leaves the job's next stage pending: a later
heartbeat selects it into a cohort of its own (one stage per execution). Whatever
happens (failure or cancel included), a finish step settles what this run still owns,
releases the members it never claimed and closes the cohort.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

with workflow.unsafe.imports_passed_through():
    from jobctrl.domain.errors import OWNERSHIP_LOST
    from jobctrl.domain.stages import Stage
    from jobctrl.workflows import activity_defs as act
    from jobctrl.workflows.models import (
        RecoveryBeginInput,
        RecoveryFinishInput,
        RecoveryInput,
        RecoveryResult,
        StageInput,
    )
    from jobctrl.workflows.prep import ENRICH_TIMEOUT, SCORE_TIMEOUT, error_code

STAGE_ACTIVITIES = {
    Stage.ENRICH.value: act.enrich,
    Stage.SCORE.value: act.score,
    Stage.TAILOR.value: act.tailor,
    Stage.COVER.value: act.cover,
    Stage.PDF.value: act.render_pdf,
}
BOOKKEEPING_TIMEOUT = timedelta(seconds=60)
ONE_ATTEMPT = RetryPolicy(maximum_attempts=1)
MAX_CONCURRENCY = 16  # pipeline_internal_concurrency's bound (inputs before it said 2)


@workflow.defn(name="PreparationRecoveryWorkflow")
class PreparationRecoveryWorkflow:
    @workflow.run
    async def run(self, inp: RecoveryInput) -> RecoveryResult:
        counts: dict[str, int] = {}
        try:
            bound = await workflow.execute_activity(
                act.recovery_begin,
                RecoveryBeginInput(
                    workflow.info().workflow_id, workflow.info().run_id, inp.tenant_id
                ),
                start_to_close_timeout=BOOKKEEPING_TIMEOUT,
                retry_policy=RetryPolicy(maximum_attempts=5),
            )
            if bound:
                gate = asyncio.Semaphore(max(1, min(MAX_CONCURRENCY, inp.concurrency)))

                async def member(job_id: str) -> None:
                    async with gate:
                        outcome = await self._member(inp, job_id)
                    counts[outcome] = counts.get(outcome, 0) + 1

                await asyncio.gather(*(member(job_id) for job_id in inp.job_ids))
        except (asyncio.CancelledError, CancelledError):
            await self._finish(inp, "canceled", None)
            raise
        except ActivityError as error:
            if isinstance(error.cause, CancelledError):
                await self._finish(inp, "canceled", None)
                raise asyncio.CancelledError() from None
            code = error_code(error)
            await self._finish(inp, "failed", code)
            raise ApplicationError(
                f"recovery {inp.stage} failed: {code}", type=code, non_retryable=True
            ) from None
        await self._finish(inp, "completed", None)
        return RecoveryResult(inp.stage, counts)

    async def _member(self, inp: RecoveryInput, job_id: str) -> str:
        """Run the stage for one member: succeeded, failed (its row says why) or released
        (its reservation was taken back before it ran)."""
        timeout = ENRICH_TIMEOUT if inp.stage == Stage.ENRICH.value else SCORE_TIMEOUT
        try:
            await workflow.execute_activity(
                STAGE_ACTIVITIES[inp.stage],
                StageInput(job_id, inp.profile_version, inp.materials, inp.tenant_id),
                start_to_close_timeout=timeout,
                heartbeat_timeout=inp.retry.heartbeat_timeout,
                retry_policy=ONE_ATTEMPT,
            )
        except ActivityError as error:
            if isinstance(error.cause, CancelledError):
                raise
            return "released" if error_code(error) == OWNERSHIP_LOST else "failed"
        return "succeeded"

    async def _finish(self, inp: RecoveryInput, status: str, code: str | None) -> None:
        info = workflow.info()
        # Shielded: the cohort is settled and closed even while the run is being cancelled.
        await asyncio.shield(
            asyncio.ensure_future(
                workflow.execute_activity(
                    act.recovery_finish,
                    RecoveryFinishInput(
                        info.workflow_id,
                        info.run_id,
                        inp.stage,
                        list(inp.job_ids),
                        status,
                        code,
                        inp.tenant_id,
                    ),
                    start_to_close_timeout=BOOKKEEPING_TIMEOUT,
                    retry_policy=RetryPolicy(
                        maximum_attempts=10, maximum_interval=timedelta(seconds=10)
                    ),
                )
            )
        )
