"""Commands on jobs: add a posting, run a failed stage again."""

from __future__ import annotations

import asyncio
from typing import Any

from jobctrl.app import runtime
from jobctrl.app.queries import job_view
from jobctrl.domain import ids
from jobctrl.domain.errors import INVALID_INPUT, NOTHING_TO_RETRY, JobctrlError
from jobctrl.domain.stages import StageState
from jobctrl.home import Home
from jobctrl.store import jobs, stage_states
from jobctrl.store.store import Store
from jobctrl.workflows import starts

__all__ = ["add_job", "retry_stage"]


async def add_job(
    home: Home, url: str, *, wait: bool = False, wait_timeout: float = 300.0
) -> dict[str, Any]:
    """Create (or find) the job for ``url`` and start its one preparation workflow; with
    ``wait``, return once it has finished (a failure is on the job's stages)."""
    if not url or not url.strip():
        raise JobctrlError("a posting URL is required", code=INVALID_INPUT)
    client = await runtime.client_for(home)
    store = Store.open(home)
    job = await asyncio.to_thread(jobs.create_job, store, url)
    started = await starts.start_preparation(client, home, store, job.job_id, job.idempotency_key)
    if wait:
        await runtime.ensure_worker_polls(client, f"job {job.job_id}")
        await starts.wait_for_result(
            client,
            started,
            wait_timeout,
            still_running=f"job {job.job_id} is still being prepared after {wait_timeout:.0f} s; "
            "is a worker running? (`jobctrl worker`)",
        )
    view = await asyncio.to_thread(job_view, store, job.job_id)
    view.update(created=job.created, workflowId=started.workflow_id, runId=started.run_id)
    return view


async def retry_stage(home: Home, ref: str, stage: str | None = None) -> dict[str, Any]:
    """Run a failed stage again (and the stages after it).

    The worker must be reachable first: without one this raises
    ``worker_runtime_unavailable`` and the failed stage row and its events stay as they
    are. Then the stage is reset (a ``StageReset`` event) and a preparation execution
    with a deterministic id per observed failure starts; stages that succeeded are kept.
    """
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    failed = [r for r in stage_states.stage_rows(store, job_id) if r["state"] == StageState.FAILED]
    if stage is not None:
        failed = [r for r in failed if r["stage"] == stage]
    if not failed:
        what = f"its {stage} stage has not failed" if stage else "no stage of it has failed"
        raise JobctrlError(f"nothing to retry for job {job_id}: {what}", code=NOTHING_TO_RETRY)
    row = failed[0]
    client = await runtime.ready_client(home)
    # One retry per observed failure: a second request for the same failure joins it.
    failed_at = row["finished_at"].isoformat() if row["finished_at"] else ""
    workflow_id = ids.stage_workflow_id("retry", row["stage"], job_id, failed_at)
    stage_states.reset_stages(store, job_id, (row["stage"],), "retry")
    key = jobs.job_row(store, job_id)["idempotency_key"]
    started = await starts.start_preparation(
        client, home, store, job_id, key, workflow_id=workflow_id
    )
    return {
        "jobId": job_id,
        "stage": row["stage"],
        "workflowId": started.workflow_id,
        "runId": started.run_id,
    }
