"""HTTP routes for executions (``app.executions``): orphans and open runs, and a stop
request for one execution."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import executions

__all__ = ["router"]


class StopBody(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    run_id: str | None = Field(default=None, alias="runId")


router = tenant_router()
"""``/v1/executions`` and ``/v1/executions/{workflow_id}/stop``."""


@router.get("/v1/executions", tags=["executions"], response_model=executions.Executions)
def list_executions(home: TenantHome) -> executions.Executions:
    """Orphans (executions Temporal runs that the store does not expect), the runs the
    store holds open with their reconciled status, and stop requests."""
    return executions.list_executions(home)


@router.post(
    "/v1/executions/{workflow_id}/stop",
    tags=["executions"],
    status_code=202,
    response_model=executions.StopRequested,
)
async def stop_execution(
    home: TenantHome, workflow_id: str, body: StopBody | None = None
) -> executions.StopRequested:
    """Ask the worker to stop this execution (``runId``: the exact run, needed when
    several are known); its heartbeat cancels it until Temporal reports it closed (at
    last terminating it). 404 when Temporal has no such execution."""
    run_id = body.run_id if body else None
    return await executions.stop_execution(home, workflow_id, run_id)
