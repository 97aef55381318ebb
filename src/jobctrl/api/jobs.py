"""The jobs' HTTP routes: list and show, add a posting, retry a failed stage, rescore on
the current profile, decide on materials, and a material's PDF — the same ``app.jobs``,
``app.rescore``, ``app.materials`` and ``app.queries`` functions the CLI calls."""

from __future__ import annotations

import asyncio
import functools

from fastapi import Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import jobs, material_edits, materials, queries, reports, rescore
from jobctrl.app.jobs import AddedJob, RetryStarted
from jobctrl.app.material_edits import MaterialEdited, MaterialText
from jobctrl.app.materials import MaterialDecision, RegenerationStarted
from jobctrl.app.models import Items, Page
from jobctrl.app.queries import JobDetail, JobListItem
from jobctrl.app.rescore import RescoreResult, RescoreStatus
from jobctrl.domain.inbox import NextAction

__all__ = ["router"]


class AddJob(BaseModel):
    url: str = Field(min_length=1, max_length=2048, description="The posting's URL.")


class RetryStage(BaseModel):
    stage: str | None = Field(None, description="The failed stage; default: the first one.")


class EditedText(BaseModel):
    text: str = Field(
        min_length=1, max_length=100_000, description="The edited resume or letter, as text."
    )


class Rescore(BaseModel):
    """Which jobs to score again: those named, else every stale one (or, with ``all``,
    every scored one)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")
    jobs: list[str] = Field(default_factory=list, max_length=1000, description="Job ids.")
    all: bool = Field(False, description="Every scored job, not only the stale ones.")
    dry_run: bool = Field(False, description="Change nothing: offline scores and cost.")
    paid: bool = Field(
        False,
        description="Ask the paid score model even for jobs the free offline scorer places "
        "far below min_fit_score (setting score.offline_margin).",
    )


router = tenant_router()
_ACTIONS = f"^({'|'.join(NextAction)})$"  # the inbox's groups (domain.inbox)


@router.get("/v1/jobs", tags=["jobs"], response_model=Page[JobListItem])
def list_jobs(
    home: TenantHome,
    stage: str | None = Query(None, max_length=32),
    status: str | None = Query(None, max_length=32),
    min_score: int | None = Query(None, ge=0, le=100),
    q: str | None = Query(None, max_length=200),
    sort: str = Query("score", pattern="^(score|updated|created)$"),
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=1_000_000),
    action: str | None = Query(None, pattern=_ACTIONS, description="Only this next action."),
) -> Page[JobListItem]:
    """Jobs from the list projection, best score first unless ``sort`` says otherwise,
    each with its next action (``nextAction``) and why (``nextActionReason``)."""
    wanted = queries.JobFilter(
        stage=stage, status=status, min_score=min_score, q=q, sort=sort, limit=limit, offset=offset
    )
    items, total = queries.find_jobs(home, wanted, action=action)
    return Page[JobListItem](items=items, total=total, limit=limit, offset=offset)


@router.get("/v1/jobs/{job_id}", tags=["jobs"], response_model=JobDetail)
def get_job(home: TenantHome, job_id: str) -> JobDetail:
    """One job: posting, score report, stage timeline and materials."""
    return queries.job_detail(home, job_id)


@router.get(
    "/v1/jobs/{job_id}/report",
    tags=["jobs"],
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}}},
)
def evaluation_report(home: TenantHome, job_id: str) -> Response:
    """The job's evaluation report (Markdown), shown as text in the browser."""
    report = reports.evaluation_report_text(home, job_id)
    return Response(
        report.text,
        media_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": f'inline; filename="{report.name}"'},
    )


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


@router.post("/v1/jobs", tags=["jobs"], status_code=202, response_model=AddedJob)
async def add_job(home: TenantHome, body: AddJob) -> AddedJob:
    """Add a posting URL and start its preparation (as `jobctrl add`)."""
    return await jobs.add_job(home, body.url)


@router.post("/v1/jobs/{job_id}/retry", tags=["jobs"], status_code=202, response_model=RetryStarted)
async def retry(home: TenantHome, job_id: str, body: RetryStage | None = None) -> RetryStarted:
    """Run a failed stage again; 503 worker_runtime_unavailable changes nothing."""
    return await jobs.retry_stage(home, job_id, body.stage if body else None)


@router.get("/v1/rescore", tags=["jobs"], response_model=RescoreStatus)
def rescore_status(home: TenantHome) -> RescoreStatus:
    """How many jobs are stale (made with another profile version), and how many rescore
    runs are still open."""
    return rescore.rescore_status(home)


@router.post("/v1/rescore", tags=["jobs"], status_code=202, response_model=RescoreResult)
async def start_rescore(home: TenantHome, body: Rescore | None = None) -> RescoreResult:
    """Score jobs again on the current profile (as `jobctrl rescore`): the runs started
    and each job skipped with why; ``dryRun`` changes nothing. 503
    worker_runtime_unavailable changes nothing."""
    wanted = body or Rescore()
    scope: rescore.Scope = "jobs" if wanted.jobs else "all" if wanted.all else "stale"
    if wanted.dry_run:
        return await asyncio.to_thread(
            functools.partial(rescore.plan_rescore, paid_score=wanted.paid),
            home,
            wanted.jobs,
            scope,
        )
    return await rescore.rescore(home, wanted.jobs, scope, paid=wanted.paid)


@router.post(
    "/v1/jobs/{job_id}/materials/{decision}",
    tags=["materials"],
    response_model=Items[MaterialDecision] | RegenerationStarted,
    responses={202: {"model": RegenerationStarted, "description": "regenerate or letter: the run"}},
)
async def decide(
    home: TenantHome, job_id: str, decision: str, response: Response
) -> Items[MaterialDecision] | RegenerationStarted:
    """Approve or reject a job's newest drafts (200, what was decided), regenerate them
    (202, the run writing the new generation), or write the cover letter of a job whose
    letter waits to be asked for (``letter``: 202, the run writing it)."""
    if decision == "regenerate":
        response.status_code = 202
        return await materials.regenerate_materials(home, job_id)
    if decision == "letter":
        response.status_code = 202
        return await materials.write_letter(home, job_id)
    return Items[MaterialDecision](items=materials.decide_materials(home, job_id, decision))


KIND = Path(pattern="^(resume|letter)$", description="resume or letter")


@router.get(
    "/v1/jobs/{job_id}/materials/{kind}/text", tags=["materials"], response_model=MaterialText
)
def material_text(home: TenantHome, job_id: str, kind: str = KIND) -> MaterialText:
    """The newest resume or letter of the job as text, to edit (as `jobctrl materials
    edit`)."""
    return material_edits.material_text(home, job_id, kind)


@router.put("/v1/jobs/{job_id}/materials/{kind}", tags=["materials"], response_model=MaterialEdited)
async def edit_material(
    home: TenantHome, body: EditedText, job_id: str, kind: str = KIND
) -> MaterialEdited:
    """Save an edited resume or letter as a new draft: checked sentence by sentence against
    the profile (kept as written: ``findings`` name what the profile does not support, and
    approval waits until they are removed or the profile has the facts), rendered to PDF."""
    return await asyncio.to_thread(material_edits.edit_material, home, job_id, kind, body.text)
