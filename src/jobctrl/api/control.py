"""The stop controls' HTTP routes: cancel one job's preparation, reset one stage, and the
stop-loss pauses (list, resume) — the same ``app.control`` functions the CLI calls."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import TenantHome
from jobctrl.app import control
from jobctrl.home import Home

__all__ = ["register_control"]


class ResetStage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    stage: str = Field(min_length=1, max_length=16, description="The stage to reset.")


def register_control(app: FastAPI, home: Home) -> None:
    """Add ``/v1/jobs/{id}/cancel``, ``/v1/jobs/{id}/reset`` and ``/v1/stop-loss``."""

    @app.post("/v1/jobs/{job_id}/cancel", tags=["jobs"])
    async def cancel_job(home: TenantHome, job_id: str) -> dict[str, Any]:
        """Cancel the job's preparation cooperatively: its running executions are asked to
        cancel, its unfinished stages end `canceled`; finished results stay."""
        return await control.cancel_job(home, job_id)

    @app.post("/v1/jobs/{job_id}/reset", tags=["jobs"])
    def reset_stage(home: TenantHome, job_id: str, body: ResetStage) -> dict[str, Any]:
        """Put a stage (and the later ones not running) back to pending; nothing is
        cancelled or started now (automatic recovery may pick it up later). A running
        stage is refused (409 STAGE_BUSY)."""
        return control.reset_stage(home, job_id, body.stage)

    @app.get("/v1/stop-loss", tags=["operations"])
    def stop_loss(home: TenantHome) -> dict[str, Any]:
        """The lanes and sources stop-loss paused, with the code and streak that did it."""
        return control.stop_loss_status(home)

    @app.post("/v1/stop-loss/{kind}/{name:path}/resume", tags=["operations"])
    def resume(home: TenantHome, kind: str, name: str) -> dict[str, Any]:
        """Resume a paused lane or source (`kind` is `lane` or `source`; a source's name
        is its window, `KIND:NAME`, and may hold slashes: a feed's URL)."""
        return control.resume(home, f"{kind}:{name}")
