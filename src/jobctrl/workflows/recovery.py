"""PreparationRecoveryWorkflow (issue 13, being built): one stage for a frozen cohort."""

from __future__ import annotations

from temporalio import workflow


@workflow.defn(name="PreparationRecoveryWorkflow")
class PreparationRecoveryWorkflow:
    @workflow.run
    async def run(self, workflow_id: str) -> None:
        return None
