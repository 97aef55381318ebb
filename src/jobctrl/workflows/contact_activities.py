"""The activities of ContactResearchWorkflow: thin adapters from Temporal to
``stages.contacts``. A ``JobctrlError`` (a spent budget, a lost task) becomes an
``ApplicationError`` whose type is its code; anything else is logged here and crosses into
the history as ``INTERNAL_ERROR`` only, never as text (a page's words never do)."""

from __future__ import annotations

from collections.abc import Callable

from temporalio import activity

from jobctrl.domain.executions import WorkflowType
from jobctrl.stages import contacts
from jobctrl.store import workflow_runs
from jobctrl.workflows import activity_defs as act
from jobctrl.workflows.activities import cooperative
from jobctrl.workflows.models import (
    ContactClaimInput,
    ContactClaimResult,
    ContactFinishInput,
    ContactSourceInput,
)
from jobctrl.workflows.stage_adapter import StageAdapter

CANCELED = "canceled"  # the workflow's word for a run ended by a cancel


class ContactActivities(StageAdapter):
    label = "contact research"

    @activity.defn(name=act.CONTACT_RESEARCH_CLAIM)
    @cooperative
    def claim(self, inp: ContactClaimInput) -> ContactClaimResult:
        ctx = self.ctx.for_tenant(inp.tenant_id)

        def work() -> contacts.Claimed:
            claimed = contacts.claim_task(ctx, inp.task_id, inp.run_id)
            workflow_runs.record_workflow_started(
                ctx.store,
                workflow_id=inp.workflow_id,
                run_id=inp.run_id,
                workflow_type=WorkflowType.CONTACT_RESEARCH.value,
                job_id=claimed.job_id,
                clock=ctx.clock,
            )
            return claimed

        done = self._run("claiming the task", work)
        return ContactClaimResult(done.job_id, done.sources, done.done)

    @activity.defn(name=act.CONTACT_RESEARCH_SOURCE)
    @cooperative
    def source(self, inp: ContactSourceInput) -> int:
        ctx = self.ctx.for_tenant(inp.tenant_id)
        attempt = activity.info().attempt
        return self._run(
            f"source {inp.index}",
            lambda: contacts.research_source(ctx, inp.task_id, inp.run_id, inp.index, attempt),
        )

    @activity.defn(name=act.CONTACT_RESEARCH_FINISH)
    @cooperative
    def finish(self, inp: ContactFinishInput) -> None:
        ctx = self.ctx.for_tenant(inp.tenant_id)

        def work() -> None:
            canceled = inp.error_code == CANCELED
            code = None if canceled else inp.error_code
            contacts.finish_task(ctx, inp.task_id, inp.run_id, inp.error_code)
            if canceled:
                workflow_runs.record_workflow_canceled(
                    ctx.store, workflow_id=inp.workflow_id, run_id=inp.run_id,
                    job_id=inp.job_id, clock=ctx.clock,
                )  # fmt: skip
                return
            workflow_runs.record_workflow_closed(
                ctx.store, workflow_id=inp.workflow_id, run_id=inp.run_id, job_id=inp.job_id,
                outcome="failed" if code else "researched", error_code=code, clock=ctx.clock,
            )  # fmt: skip

        self._run("finishing the task", work)

    def all(self) -> list[Callable[..., object]]:
        return [self.claim, self.source, self.finish]
