"""Commands on jobs: add a posting, run a failed stage again."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import TYPE_CHECKING

from jobctrl.app.models import View
from jobctrl.app.queries import JobView, job_view
from jobctrl.domain import ids
from jobctrl.domain.errors import INVALID_INPUT, NOTHING_TO_RETRY, STAGE_BUSY, JobctrlError
from jobctrl.domain.posting_url import posting_url
from jobctrl.domain.stages import JobStatus, StageState, job_status
from jobctrl.home import Home
from jobctrl.store import jobs, stage_states, start_intents, workflow_runs
from jobctrl.store.store import Store

if TYPE_CHECKING:  # imported by the functions that start or wait (see wait_for_jobs)
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

__all__ = [
    "AddedJob",
    "JobProgress",
    "RetryStarted",
    "add_job",
    "add_jobs",
    "job_progress",
    "retry_stage",
    "wait_for_jobs",
]


class AddedJob(JobView):
    """The job a posting URL names, whether this call created it, and the preparation
    execution it started (or joined)."""

    created: bool
    workflow_id: str
    run_id: str


class JobProgress(View):
    """A job's stage states now, for a command's live progress while it waits;
    ``finished``: no stage of it waits or runs any more (prepared, skipped or failed)."""

    job_id: str
    status: str
    finished: bool
    stages: dict[str, str]
    error_codes: dict[str, str]


class RetryStarted(View):
    """The stage run again and the preparation execution that runs it."""

    job_id: str
    stage: str
    workflow_id: str
    run_id: str


async def add_job(
    home: Home, url: str, *, wait: bool = False, wait_timeout: float = 300.0
) -> AddedJob:
    """Create (or find) the job for ``url`` and start its one preparation workflow; with
    ``wait``, return once it has finished (a failure is on the job's stages).

    The job and the intent to prepare it are saved first: without a Temporal server (or
    when the start fails) the error says the job is kept, and the worker starts it."""
    url = posting_url(url)  # refused up front: nothing is stored (issue 30)
    store = Store.open(home)
    job = await asyncio.to_thread(_admit, store, url)
    client, [started] = await _start(home, store, [job])
    if wait:
        await _wait(home, client, [job.job_id], [started], wait_timeout)
    return await asyncio.to_thread(_view, store, job.job_id, job.created, started)


async def add_jobs(
    home: Home, urls: list[str], *, wait: bool = False, wait_timeout: float = 300.0
) -> list[AddedJob]:
    """``add_job`` for several postings: all are saved (each with its start intent) and
    started, then, with ``wait``, waited for together; their views in ``urls`` order."""
    if not urls:
        raise JobctrlError("a posting URL is required", code=INVALID_INPUT)
    urls = [posting_url(url) for url in urls]  # every one checked before any is stored
    store = Store.open(home)
    admitted = [await asyncio.to_thread(_admit, store, url) for url in urls]
    client, started = await _start(home, store, admitted)
    if wait:
        await _wait(home, client, [j.job_id for j in admitted], started, wait_timeout)
    return [
        await asyncio.to_thread(_view, store, j.job_id, j.created, s)
        for j, s in zip(admitted, started, strict=True)
    ]


async def wait_for_jobs(
    home: Home, views: list[AddedJob], wait_timeout: float = 300.0
) -> list[AddedJob]:
    """Wait until the preparations ``add_jobs`` started (its views) have finished; the
    views read again."""
    # Temporal only where a job is started or waited for: `jobctrl jobs`/`show` import
    # this module and must not load the Temporal client (issue 26)
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

    client = await runtime.client_for(home, starting_patience=runtime.WORKER_START_PATIENCE)
    store = Store.open(home)
    started = [starts.Started(v.workflow_id, v.run_id) for v in views]
    await _wait(home, client, [v.job_id for v in views], started, wait_timeout)
    return [
        await asyncio.to_thread(_view, store, v.job_id, v.created, s)
        for v, s in zip(views, started, strict=True)
    ]


def job_progress(home: Home, job_ids: list[str]) -> list[JobProgress]:
    """Each job's stage states now, for a command's live progress while it waits."""
    store = Store.open(home)
    result = []
    for job_id in job_ids:
        rows = stage_states.stage_rows(store, job_id)
        status, _, _ = job_status({r["stage"]: (r["state"], r["error_code"]) for r in rows})
        result.append(
            JobProgress(
                job_id=job_id,
                status=status.value,
                finished=status not in (JobStatus.PENDING, JobStatus.RUNNING),
                stages={r["stage"]: r["state"] for r in rows},
                error_codes={r["stage"]: r["error_code"] for r in rows if r["error_code"]},
            )
        )
    return result


async def _start(
    home: Home, store: Store, admitted: list[jobs.NewJob]
) -> tuple[runtime.Client, list[starts.Started]]:
    """Start each admitted job's preparation; a worker that is starting is waited for
    briefly. On failure the jobs stay saved and the error says so."""
    # Temporal only here (see wait_for_jobs)
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

    try:
        client = await runtime.client_for(home, starting_patience=runtime.WORKER_START_PATIENCE)
        started = [
            await starts.start_preparation(client, home, store, job.job_id, job.idempotency_key)
            for job in admitted
        ]
    except JobctrlError as exc:
        saved = (
            f"job {admitted[0].job_id} is saved"
            if len(admitted) == 1
            else f"jobs {', '.join(j.job_id for j in admitted)} are saved"
        )
        them = "it" if len(admitted) == 1 else "them"
        raise JobctrlError(
            f"{exc.message} ({saved}: the worker prepares {them} once it can)", code=exc.code
        ) from None
    return client, started


async def _wait(
    home: Home,
    client: runtime.Client,
    job_ids: list[str],
    started: list[starts.Started],
    wait_timeout: float,
) -> None:
    # Temporal only here (see wait_for_jobs)
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

    what = ", ".join(f"job {job_id}" for job_id in job_ids)
    if not await runtime.worker_polling(client, patience=0.0):
        # A worker that is starting polls once it has reconciled: give it the time it is
        # given to bring its server up (not less than the usual moment). Only asked when
        # nothing polls yet: it scans every process of the machine.
        since = await asyncio.to_thread(runtime.worker_started_at, home)
        patience = 5.0
        if since is not None:
            patience = max(patience, since + runtime.WORKER_START_LIMIT - time.time())
        await runtime.ensure_worker_polls(client, what, patience=patience)
    await asyncio.gather(
        *(
            starts.wait_for_result(
                client,
                s,
                wait_timeout,
                still_running=f"job {job_id} is still being prepared after "
                f"{wait_timeout:.0f} s; is a worker running? (`jobctrl up`)",
            )
            for job_id, s in zip(job_ids, started, strict=True)
        )
    )


def _view(store: Store, job_id: str, created: bool, started: starts.Started) -> AddedJob:
    view = job_view(store, job_id)
    return AddedJob(
        **dict(view), created=created, workflow_id=started.workflow_id, run_id=started.run_id
    )


def _admit(store: Store, url: str) -> jobs.NewJob:
    """The job and the intent to start its preparation, in one transaction: if starting
    fails after this commit, the worker's reconciler starts it (nothing is orphaned)."""
    with store.write() as tx:
        job = jobs.create_job_in(tx, url)
        start_intents.intend(tx, ids.prep_workflow_id(job.idempotency_key, tx.tenant), job.job_id)
    return job


async def retry_stage(home: Home, ref: str, stage: str | None = None) -> RetryStarted:
    """Run a failed stage again (and the stages after it).

    The worker must be reachable first: without one this raises
    ``worker_runtime_unavailable`` and the failed stage row and its events stay as they
    are. Then the stage is reset (a ``StageReset`` event) and a preparation execution
    with a deterministic id per observed failure starts; stages that succeeded are kept.

    A job with a waiting stage and no running preparation (Temporal says which run) is
    started too: under its start intent's own id when `add` left one unstarted (the one
    execution the worker's reconciler would start), else like a failure.
    """
    # Temporal only here (see wait_for_jobs)
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    rows = stage_states.stage_rows(store, job_id)
    # A stage running now, or held by an automatic recovery cohort, is that execution's:
    # a second one would ask the provider again for the same step.
    if busy := [r["stage"] for r in rows if r["state"] == StageState.RUNNING or r["reserved_by"]]:
        raise JobctrlError(
            f"job {job_id}'s {busy[0]} stage is being worked on now (running or queued for "
            "automatic recovery); retry once it has finished, or `jobctrl cancel` it",
            code=STAGE_BUSY,
        )
    if stage is not None:
        rows = [r for r in rows if r["stage"] == stage]
    failed = [r for r in rows if r["state"] == StageState.FAILED]
    waiting = [r for r in rows if r["state"] == StageState.PENDING]
    what = f"its {stage} stage has not failed" if stage else "no stage of it has failed"
    if not failed and not waiting:
        raise JobctrlError(f"nothing to retry for job {job_id}: {what}", code=NOTHING_TO_RETRY)
    row = failed[0] if failed else waiting[0]
    client = await runtime.ready_client(home)
    key = jobs.job_row(store, job_id)["idempotency_key"]
    if failed:
        workflow_id = _retry_id(store, job_id, row["stage"], row["finished_at"])
        stage_states.reset_stages(store, job_id, (row["stage"],), "retry")
    elif intended := start_intents.unstarted_for(store, job_id):
        workflow_id = intended  # the one execution the worker's reconciler would start
    elif await starts.any_running(
        client,
        [ids.prep_workflow_id(key, store.tenant), *workflow_runs.preparation_ids(store, job_id)],
    ):
        raise JobctrlError(
            f"nothing to retry for job {job_id}: {what} and its preparation is running",
            code=NOTHING_TO_RETRY,
        )
    else:
        workflow_id = _retry_id(store, job_id, row["stage"], row["updated_at"])
    started = await starts.start_preparation(
        client, home, store, job_id, key, workflow_id=workflow_id
    )
    return RetryStarted(
        job_id=job_id,
        stage=row["stage"],
        workflow_id=started.workflow_id,
        run_id=started.run_id,
    )


def _retry_id(store: Store, job_id: str, stage: str, seen_at: datetime | None) -> str:
    """One retry per observed failure (or wait): a second request for the same joins it."""
    occasion = seen_at.isoformat() if seen_at else ""
    return ids.stage_workflow_id(ids.RETRY_KIND, stage, job_id, occasion, store.tenant)
