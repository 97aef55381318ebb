"""AvailabilitySweepWorkflow (`availability-sweep-local`): one bounded sweep of the saved
postings that are due for a check, as a cancellable activity with a time budget.

The worker's heartbeat starts it when checks are due and none is running; the activity
heartbeats once per job, so a killed worker's sweep is noticed and a cancel stops it
between two jobs.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from jobctrl.workflows import activity_defs as act
    from jobctrl.workflows.models import SweepInput, SweepResult

SWEEP_MARGIN = timedelta(seconds=60)  # past the budget: the last check's own time
SWEEP_WORKFLOW = "AvailabilitySweepWorkflow"  # its type, as Temporal lists it


@workflow.defn(name=SWEEP_WORKFLOW)
class AvailabilitySweepWorkflow:
    @workflow.run
    async def run(self, inp: SweepInput) -> SweepResult:
        return await workflow.execute_activity(
            act.availability_sweep,
            inp,
            start_to_close_timeout=timedelta(seconds=inp.budget_seconds) + SWEEP_MARGIN,
            heartbeat_timeout=timedelta(seconds=inp.heartbeat_timeout_seconds),
            # The next heartbeat of the worker starts the next sweep: no retry here.
            retry_policy=RetryPolicy(maximum_attempts=1),
        )
