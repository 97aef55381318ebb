"""Application services: one function per command, shared by the CLI (and later the API).

Each service takes a ``Home`` and plain arguments and returns plain data (camelCase keys),
so the CLI prints it as text or JSON and the API will serve the same shapes.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from sqlalchemy import select
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from jobctrl import config as config_mod
from jobctrl.domain import ids
from jobctrl.domain.errors import JobctrlError
from jobctrl.home import Home
from jobctrl.store import jobs, projections, schema
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.connection import connect, default_task_queue
from jobctrl.workflows.models import PrepInput, RetrySettings
from jobctrl.workflows.prep import JobPreparationWorkflow


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def init_home(home: Home, *, profile: dict[str, Any] | None = None) -> dict[str, Any]:
    wrote = config_mod.write_template(home, profile=profile)
    store = Store.open(home)
    store.dispose()
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
    try:
        job = jobs.create_job(store, url)
        workflow_id = ids.prep_workflow_id(job.idempotency_key)
        inp = PrepInput(job.job_id, job.idempotency_key, retry_settings(Settings(store)))
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
            handle = client.get_workflow_handle(workflow_id)
            run_id = (await handle.describe()).run_id
        if not run_id:
            raise JobctrlError(f"Temporal gave no run id for {workflow_id}", code="temporal")
        jobs.record_workflow_started(
            store,
            workflow_id=workflow_id,
            run_id=run_id,
            workflow_type="JobPreparationWorkflow",
            job_id=job.job_id,
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
    finally:
        store.dispose()


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
    with store.read() as conn:
        listed = (
            conn.execute(
                select(schema.job_list_projections).where(
                    schema.job_list_projections.c.job_id == job_id
                )
            )
            .mappings()
            .first()
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
        "status": listed["status"] if listed else "pending",
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
        "createdAt": _iso(row["created_at"]),
        "updatedAt": _iso(row["updated_at"]),
    }


def show_job(home: Home, ref: str) -> dict[str, Any]:
    store = Store.open(home)
    try:
        return job_view(store, jobs.resolve_job_id(store, ref))
    finally:
        store.dispose()


def list_jobs(home: Home) -> list[dict[str, Any]]:
    store = Store.open(home)
    jl = schema.job_list_projections
    try:
        with store.read() as conn:
            rows = conn.execute(
                select(jl).order_by(jl.c.score.is_(None), jl.c.score.desc(), jl.c.created_at)
            ).mappings()
            return [
                {
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
                for r in rows
            ]
    finally:
        store.dispose()


def rebuild_projections(home: Home) -> dict[str, int]:
    store = Store.open(home)
    try:
        with store.write() as tx:
            folded = projections.rebuild(tx.conn)
        return {"eventsFolded": folded}
    finally:
        store.dispose()
