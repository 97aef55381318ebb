"""Activities of the preparation recovery workflow: binding the cohort to its run, and
its finish. The members themselves run the preparation's own stage activities
(``PreparationActivities``): one stage code, one set of ownership fences."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from temporalio import activity

from jobctrl.domain.errors import STAGE_INTERRUPTED, JobctrlError, StageError
from jobctrl.domain.stages import Stage, StageState
from jobctrl.stages.context import StageContext
from jobctrl.store import recovery, reports, stage_lookups, stage_states
from jobctrl.workflows import activity_defs as act
from jobctrl.workflows.activities import cooperative
from jobctrl.workflows.models import RecoveryBeginInput, RecoveryFinishInput

log = logging.getLogger(__name__)


class RecoveryActivities:
    def __init__(self, ctx: StageContext) -> None:
        self.ctx = ctx

    @activity.defn(name=act.RECOVERY_BEGIN)
    @cooperative
    def recovery_begin(self, inp: RecoveryBeginInput) -> bool:
        ctx = self.ctx.for_tenant(inp.tenant_id)
        return recovery.bind_run(ctx.store, inp.workflow_id, inp.run_id, clock=ctx.clock)

    @activity.defn(name=act.RECOVERY_FINISH)
    @cooperative
    def recovery_finish(self, inp: RecoveryFinishInput) -> None:
        """A member still running under this run stopped without a result (its attempt
        is charged, like any interrupted attempt); a member never claimed is released as
        it was (no attempt charged); then the cohort is closed and the run recorded."""
        ctx = self.ctx.for_tenant(inp.tenant_id)
        store, clock = ctx.store, ctx.clock
        for job_id in inp.job_ids:
            for stage, attempt in stage_lookups.running_stages_owned_by(store, job_id, inp.run_id):
                interrupted = StageError(
                    STAGE_INTERRUPTED,
                    f"the automatic {stage} attempt stopped without a result",
                    retryable=True,
                )
                with contextlib.suppress(StageError):  # OWNERSHIP_LOST: someone took it over
                    stage_states.fail_stage(
                        store, job_id, stage, inp.run_id, attempt, interrupted, clock=clock
                    )
        if inp.stage == Stage.SCORE:
            self._write_reports(ctx, inp.job_ids)
        released = recovery.close_cohort(
            store, inp.workflow_id, run=(inp.run_id, inp.status, inp.error_code), clock=clock
        )
        if released:
            log.info("recovery %s released %d unclaimed job(s)", inp.workflow_id, len(released))

    def _write_reports(self, ctx: StageContext, job_ids: list[str]) -> None:
        """The evaluation report of each member this cohort scored: the preparation's own
        finalize writes it only for a job scored by then, and these were not."""
        store = ctx.store
        for job_id in job_ids:
            rows = {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}
            if rows.get(Stage.SCORE, {}).get("state") != StageState.SUCCEEDED:
                continue
            try:
                reports.write_report(ctx.home, store, job_id, clock=ctx.clock)
            except JobctrlError as error:  # the next rescore or `jobctrl report` writes it
                log.warning("report of job %s not written: %s", job_id, error.code)

    def all(self) -> list[Callable[..., Any]]:
        return [self.recovery_begin, self.recovery_finish]
