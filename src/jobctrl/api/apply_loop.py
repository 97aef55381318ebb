"""The apply workflow's HTTP routes: the standing apply loop (its status, stop and start)
and one job's apply in the worker — the same ``app.apply_loop`` functions the Runs page
uses. Registered before any ``/v1/apply/{job}`` route, so ``loop`` is never read as a job.
"""

from __future__ import annotations

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import apply_loop
from jobctrl.app.apply_loop import ApplyLoopStatus, ApplyLoopSwitched, ApplyRun

__all__ = ["router"]


router = tenant_router()
"""``/v1/apply/loop`` and ``/v1/jobs/{id}/apply``."""


@router.get("/v1/apply/loop", tags=["apply"], response_model=ApplyLoopStatus)
def loop_status(home: TenantHome) -> ApplyLoopStatus:
    """The standing apply loop (`apply-auto-local`): on or off, its latest run, whether
    a spent budget halts it today, what it prepared, what it passes over and why."""
    return apply_loop.apply_loop_status(home)


@router.post("/v1/apply/loop/stop", tags=["apply"], response_model=ApplyLoopSwitched)
async def loop_stop(home: TenantHome) -> ApplyLoopSwitched:
    """Turn `auto_apply` off and ask the running loop to cancel (it lets its claims go;
    what it prepared stays)."""
    return await apply_loop.set_apply_loop(home, enabled=False)


@router.post(
    "/v1/apply/loop/start", tags=["apply"], status_code=202, response_model=ApplyLoopSwitched
)
async def loop_start(home: TenantHome) -> ApplyLoopSwitched:
    """Turn `auto_apply` on: the worker's next heartbeat starts the loop."""
    return await apply_loop.set_apply_loop(home, enabled=True)


@router.post("/v1/jobs/{job_id}/apply", tags=["apply"], status_code=202, response_model=ApplyRun)
async def apply_job(home: TenantHome, job_id: str) -> ApplyRun:
    """Prepare the job's application through the apply workflow (as the loop would:
    a draft that waits for the person; nothing is sent or submitted)."""
    return await apply_loop.apply_in_worker(home, job_id)
