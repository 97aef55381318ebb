"""Application services: one function per command, shared by the CLI (and later the API).

Each service takes a ``Home`` and plain arguments and returns plain data (camelCase keys),
so the CLI prints it as text or JSON and the API will serve the same shapes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from jobctrl import config as config_mod
from jobctrl.domain import ids
from jobctrl.domain.errors import JobctrlError, ServerUnavailableError
from jobctrl.home import Home
from jobctrl.stages import discover as discover_stage
from jobctrl.store import jobs, profiles, projections, schema
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.connection import connect, default_task_queue
from jobctrl.workflows.models import PrepInput, RetrySettings
from jobctrl.workflows.prep import JobPreparationWorkflow


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def init_home(
    home: Home,
    *,
    profile: dict[str, Any] | None = None,
    target_search: dict[str, Any] | None = None,
) -> dict[str, Any]:
    wrote = config_mod.write_template(home, profile=profile, target_search=target_search)
    Store.open(home)  # creates and migrates the database
    return {
        "home": str(home.root),
        "config": str(home.config_path),
        "configCreated": wrote,
        "database": home.database_url,
    }


def retry_settings(settings: Settings) -> RetrySettings:
    return RetrySettings(
        max_attempts=int(settings.get("retry.max_attempts")),
        initial_interval_seconds=float(settings.get("retry.initial_interval_seconds")),
        heartbeat_timeout_seconds=float(settings.get("worker.heartbeat_timeout_seconds")),
    )


async def add_job(
    home: Home, url: str, *, wait: bool = False, wait_timeout: float = 300.0
) -> dict[str, Any]:
    """Create (or find) the job for ``url`` and start its one preparation workflow."""
    if not url or not url.strip():
        raise JobctrlError("a posting URL is required", code="invalid_input")
    client = await connect(home)
    store = Store.open(home)
    job = jobs.create_job(store, url)
    workflow_id, run_id = await start_preparation(
        client, home, store, job.job_id, job.idempotency_key
    )
    if wait:
        if not await worker_polling(client):
            raise JobctrlError(
                f"job {job.job_id} is queued, but no worker serves task queue "
                f"{default_task_queue()!r}: start one with `jobctrl worker`",
                code="no_worker",
            )
        try:
            await asyncio.wait_for(
                client.get_workflow_handle(workflow_id, run_id=run_id).result(), wait_timeout
            )
        except WorkflowFailureError:
            pass  # the failure is recorded on the job's stages
        except TimeoutError:
            raise JobctrlError(
                f"job {job.job_id} is still being prepared after {wait_timeout:.0f} s; "
                "is a worker running? (`jobctrl worker`)",
                code="wait_timeout",
            ) from None
    view = job_view(store, job.job_id)
    view.update(created=job.created, workflowId=workflow_id, runId=run_id)
    return view


async def start_preparation(
    client: Client,
    home: Home,
    store: Store,
    job_id: str,
    key: str,
    *,
    workflow_id: str | None = None,
    materials: bool | None = None,
) -> tuple[str, str]:
    """Start a JobPreparationWorkflow for the job (or find it): (workflow id, run id).

    The id is ``prep-{idempotencyKey}`` unless a recovery or regeneration names its own.
    ``USE_EXISTING`` joins a running execution and ``REJECT_DUPLICATE`` refuses a new one
    after it closed, so a retried or racing start never makes a second execution. The
    input freezes the current profile version and settings.
    """
    workflow_id = workflow_id or ids.prep_workflow_id(key)
    version = profiles.version_of(store, config_mod.load_config(home).profile)
    settings = Settings(store)
    inp = PrepInput(
        job_id,
        key,
        retry_settings(settings),
        profile_version=version,
        materials=bool(settings.get("preparation.materials")) if materials is None else materials,
    )
    try:
        handle = await client.start_workflow(
            JobPreparationWorkflow.run,
            inp,
            id=workflow_id,
            task_queue=default_task_queue(),
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        )
        run_id = handle.result_run_id
    except WorkflowAlreadyStartedError:
        run_id = (await client.get_workflow_handle(workflow_id).describe()).run_id
    if not run_id:
        raise JobctrlError(f"Temporal gave no run id for {workflow_id}", code="temporal")
    jobs.record_workflow_started(
        store,
        workflow_id=workflow_id,
        run_id=run_id,
        workflow_type="JobPreparationWorkflow",
        job_id=job_id,
    )
    return workflow_id, run_id


async def worker_polling(client: Client, patience: float = 5.0) -> bool:
    """True when some worker polls this home's task queue (a worker that has just started
    shows up within a moment, so an empty answer is asked again for ``patience`` s)."""
    from temporalio.api.enums.v1 import TaskQueueType
    from temporalio.api.taskqueue.v1 import TaskQueue
    from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

    request = DescribeTaskQueueRequest(
        namespace=client.namespace,
        task_queue=TaskQueue(name=default_task_queue()),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    deadline = asyncio.get_running_loop().time() + patience
    while True:
        if (await client.workflow_service.describe_task_queue(request)).pollers:
            return True
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.25)


def _stage_view(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "stage": row["stage"],
        "state": row["state"],
        "attempts": row["attempts"],
        "errorCode": row["error_code"],
        "errorMessage": row["error_message"],
        "retryable": row["retryable"],
        "ownerRunId": row["owner_run_id"],
        "nextAttemptAt": _iso(row["next_attempt_at"]),
        "startedAt": _iso(row["started_at"]),
        "finishedAt": _iso(row["finished_at"]),
    }


def job_view(store: Store, job_id: str) -> dict[str, Any]:
    """One job with its extracted fields, stage states (with error codes) and score report."""
    row = jobs.job_row(store, job_id)
    stages = [_stage_view(r) for r in jobs.stage_rows(store, job_id)]
    score = jobs.score_row(store, job_id)
    jl, rn = schema.job_list_projections, schema.report_numbers
    with store.read() as conn:
        status = conn.execute(select(jl.c.status).where(jl.c.job_id == job_id)).scalar()
        numbered = conn.execute(select(rn).where(rn.c.job_id == job_id)).mappings().first()
    report = (
        {"number": numbered["number"], "path": str(store.artifacts.root.parent / numbered["path"])}
        if numbered and numbered["path"]
        else None
    )
    salary = None
    if row["salary_min"] is not None or row["salary_max"] is not None:
        salary = {
            "min": row["salary_min"],
            "max": row["salary_max"],
            "currency": row["salary_currency"],
            "period": row["salary_period"],
        }
    return {
        "jobId": row["id"],
        "idempotencyKey": row["idempotency_key"],
        "url": row["url"],
        "canonicalUrl": row["canonical_url"],
        "source": row["source"],
        "status": status or "pending",
        "title": row["title"],
        "company": row["company"],
        "location": row["location"],
        "remote": row["remote"],
        "salary": salary,
        "applyUrl": row["apply_url"],
        "datePosted": row["date_posted"],
        "validThrough": row["valid_through"],
        "extractionMethod": row["extraction_method"],
        "artifacts": {"page": row["raw_artifact"], "text": row["text_artifact"]},
        "stages": stages,
        "score": score["score"] if score else None,
        "verdict": score["verdict"] if score else None,
        "scoreReport": score["report"] if score else None,
        "evaluationReport": report,
        "createdAt": _iso(row["created_at"]),
        "updatedAt": _iso(row["updated_at"]),
    }


def show_job(home: Home, ref: str) -> dict[str, Any]:
    store = Store.open(home)
    return job_view(store, jobs.resolve_job_id(store, ref))


JOB_SORTS = ("score", "updated", "created")


def find_jobs(
    store: Store,
    *,
    stage: str | None = None,
    status: str | None = None,
    min_score: int | None = None,
    q: str | None = None,
    sort: str = "score",
    limit: int | None = None,
    offset: int = 0,
) -> tuple[list[dict[str, Any]], int]:
    """Rows of the job list projection, filtered and sorted (highest first; no score
    last), and how many match in all. Shared by `jobctrl jobs`, the API and the pages."""
    from sqlalchemy import func, or_

    jl = schema.job_list_projections
    # Each order matches an index of migration 0009 expression for expression.
    order_by = {
        "score": (jl.c.score.is_(None), jl.c.score.desc(), jl.c.job_id),
        "updated": (jl.c.updated_at.desc(), jl.c.job_id),
        "created": (jl.c.created_at.desc(), jl.c.job_id),
    }[sort]
    where = []
    if stage:
        where.append(jl.c.current_stage == stage)
    if status:
        where.append(jl.c.status == status)
    if min_score is not None:
        where.append(jl.c.score >= min_score)
    if q:
        where.append(or_(jl.c.title.ilike(f"%{q}%"), jl.c.company.ilike(f"%{q}%")))
    query = select(jl).where(*where).order_by(*order_by).limit(limit).offset(offset)
    with store.read() as conn:
        rows = [dict(r) for r in conn.execute(query).mappings()]
        if limit is None and not offset:
            return rows, len(rows)
        total = conn.execute(select(func.count()).select_from(jl).where(*where)).scalar_one()
    return rows, total


def job_list_item(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "jobId": r["job_id"],
        "title": r["title"],
        "company": r["company"],
        "location": r["location"],
        "remote": r["remote"],
        "score": r["score"],
        "verdict": r["verdict"],
        "status": r["status"],
        "currentStage": r["current_stage"],
        "errorCode": r["error_code"],
        "url": r["url"],
        "updatedAt": _iso(r["updated_at"]),
    }


def list_jobs(home: Home) -> list[dict[str, Any]]:
    store = Store.open(home)
    return [job_list_item(r) for r in find_jobs(store)[0]]


def rebuild_projections(home: Home) -> dict[str, int]:
    store = Store.open(home)
    with store.write() as tx:
        folded = projections.rebuild(tx.conn)
    return {"eventsFolded": folded}


# -- discovery -----------------------------------------------------------------------------


def _run_view(row: dict[str, Any]) -> dict[str, Any]:
    total = row["progress_total"] or 0
    return {
        "workflowId": row["workflow_id"],
        "runId": row["run_id"],
        "status": row["status"],
        "families": row["families"],
        "progress": {"done": row["progress_done"], "total": total},
        "counts": discover_stage.total_counts(row["counts"] or {}),
        "countsByStep": row["counts"] or {},
        "errorCode": row["error_code"],
        "startedAt": _iso(row["started_at"]),
        "finishedAt": _iso(row["finished_at"]),
    }


def discovery_runs(home: Home, limit: int = 20) -> list[dict[str, Any]]:
    store = Store.open(home)
    dr = schema.discovery_runs
    with store.read() as conn:
        rows = conn.execute(select(dr).order_by(dr.c.started_at.desc()).limit(limit)).mappings()
        return [_run_view(dict(r)) for r in rows]


async def start_discovery(
    home: Home, *, wait: bool = False, wait_timeout: float = 1800.0
) -> dict[str, Any]:
    """Start `discover-local`, or join the run already in progress."""
    from jobctrl.workflows.discover import DISCOVER_WORKFLOW_ID, DiscoverWorkflow
    from jobctrl.workflows.models import DiscoverInput

    client = await connect(home)
    store = Store.open(home)
    config_mod.load_config(home)  # a broken config.yaml is reported here, not in the run
    handle = await client.start_workflow(
        DiscoverWorkflow.run,
        DiscoverInput("local", retry_settings(Settings(store))),
        id=DISCOVER_WORKFLOW_ID,
        task_queue=default_task_queue(),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )
    run_id = handle.result_run_id
    jobs.record_workflow_started(
        store,
        workflow_id=DISCOVER_WORKFLOW_ID,
        run_id=run_id or "",
        workflow_type="DiscoverWorkflow",
        job_id=None,
    )
    if wait:
        if not await worker_polling(client):
            raise JobctrlError(
                "discovery is queued, but no worker serves task queue "
                f"{default_task_queue()!r}: start one with `jobctrl worker`",
                code="no_worker",
            )
        try:
            await asyncio.wait_for(
                client.get_workflow_handle(DISCOVER_WORKFLOW_ID, run_id=run_id).result(),
                wait_timeout,
            )
        except WorkflowFailureError:
            pass  # partial or failed: the run row says which source and why
        except TimeoutError:
            raise JobctrlError(
                f"discovery is still running after {wait_timeout:.0f} s", code="wait_timeout"
            ) from None
    runs = [r for r in discovery_runs(home) if r["runId"] == run_id]
    base = {"workflowId": DISCOVER_WORKFLOW_ID, "runId": run_id, "status": "starting"}
    return runs[0] if runs else base


async def cancel_discovery(home: Home) -> dict[str, Any]:
    from temporalio.client import WorkflowExecutionStatus
    from temporalio.service import RPCError

    from jobctrl.workflows.discover import DISCOVER_WORKFLOW_ID

    client = await connect(home)
    handle = client.get_workflow_handle(DISCOVER_WORKFLOW_ID)
    try:
        description = await handle.describe()
    except RPCError:
        raise JobctrlError("no discovery run to cancel", code="not_running") from None
    if description.status != WorkflowExecutionStatus.RUNNING:
        raise JobctrlError("no discovery run is in progress", code="not_running")
    await handle.cancel()
    return {
        "workflowId": DISCOVER_WORKFLOW_ID,
        "runId": description.run_id,
        "cancelRequested": True,
    }


def list_sources(home: Home) -> list[dict[str, Any]]:
    return [s.model_dump(by_alias=True) for s in config_mod.load_config(home).sources]


def _source_entry(kind: str, name: str, base_url: str | None) -> dict[str, Any]:
    from jobctrl.sources.base import KINDS

    if kind not in KINDS:
        raise JobctrlError(f"unknown source kind {kind!r}; one of: {', '.join(KINDS)}")
    if not name.strip():
        raise JobctrlError("a source needs a name (board token, company or URL)")
    entry = {"kind": kind, "name": name.strip()}
    if base_url:
        entry["base_url"] = base_url.strip()
    return entry


def _add_sources(home: Home, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Append the entries not configured yet, in one edit of config.yaml; those added."""
    added: list[dict[str, Any]] = []

    def change(sources: list[dict[str, Any]]) -> None:
        for entry in entries:
            if not any(
                s.get("kind") == entry["kind"] and s.get("name") == entry["name"] for s in sources
            ):
                sources.append(entry)
                added.append(entry)

    config_mod.edit_sources(home, change)
    return added


def add_source(home: Home, kind: str, name: str, base_url: str | None) -> dict[str, Any]:
    entry = _source_entry(kind, name, base_url)
    if not _add_sources(home, [entry]):
        raise JobctrlError(f"{kind} source {name!r} is already configured", code="exists")
    return entry


def remove_source(home: Home, name: str) -> int:
    removed = 0

    def change(sources: list[dict[str, Any]]) -> None:
        nonlocal removed
        keep = [s for s in sources if s.get("name") != name]
        removed = len(sources) - len(keep)
        sources[:] = keep

    config_mod.edit_sources(home, change)
    if not removed:
        raise JobctrlError(f"no source named {name!r} (see `jobctrl sources list`)")
    return removed


async def import_career_ops(home: Home, directory: Path) -> dict[str, Any]:
    """portals.yml → sources; data/pipeline.md inbox → jobs (added like `jobctrl add`)."""
    from jobctrl.sources.career_ops import import_career_ops as read_career_ops

    if not directory.is_dir():
        raise JobctrlError(f"{directory} is not a directory")
    try:
        configs, urls = read_career_ops(directory)
    except ValueError as exc:
        raise JobctrlError(str(exc), code="invalid_input") from None
    entries = [_source_entry(c.kind, c.name, c.base_url) for c in configs]
    added = _add_sources(home, entries) if entries else []
    skipped = len(entries) - len(added)
    jobs_added = [(await add_job(home, url))["jobId"] for url in urls] if urls else []
    return {"sourcesAdded": added, "sourcesSkipped": skipped, "jobsAdded": jobs_added}


def import_profile(home: Home, path: Path) -> dict[str, Any]:
    """Replace the profile in config.yaml with one read from a JSON Resume or RenderCV
    file; the new profile is recorded as a new version (work in flight keeps its own)."""
    from jobctrl.profile_import import load_profile_file

    try:
        profile = load_profile_file(path)
    except FileNotFoundError:
        raise JobctrlError(f"no file {path}", code="invalid_input") from None
    except ValueError as exc:
        raise JobctrlError(str(exc), code="invalid_input") from None
    config_mod.edit_profile(home, profile)
    version = profiles.version_of(Store.open(home), profile)
    return {
        "version": version,
        "name": profile.name,
        "skills": len(profile.skills),
        "experience": len(profile.experience),
        "education": len(profile.education),
    }


def show_profile(home: Home) -> dict[str, Any]:
    profile = config_mod.load_config(home).profile
    version = profiles.version_of(Store.open(home), profile)
    return {"version": version, "profile": profile.model_dump(mode="json")}


def job_materials(home: Home, ref: str) -> list[dict[str, Any]]:
    """Each material of a job: kind, generation, approval state and its PDF's path."""
    from jobctrl.stages import materials

    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    return [
        {
            "jobId": job_id,
            "kind": m["kind"],
            "generation": m["generation"],
            "approval": m["state"],
            "provider": m["provider"],
            "model": m["model"],
            "profileVersion": m["profile_version"],
            "pdfArtifact": m["pdf_artifact"],
            "pdfUrl": f"/v1/artifacts/{m['pdf_artifact']}" if m["pdf_artifact"] else None,
            "pdfPath": str(store.artifacts.path_for(m["pdf_artifact"]))
            if m["pdf_artifact"]
            else None,
            "createdAt": _iso(m["created_at"]),
            "decidedAt": _iso(m["decided_at"]),
        }
        for m in materials.list_materials(store, job_id)
    ]


def decide_materials(home: Home, ref: str, decision: str) -> list[dict[str, Any]]:
    from jobctrl.stages import materials

    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    return materials.decide(store, job_id, "approved" if decision == "approve" else "rejected")


def list_lanes(home: Home) -> list[dict[str, Any]]:
    """Each lane's provider and model, and whether its key variable is set (never its value)."""
    import os

    from jobctrl.config import LANES, LaneProvider
    from jobctrl.llm import remote

    providers = config_mod.load_config(home).providers
    rows = []
    for lane in LANES:
        lp = providers.get(lane) or LaneProvider()
        key_env = remote.key_env(lp.provider, lp.base_url, lp.api_key_env)
        rows.append(
            {
                "lane": lane,
                "provider": lp.provider,
                "model": lp.model,
                "baseUrl": lp.base_url,
                "apiKeyEnv": key_env,
                "apiKeySet": bool(key_env and os.environ.get(key_env)),
            }
        )
    return rows


def set_lane(
    home: Home, lane: str, provider: str, model: str, base_url: str | None, api_key_env: str | None
) -> dict[str, Any]:
    from jobctrl.config import LANES, PROVIDERS, LaneProvider

    if lane not in LANES:
        raise JobctrlError(f"unknown lane {lane!r}; one of: {', '.join(LANES)}")
    if provider not in PROVIDERS:
        raise JobctrlError(f"unknown provider {provider!r}; one of: {', '.join(PROVIDERS)}")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise JobctrlError("--base-url must be an http(s) URL")
    if api_key_env and not api_key_env.replace("_", "").isalnum():
        raise JobctrlError("--api-key-env takes the NAME of an environment variable")
    lp = LaneProvider(provider=provider, model=model, base_url=base_url, api_key_env=api_key_env)
    config_mod.set_lane(home, lane, lp)
    return next(r for r in list_lanes(home) if r["lane"] == lane)


async def regenerate_materials(home: Home, ref: str, *, wait: bool = False) -> dict[str, Any]:
    """Write a new generation of the resume and letter; the approved one stays accepted
    until the new one is approved."""
    from jobctrl.stages import materials

    client = await connect(home)
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    if jobs.score_row(store, job_id) is None:
        raise JobctrlError(f"job {job_id} has no score yet", code="missing_input")
    generation = 1 + max(
        (m["generation"] for m in materials.list_materials(store, job_id) if m["kind"] == "resume"),
        default=0,
    )
    jobs.reset_stages(store, job_id, ("tailor", "cover", "pdf"), "regenerate")
    key = jobs.job_row(store, job_id)["idempotency_key"]
    workflow_id, run_id = await start_preparation(
        client,
        home,
        store,
        job_id,
        key,
        workflow_id=f"prepare-regenerate-{job_id}-{generation}",
        materials=True,
    )
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    if wait:
        with contextlib.suppress(WorkflowFailureError):  # the stage rows say what failed
            await asyncio.wait_for(handle.result(), 600)
    return {"jobId": job_id, "workflowId": workflow_id, "runId": run_id, "generation": generation}


class WorkerUnavailableError(JobctrlError):
    """No worker (or no Temporal server) would run a command's work: nothing was changed."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message, code="worker_runtime_unavailable")


async def ready_client(home: Home, patience: float = 2.0) -> Client:
    """A client whose task queue some worker polls right now, or WorkerUnavailableError."""
    try:
        client = await connect(home)
    except ServerUnavailableError as exc:
        raise WorkerUnavailableError(exc.message) from None
    if not await worker_polling(client, patience=patience):
        raise WorkerUnavailableError(
            f"no worker serves task queue {default_task_queue()!r}: start one with `jobctrl up`"
        )
    return client


async def retry_stage(home: Home, ref: str, stage: str | None = None) -> dict[str, Any]:
    """Run a failed stage again (and the stages after it).

    The worker must be reachable first: without one this raises
    ``worker_runtime_unavailable`` and the failed stage row and its events stay as they
    are. Then the stage is reset (a ``StageReset`` event) and a preparation execution
    with a deterministic id per observed failure starts; stages that succeeded are kept.
    """
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    failed = [r for r in jobs.stage_rows(store, job_id) if r["state"] == "failed"]
    if stage is not None:
        failed = [r for r in failed if r["stage"] == stage]
    if not failed:
        what = f"its {stage} stage has not failed" if stage else "no stage of it has failed"
        raise JobctrlError(f"nothing to retry for job {job_id}: {what}", code="nothing_to_retry")
    row = failed[0]
    client = await ready_client(home)
    # One retry per observed failure: a second request for the same failure joins it.
    failed_at = row["finished_at"].isoformat() if row["finished_at"] else ""
    workflow_id = ids.stage_workflow_id("retry", row["stage"], job_id, failed_at)
    jobs.reset_stages(store, job_id, (row["stage"],), "retry")
    key = jobs.job_row(store, job_id)["idempotency_key"]
    workflow_id, run_id = await start_preparation(
        client, home, store, job_id, key, workflow_id=workflow_id
    )
    return {"jobId": job_id, "stage": row["stage"], "workflowId": workflow_id, "runId": run_id}


def change_settings(home: Home, changes: dict[str, Any]) -> dict[str, Any]:
    """Validate every change, then write them all at once; returns every setting.

    A value may be typed JSON (number, bool, list, object) or the text the CLI takes.
    """
    if not changes:
        raise JobctrlError("name at least one setting to change", code="invalid_input")
    parsed = {
        key: Settings.parse(key, value if isinstance(value, str) else json.dumps(value))
        for key, value in changes.items()
    }
    settings = Settings(Store.open(home))
    settings.set_values(parsed)  # one transaction: all of them or none
    return settings.all()


def material_pdf(home: Home, artifact_id: str) -> tuple[bytes, str]:
    """The PDF of a material and a file name for it. Only material PDFs are served: other
    artifacts (fetched pages among them) never leave the store this way."""
    from jobctrl.domain.errors import NotFoundError

    m = schema.materials
    store = Store.open(home)
    with store.read() as conn:
        row = conn.execute(
            select(m.c.job_id, m.c.kind, m.c.generation).where(m.c.pdf_artifact == artifact_id)
        ).first()
    if row is None:
        raise NotFoundError(f"no material PDF {artifact_id[:12]}", code="artifact_not_found")
    name = f"{'resume' if row.kind == 'resume' else 'cover-letter'}-{row.job_id}-{row.generation}"
    return store.artifacts.get(artifact_id), f"{name}.pdf"
