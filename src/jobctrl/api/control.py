"""The stop controls' HTTP routes: cancel one job's preparation, reset one stage, and the
stop-loss pauses (list, resume) — the same ``app.control`` functions the CLI calls."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import control

__all__ = ["router"]


class ResetStage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    stage: str = Field(min_length=1, max_length=16, description="The stage to reset.")


router = tenant_router()
"""``/v1/jobs/{id}/cancel``, ``/v1/jobs/{id}/reset`` and ``/v1/stop-loss``."""


@router.post("/v1/jobs/{job_id}/cancel", tags=["jobs"], response_model=control.JobCanceled)
async def cancel_job(home: TenantHome, job_id: str) -> control.JobCanceled:
    """Cancel the job's preparation cooperatively: its running executions are asked to
    cancel, its unfinished stages end `canceled`; finished results stay."""
    return await control.cancel_job(home, job_id)


@router.post("/v1/jobs/{job_id}/reset", tags=["jobs"], response_model=control.StageReset)
def reset_stage(home: TenantHome, job_id: str, body: ResetStage) -> control.StageReset:
    """Put a stage (and the later ones not running) back to pending; nothing is
    cancelled or started now (automatic recovery may pick it up later). A running
    stage is refused (409 STAGE_BUSY)."""
    return control.reset_stage(home, job_id, body.stage)


@router.get("/v1/stop-loss", tags=["operations"], response_model=control.StopLossStatus)
def stop_loss(home: TenantHome) -> control.StopLossStatus:
    """The lanes and sources stop-loss paused, with the code and streak that did it."""
    return control.stop_loss_status(home)


@router.post(
    "/v1/stop-loss/{kind}/{name:path}/resume", tags=["operations"], response_model=control.Resumed
)
def resume(home: TenantHome, kind: str, name: str) -> control.Resumed:
    """Resume a paused lane or source (`kind` is `lane` or `source`; a source's name
    is its window, `KIND:NAME`, and may hold slashes: a feed's URL)."""
    return control.resume(home, f"{kind}:{name}")
