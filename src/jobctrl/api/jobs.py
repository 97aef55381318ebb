"""The jobs' HTTP routes: list and show, add a posting, retry a failed stage, decide on
materials, and a material's PDF — the same ``app.jobs``, ``app.materials`` and
``app.queries`` functions the CLI calls."""

from __future__ import annotations

from typing import Any

from fastapi import Query
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import jobs, materials, queries

__all__ = ["router"]


class AddJob(BaseModel):
    url: str = Field(min_length=1, max_length=2048, description="The posting's URL.")


class RetryStage(BaseModel):
    stage: str | None = Field(None, description="The failed stage; default: the first one.")


router = tenant_router()


@router.get("/v1/jobs", tags=["jobs"])
def list_jobs(
    home: TenantHome,
    stage: str | None = Query(None, max_length=32),
    status: str | None = Query(None, max_length=32),
    min_score: int | None = Query(None, ge=0, le=100),
    q: str | None = Query(None, max_length=200),
    sort: str = Query("score", pattern="^(score|updated|created)$"),
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=1_000_000),
) -> dict[str, Any]:
    """Jobs from the list projection, best score first unless ``sort`` says otherwise."""
    items, total = queries.find_jobs(
        home,
        stage=stage,
        status=status,
        min_score=min_score,
        q=q,
        sort=sort,
        limit=limit,
        offset=offset,
    )
    return {"items": items, "total": total, "limit": limit, "offset": offset}


@router.get("/v1/jobs/{job_id}", tags=["jobs"])
def get_job(home: TenantHome, job_id: str) -> dict[str, Any]:
    """One job: posting, score report, stage timeline and materials."""
    view = queries.show_job(home, job_id)
    view["materials"] = queries.job_materials(home, job_id)
    return view


@router.get(
    "/v1/artifacts/{artifact_id}",
    tags=["materials"],
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}}},
)
def artifact(home: TenantHome, artifact_id: str) -> Response:
    """A material's PDF, shown inline."""
    data, name = queries.material_pdf(home, artifact_id)
    return Response(
        data,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{name}"'},
    )


# -- commands (the same application functions the CLI calls) ----------------------------


@router.post("/v1/jobs", tags=["jobs"], status_code=202)
async def add_job(home: TenantHome, body: AddJob) -> dict[str, Any]:
    """Add a posting URL and start its preparation (as `jobctrl add`)."""
    return await jobs.add_job(home, body.url)


@router.post("/v1/jobs/{job_id}/retry", tags=["jobs"], status_code=202)
async def retry(home: TenantHome, job_id: str, body: RetryStage | None = None) -> dict[str, Any]:
    """Run a failed stage again; 503 worker_runtime_unavailable changes nothing."""
    return await jobs.retry_stage(home, job_id, body.stage if body else None)


@router.post("/v1/jobs/{job_id}/materials/{decision}", tags=["materials"])
async def decide(home: TenantHome, job_id: str, decision: str) -> Response:
    """Approve, reject or regenerate a job's materials."""
    if decision == "regenerate":
        started = await materials.regenerate_materials(home, job_id)
        return JSONResponse(started, 202)
    items = materials.decide_materials(home, job_id, decision)
    return JSONResponse({"items": items})
