"""The operations snapshot over HTTP: ``GET /v1/pipeline/operations`` (the JSON of `jobctrl
ops --json`) and the Operations page (``/operations``), which re-renders its main part
when the event stream says something changed and every few seconds for the runtime."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi.responses import HTMLResponse

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.api.pages import render_page
from jobctrl.app import discovery as app_discovery
from jobctrl.app import health as app_health
from jobctrl.app import operations as app_ops
from jobctrl.app.models import dump

__all__ = ["router"]

SCOPE_LABELS = (
    ("current_execution", "This discovery run's jobs"),
    ("execution_sweep", "Its backlog sweep"),
    ("global_outside_execution", "Everything else"),
)
OPS_STAGES = ("enrich", "score", "tailor", "cover", "pdf")
REFRESH_MS = 5000


router = tenant_router()
"""``GET /v1/pipeline/operations``, ``GET /v1/health`` and the ``/operations`` page."""


@router.get(
    "/v1/pipeline/operations", tags=["operations"], response_model=app_ops.OperationsSnapshot
)
def pipeline_operations(home: TenantHome) -> app_ops.OperationsSnapshot:
    """What the worker executes now, what remains per scope (this discovery run's
    jobs, its backlog sweep, everything else), the phase, and an ETA range — or no
    number and the reason (contract ``pipeline-eta-v1``)."""
    return app_ops.operations_snapshot(home)


@router.get("/v1/health", tags=["operations"], response_model=app_health.HealthReport)
async def health_report(home: TenantHome) -> app_health.HealthReport:
    """The health check of `jobctrl doctor --json`: each check (Temporal reachable, its
    history retention, workers, database, disk, artifact files, runs whose history may
    expire while open, stale profile versions, paused lanes) with its status (ok, warn,
    fail), a sentence and the command that fixes it. Always 200: read ``status``."""
    return await app_health.doctor(home)


@router.get("/operations", response_class=HTMLResponse, include_in_schema=False)
async def operations_page(home: TenantHome, fragment: str = "") -> HTMLResponse:
    snap = await asyncio.to_thread(app_ops.operations_snapshot, home)
    context: dict[str, Any] = {
        "snap": dump(snap),
        "gate": dump(await asyncio.to_thread(app_discovery.discovery_gate, home)),
        "health": dump(await app_health.recent_doctor(home)),
        "scope_labels": SCOPE_LABELS,
        "ops_stages": OPS_STAGES,
        "eta_range": app_ops.range_text(snap.eta),
        "source_eta": app_ops.source_eta_text(snap.source_eta) if snap.source_eta else None,
    }
    if fragment == "main":
        return render_page("_operations.html", **context)
    return render_page("operations.html", nav="operations", refresh_ms=REFRESH_MS, **context)
