"""ContactResearchWorkflow (``contacts-[<tenant>-]{jobId}-<12 hex>``): one research run a
person started for a job, over the sources they asked for (issue 33).

Started only by the person (`jobctrl contacts research`, the Job page): no schedule, no
automation. Claim the task (the spend preflight first when the lane is paid), read each
source in turn (each attempt recorded with its outcome, its candidates fenced on this
run), then end the task. One execution per (job, request): a repeated start joins it or
finds it closed. The history holds the task id, counts and codes only; the people stay
in the tenant's store.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

with workflow.unsafe.imports_passed_through():
    from jobctrl.workflows import activity_defs as act
    from jobctrl.workflows.models import (
        ContactClaimInput,
        ContactFinishInput,
        ContactResearchInput,
        ContactResearchResult,
        ContactSourceInput,
    )
    from jobctrl.workflows.prep import error_code

CONTACT_WORKFLOW = "ContactResearchWorkflow"
CLAIM_TIMEOUT = timedelta(minutes=1)
SOURCE_TIMEOUT = timedelta(minutes=3)  # a page's fetch, or a model's answer
FINISH_TIMEOUT = timedelta(seconds=60)


@workflow.defn(name=CONTACT_WORKFLOW)
class ContactResearchWorkflow:
    @workflow.run
    async def run(self, inp: ContactResearchInput) -> ContactResearchResult:
        info = workflow.info()
        claimed = await workflow.execute_activity(
            act.contact_research_claim,
            ContactClaimInput(inp.task_id, info.workflow_id, info.run_id, inp.tenant_id),
            start_to_close_timeout=CLAIM_TIMEOUT,
            retry_policy=inp.retry.policy(),
        )
        if claimed.done:
            return ContactResearchResult(0)
        found = 0
        try:
            for index in range(claimed.sources):
                found += await workflow.execute_activity(
                    act.contact_research_source,
                    ContactSourceInput(inp.task_id, info.run_id, index, inp.tenant_id),
                    start_to_close_timeout=SOURCE_TIMEOUT,
                    heartbeat_timeout=inp.retry.heartbeat_timeout,
                    retry_policy=inp.retry.policy(),
                )
        except (asyncio.CancelledError, CancelledError):
            await self._finish(inp, claimed.job_id, "canceled")
            raise
        except ActivityError as error:
            code = error_code(error)
            await self._finish(inp, claimed.job_id, code)
            raise ApplicationError(
                f"contact research failed: {code}", type=code, non_retryable=True
            ) from None
        await self._finish(inp, claimed.job_id, None)
        return ContactResearchResult(found)

    async def _finish(self, inp: ContactResearchInput, job_id: str, code: str | None) -> None:
        info = workflow.info()
        # Shielded: the task is ended even while the run is being cancelled.
        await asyncio.shield(
            asyncio.ensure_future(
                workflow.execute_activity(
                    act.contact_research_finish,
                    ContactFinishInput(
                        inp.task_id, info.workflow_id, info.run_id, job_id, code, inp.tenant_id
                    ),
                    start_to_close_timeout=FINISH_TIMEOUT,
                    retry_policy=RetryPolicy(maximum_attempts=10),
                )
            )
        )
