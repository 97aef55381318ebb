"""The activity of AvailabilitySweepWorkflow: ``stages.availability.sweep`` under
Temporal, heartbeating once per checked job (the stage context's heartbeat)."""

from __future__ import annotations

from collections.abc import Callable

from temporalio import activity

from jobctrl.stages import availability
from jobctrl.stages.context import StageContext
from jobctrl.workflows import activity_defs as act
from jobctrl.workflows.activities import cooperative
from jobctrl.workflows.models import SweepInput, SweepResult


class AvailabilityActivities:
    """Runs with ``ctx``, whose heartbeat should be ``activity_heartbeat``."""

    def __init__(self, ctx: StageContext) -> None:
        self.ctx = ctx

    @activity.defn(name=act.AVAILABILITY_SWEEP)
    @cooperative
    def sweep(self, inp: SweepInput) -> SweepResult:
        ctx = self.ctx.for_tenant(inp.tenant_id)
        counts = availability.sweep(ctx, limit=inp.limit, budget_seconds=inp.budget_seconds)
        return SweepResult(counts)

    def all(self) -> list[Callable[..., object]]:
        return [self.sweep]
