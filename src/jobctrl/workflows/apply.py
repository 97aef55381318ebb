"""ApplyWorkflow: prepare applications, never send or submit them.

One-shot (``apply-[<tenant>-]{jobId}-<12 hex>``): claim the job, prepare its application (an email
draft waiting for the person's exact approval, or a form waiting for them to prefill and
submit), record the outcome. The standing loop (``apply-auto-<tenant>``, started and
cancelled by the worker's heartbeat as ``auto_apply`` says): poll — claim up to
``apply_concurrency`` approved jobs and prepare them at once — and when a poll finds
nothing, sleep ``apply_poll_seconds``; after ``polls_per_run`` polls it continues as new,
so its history stays bounded.

Every claim runs the spend preflight on lane ``apply`` first: a spent budget fails the run
with ``budget_exceeded`` (the heartbeat does not restart it while today's budget is
spent). A job that fails to prepare is recorded on its application and the loop goes on
with the others. Cancellation is cooperative: the run's live claims are released and it
is recorded as canceled. The history holds ids and codes only.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

with workflow.unsafe.imports_passed_through():
    from jobctrl.domain.apply_loop import ApplyRunStatus
    from jobctrl.workflows import activity_defs as act
    from jobctrl.workflows.models import (
        ApplyClaimInput,
        ApplyClaimResult,
        ApplyFinishInput,
        ApplyPrepareInput,
        ApplyResult,
        ApplyWorkflowInput,
        ClaimRef,
    )
    from jobctrl.workflows.prep import error_code

CLAIM_TIMEOUT = timedelta(minutes=2)
PREPARE_TIMEOUT = timedelta(minutes=3)  # well inside a claim's 10-minute lease
FINISH_TIMEOUT = timedelta(seconds=60)
MIN_POLL_SECONDS, MAX_POLL_SECONDS = 0.1, 3600.0


@workflow.defn(name="ApplyWorkflow")
class ApplyWorkflow:
    @workflow.run
    async def run(self, inp: ApplyWorkflowInput) -> ApplyResult:
        info = workflow.info()
        counts = dict(inp.counts)
        polls = 0
        outcome: str | None = None
        try:
            while True:
                claimed = await workflow.execute_activity(
                    act.apply_claim,
                    ApplyClaimInput(
                        info.workflow_id,
                        info.run_id,
                        inp.job_id,
                        first=polls == 0,
                        tenant_id=inp.tenant_id,
                    ),
                    start_to_close_timeout=CLAIM_TIMEOUT,
                    retry_policy=inp.retry.policy(),
                )
                polls += 1
                if not inp.continuous:
                    outcome = await self._once(claimed, counts, inp)
                    break
                await self._prepare_all(claimed.claims, counts, inp)
                if polls >= inp.polls_per_run or info.is_continue_as_new_suggested():
                    await self._finish(inp, ApplyRunStatus.CONTINUED, "continued", None)
                    workflow.continue_as_new(replace(inp, counts=counts))
                if not claimed.claims:
                    await workflow.sleep(_pause(claimed))
        except (asyncio.CancelledError, CancelledError):
            await self._finish(inp, ApplyRunStatus.CANCELED, None, None)
            raise
        except ActivityError as error:
            if isinstance(error.cause, CancelledError):
                await self._finish(inp, ApplyRunStatus.CANCELED, None, None)
                raise asyncio.CancelledError() from None
            code = error_code(error)
            await self._finish(inp, ApplyRunStatus.FAILED, None, code)
            raise ApplicationError(f"apply failed: {code}", type=code, non_retryable=True) from None
        except ApplicationError as error:  # a named job refused at its claim
            code = error.type or "apply_refused"
            await self._finish(inp, ApplyRunStatus.FAILED, None, code)
            raise
        await self._finish(inp, ApplyRunStatus.COMPLETED, outcome, None)
        return ApplyResult(ApplyRunStatus.COMPLETED, None, counts)

    async def _once(
        self, claimed: ApplyClaimResult, counts: dict[str, int], inp: ApplyWorkflowInput
    ) -> str:
        """The one-shot's claim: refused (the run fails with the code), prepared already
        (nothing to do), or prepared now (the application's status, or its failure)."""
        if claimed.refused:
            raise ApplicationError(
                f"apply refused: {claimed.refused}", type=claimed.refused, non_retryable=True
            )
        if claimed.already:
            counts["already"] = counts.get("already", 0) + 1
            return "already"
        results = await self._prepare_all(claimed.claims, counts, inp)
        failed = [code for code in results if code]
        if failed:
            raise ApplicationError(f"apply failed: {failed[0]}", type=failed[0], non_retryable=True)
        return "prepared"

    async def _prepare_all(
        self, claims: list[ClaimRef], counts: dict[str, int], inp: ApplyWorkflowInput
    ) -> list[str | None]:
        """Prepare the claimed jobs at once; each one's error code (None: prepared). One
        job's failure leaves the others' results as they are."""

        async def one(ref: ClaimRef) -> str | None:
            code: str | None
            try:
                result = await workflow.execute_activity(
                    act.apply_prepare,
                    ApplyPrepareInput(ref.claim_id, ref.job_id, inp.tenant_id),
                    start_to_close_timeout=PREPARE_TIMEOUT,
                    retry_policy=inp.retry.policy(),
                )
            except ActivityError as error:
                if isinstance(error.cause, CancelledError):
                    raise
                code = error_code(error)
            else:
                code = result.error_code
            key = "prepared" if code is None else "failed"
            counts[key] = counts.get(key, 0) + 1
            return code

        return list(await asyncio.gather(*(one(ref) for ref in claims)))

    async def _finish(
        self, inp: ApplyWorkflowInput, status: str, outcome: str | None, code: str | None
    ) -> None:
        info = workflow.info()
        # Shielded: the run's end is recorded (and its claims let go) even while it is
        # being cancelled.
        await asyncio.shield(
            asyncio.ensure_future(
                workflow.execute_activity(
                    act.apply_finish,
                    ApplyFinishInput(
                        info.workflow_id,
                        info.run_id,
                        inp.job_id,
                        status,
                        outcome,
                        code,
                        inp.tenant_id,
                    ),
                    start_to_close_timeout=FINISH_TIMEOUT,
                    retry_policy=RetryPolicy(maximum_attempts=10),
                )
            )
        )


def _pause(claimed: ApplyClaimResult) -> timedelta:
    seconds = min(MAX_POLL_SECONDS, max(MIN_POLL_SECONDS, claimed.poll_seconds))
    return timedelta(seconds=seconds)
