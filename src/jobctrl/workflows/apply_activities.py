"""The activities of ApplyWorkflow: thin adapters from Temporal to ``stages.apply_claim``.

A ``JobctrlError`` (a spent budget, a lost claim, a busy database) becomes an
``ApplicationError`` whose type is its code; anything else is logged here and crosses
into the history as ``INTERNAL_ERROR`` only, never as text.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from temporalio import activity
from temporalio.exceptions import CancelledError

from jobctrl.domain.apply_loop import ApplyRunStatus
from jobctrl.domain.errors import STAGE_INTERNAL_ERROR, JobctrlError
from jobctrl.domain.executions import WorkflowType
from jobctrl.stages import apply_claim
from jobctrl.store import apply_claims, workflow_runs
from jobctrl.workflows import activity_defs as act
from jobctrl.workflows.activities import cooperative
from jobctrl.workflows.models import (
    ApplyClaimInput,
    ApplyClaimResult,
    ApplyFinishInput,
    ApplyPrepareInput,
    ApplyPrepareResult,
    ClaimRef,
)
from jobctrl.workflows.stage_adapter import StageAdapter

log = logging.getLogger(__name__)


class ApplyActivities(StageAdapter):
    label = "apply"
    retry_unexpected = True

    @activity.defn(name=act.APPLY_CLAIM)
    @cooperative
    def claim(self, inp: ApplyClaimInput) -> ApplyClaimResult:
        ctx = self.ctx.for_tenant(inp.tenant_id)

        def work() -> apply_claim.ClaimBatch:
            if inp.first:
                workflow_runs.record_workflow_started(
                    ctx.store,
                    workflow_id=inp.workflow_id,
                    run_id=inp.run_id,
                    workflow_type=WorkflowType.APPLY.value,
                    job_id=inp.job_id,
                    clock=ctx.clock,
                )
            return apply_claim.claim_jobs(
                ctx, workflow_id=inp.workflow_id, run_id=inp.run_id, job_id=inp.job_id
            )

        batch = self._run("claim", work)
        return ApplyClaimResult(
            [ClaimRef(claim_id, job_id) for claim_id, job_id in batch.claims],
            batch.parked,
            batch.refused,
            batch.already,
            batch.poll_seconds,
        )

    @activity.defn(name=act.APPLY_PREPARE)
    @cooperative
    def prepare(self, inp: ApplyPrepareInput) -> ApplyPrepareResult:
        ctx = self.ctx.for_tenant(inp.tenant_id)

        def work() -> apply_claim.Prepared:
            try:
                return apply_claim.prepare_claimed(ctx, inp.claim_id)
            except (JobctrlError, CancelledError, asyncio.CancelledError):
                raise
            except Exception:  # a bug: this job fails with INTERNAL_ERROR, the loop goes on
                log.exception("apply: unexpected error preparing job %s", inp.job_id)
                return apply_claim.fail_claimed(ctx, inp.claim_id, STAGE_INTERNAL_ERROR)

        done = self._run(f"preparing job {inp.job_id}", work)
        return ApplyPrepareResult(
            done.job_id, done.application_id, done.channel, done.status, done.error_code
        )

    @activity.defn(name=act.APPLY_FINISH)
    @cooperative
    def finish(self, inp: ApplyFinishInput) -> None:
        """Let go of the run's live claims, then record how it ended."""
        ctx = self.ctx.for_tenant(inp.tenant_id)

        def work() -> None:
            apply_claims.release_run(ctx.store, inp.workflow_id, inp.run_id, clock=ctx.clock)
            if inp.status == ApplyRunStatus.CANCELED:
                workflow_runs.record_workflow_canceled(
                    ctx.store,
                    workflow_id=inp.workflow_id,
                    run_id=inp.run_id,
                    job_id=inp.job_id,
                    clock=ctx.clock,
                )
                return
            workflow_runs.record_workflow_closed(
                ctx.store,
                workflow_id=inp.workflow_id,
                run_id=inp.run_id,
                job_id=inp.job_id,
                outcome=inp.outcome or inp.status,
                error_code=inp.error_code if inp.status == ApplyRunStatus.FAILED else None,
                clock=ctx.clock,
            )

        self._run("finishing the run", work)

    def all(self) -> list[Callable[..., object]]:
        return [self.claim, self.prepare, self.finish]
