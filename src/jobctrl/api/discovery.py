"""Discovery's HTTP routes: recent runs, start a run, cancel the one in progress — the
same ``app.discovery`` and ``app.queries`` functions the CLI calls."""

from __future__ import annotations

from fastapi import Query

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import activity, discovery
from jobctrl.app.activity import DiscoveryRunView
from jobctrl.app.discovery import DiscoveryCancelled, DiscoveryStarting
from jobctrl.app.models import Items

__all__ = ["router"]

router = tenant_router()


@router.get("/v1/runs", tags=["discovery"], response_model=Items[DiscoveryRunView])
def runs(home: TenantHome) -> Items[DiscoveryRunView]:
    """Recent discovery runs with their progress."""
    return Items[DiscoveryRunView](items=activity.discovery_runs(home))


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
