"""The inbox's HTTP routes: the jobs grouped by next action, hiding a job (and bringing
it back), deleting one, and checking a posting now — the same ``app.inbox``,
``app.job_removal`` and ``app.availability`` functions the CLI and the pages call."""

from __future__ import annotations

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import availability, inbox, job_removal
from jobctrl.app.availability import AvailabilityCheck
from jobctrl.app.inbox import Inbox
from jobctrl.app.job_removal import DeletedJob, HiddenJob
from jobctrl.app.queries import JobFilter

__all__ = ["router"]


class HideJob(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str | None = Field(None, max_length=500, description="Why (only you see it).")


router = tenant_router()


@router.get("/v1/inbox", tags=["jobs"], response_model=Inbox)
def get_inbox(
    home: TenantHome,
    q: str | None = Query(None, max_length=200),
    sort: str = Query("score", pattern="^(score|updated|created)$"),
    per_group: int = Query(25, ge=1, le=500),
    hidden: bool = Query(False, description="Also the group of hidden jobs."),
) -> Inbox:
    """The jobs grouped by what to do next (each group's first ``perGroup`` rows; a
    posting on several boards once, with every listing)."""
    wanted = JobFilter(q=q, sort=sort)
    return inbox.jobs_inbox(home, wanted, per_group=per_group, show_hidden=hidden)


@router.post("/v1/jobs/{job_id}/hide", tags=["jobs"], response_model=HiddenJob)
def hide(home: TenantHome, job_id: str, body: HideJob | None = None) -> HiddenJob:
    """Hide a job (not interested): out of the inbox, never prepared, checked or applied
    to (as `jobctrl hide`)."""
    return job_removal.hide_job(home, job_id, body.reason if body else None)


@router.post("/v1/jobs/{job_id}/unhide", tags=["jobs"], response_model=HiddenJob)
def unhide(home: TenantHome, job_id: str) -> HiddenJob:
    """Bring a hidden job back into the inbox (as `jobctrl unhide`)."""
    return job_removal.unhide_job(home, job_id)


@router.delete("/v1/jobs/{job_id}", tags=["jobs"], response_model=DeletedJob)
def delete(home: TenantHome, job_id: str) -> DeletedJob:
    """Delete a job with its materials and the files no other job uses (as `jobctrl
    delete --yes`); 409 while a stage of it runs or its application is being sent."""
    return job_removal.delete_job(home, job_id)


@router.post("/v1/jobs/{job_id}/check", tags=["jobs"], response_model=AvailabilityCheck)
async def check(home: TenantHome, job_id: str) -> AvailabilityCheck:
    """Check now whether the job's posting is online (as `jobctrl check`); robots.txt
    and the pause between requests to a site still apply."""
    return await availability.check_now(home, job_id)
