"""Discovery's HTTP routes: recent runs, a run's plan, start a run, cancel the one in
progress — the same ``app.discovery`` and ``app.discovery_plan`` functions the CLI
calls."""

from __future__ import annotations

from fastapi import Query

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import activity, discovery, discovery_plan
from jobctrl.app.activity import DiscoveryRunView
from jobctrl.app.discovery import DiscoveryCancelled, DiscoveryStarting
from jobctrl.app.discovery_plan import RunPlan
from jobctrl.app.models import Items

__all__ = ["router"]

router = tenant_router()


@router.get("/v1/runs", tags=["discovery"], response_model=Items[DiscoveryRunView])
def runs(home: TenantHome) -> Items[DiscoveryRunView]:
    """Recent discovery runs with their progress."""
    return Items[DiscoveryRunView](items=activity.discovery_runs(home))


@router.get("/v1/runs/{run_id}/plan", tags=["discovery"], response_model=RunPlan)
def run_plan(home: TenantHome, run_id: str) -> RunPlan:
    """A run's plan (``latest``: the newest run's): each job's state (planned, queued,
    running, done, not_eligible, waiting, unknown), why the left-out ones were, and the
    counts; 404 ``not_found`` for a run this tenant does not have."""
    return discovery_plan.run_plan(home, None if run_id == "latest" else run_id)


@router.post(
    "/v1/discovery",
    tags=["discovery"],
    status_code=202,
    response_model=DiscoveryRunView | DiscoveryStarting,
)
async def start_discovery(home: TenantHome) -> DiscoveryRunView | DiscoveryStarting:
    """Start a discovery run; 409 ``discovery_busy`` (with the running run's id) while
    one is still finding jobs or preparing those it found."""
    return await discovery.start_discovery(home)


@router.post("/v1/discovery/cancel", tags=["discovery"], response_model=DiscoveryCancelled)
async def cancel_discovery(
    home: TenantHome,
    with_preparations: bool | None = Query(
        None,
        alias="withPreparations",
        description="Also cancel the preparations the run started (default: the setting).",
    ),
) -> DiscoveryCancelled:
    """Stop the discovery run in progress from finding jobs (what it found so far stays);
    ``withPreparations=true`` also cancels the preparations it started (default: the
    ``discovery.cancel_preparations`` setting). 409 ``not_running`` with nothing to stop."""
    return await discovery.cancel_discovery(home, with_preparations=with_preparations)
