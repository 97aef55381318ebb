"""Discovery's HTTP routes: recent runs, start a run, cancel the one in progress — the
same ``app.discovery`` and ``app.queries`` functions the CLI calls."""

from __future__ import annotations

from typing import Any

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import discovery, queries

__all__ = ["router"]

router = tenant_router()


@router.get("/v1/runs", tags=["discovery"])
def runs(home: TenantHome) -> dict[str, Any]:
    """Recent discovery runs with their progress."""
    return {"items": queries.discovery_runs(home)}


@router.post("/v1/discovery", tags=["discovery"], status_code=202)
async def start_discovery(home: TenantHome) -> dict[str, Any]:
    """Start a discovery run (or join the one in progress)."""
    return await discovery.start_discovery(home)


@router.post("/v1/discovery/cancel", tags=["discovery"])
async def cancel_discovery(home: TenantHome) -> dict[str, Any]:
    """Cancel the discovery run in progress; what it found so far stays."""
    return await discovery.cancel_discovery(home)
