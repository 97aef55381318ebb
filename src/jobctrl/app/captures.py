"""Saving a posting from the person's browser (issue 32): ``POST /v1/captures``, its
status on a page (``GET /v1/captures/status``) and the jobs waiting for the browser
(``GET /v1/extension/tasks``).

A capture is untrusted input: its URL is checked as `add` checks one, its size bounded
(by the API), its HTML sanitised (``fetch.capture``) before it is stored, and it must
hold a posting that Enrich's own reading finds. The job is created as `add` creates one
(same dedupe: a posting discovery found is the same job) and its preparation started the
same way; Enrich then reads the capture instead of fetching. A job whose Enrich the site
refused to a robot (``browser_capture_needed``) is continued: its Enrich put back to
pending and a preparation started under one id per refusal (a second capture for the
same refusal joins it), Discover untouched.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any, ClassVar
from urllib.parse import urlsplit

from jobctrl.app.models import Items, Sparse, Timestamp, View
from jobctrl.app.queries import job_view
from jobctrl.domain import ids
from jobctrl.domain.errors import FORBIDDEN, INVALID_INPUT, JobctrlError, NotFoundError
from jobctrl.domain.extension import BROWSER_CAPTURE_NEEDED, CAPTURE_SOURCE
from jobctrl.domain.posting_url import posting_url
from jobctrl.domain.stages import Stage
from jobctrl.fetch.capture import capture_posting, capture_snapshot, plain_field
from jobctrl.home import Home
from jobctrl.store import artifacts, captures, jobs, stage_states, start_intents
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "BrowserTask",
    "Capture",
    "CaptureSaved",
    "CaptureStatus",
    "browser_tasks",
    "capture_status",
    "save_capture",
    "set_tasks",
]

RESET_REASON = "browser_capture"
HOSTS_SETTING = "extension.capture_hosts"
TASKS_SETTING = "extension.tasks"


class Capture(View):
    """What the extension sent (the API bounds its sizes)."""

    url: str
    html: str | None = None
    jsonld: Any = None
    title: str | None = None
    company: str | None = None
    location: str | None = None
    description: str | None = None


class CaptureSaved(View):
    """The job the capture saved, and whether this capture created it."""

    job_id: str
    created: bool


class CaptureStatus(Sparse):
    """Whether jobctrl has the posting at ``url``: its job, score and next action (those
    three only when it is known)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"job_id", "score", "next_action"})
    known: bool
    job_id: str | None = None
    score: int | None = None
    next_action: str | None = None


class BrowserTask(View):
    """A job waiting for the person's browser: its URL, why (the refusal's code) and
    since when."""

    job_id: str
    url: str
    condition: str
    error_code: str
    since: Timestamp


class BrowserTasks(Items[BrowserTask]):
    """The jobs waiting for the person's browser; ``enabled`` false: the queue is stopped
    (setting extension.tasks) and the extension is offered none."""

    enabled: bool


def _host_allowed(url: str, allowed: list[str]) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return any(host == h or host.endswith("." + h) for h in allowed)


def _admit(
    store: Store, url: str, sha: str, size: int, fields: dict[str, Any], token: str | None
) -> tuple[jobs.NewJob, str | None]:
    """The job (created as `add` creates one), the capture and the start intent, in one
    transaction; the workflow id to start (None: nothing to start)."""
    with store.write() as tx:
        job = jobs.create_job_in(tx, url, source=CAPTURE_SOURCE)
        artifacts.record(tx, sha, CAPTURE_SOURCE, "text/html; charset=utf-8", size)
        captures.record(tx, secrets.token_hex(16), job.job_id, url, sha, fields, token)
        workflow_id: str | None = None
        if job.created:
            workflow_id = ids.prep_workflow_id(job.idempotency_key, tx.tenant)
        elif (blocked := captures.blocked_stage(tx, job.job_id)) is not None:
            seen = blocked["finished_at"] or blocked["updated_at"]
            occasion = seen.isoformat() if seen else ""
            workflow_id = ids.stage_workflow_id(
                ids.CAPTURE_KIND, Stage.ENRICH.value, job.job_id, occasion, tx.tenant
            )
            stage_states.reset_in(tx, job.job_id, (Stage.ENRICH.value,), RESET_REASON)
        if workflow_id is not None:
            start_intents.intend(tx, workflow_id, job.job_id)
    return job, workflow_id


async def save_capture(home: Home, capture: Capture, token_name: str | None) -> CaptureSaved:
    """Save the posting the browser sent and start (or continue) its preparation. The
    job is kept when no worker runs: the worker starts it from its start intent."""
    url = posting_url(capture.url)
    store = Store.open(home)
    allowed = await asyncio.to_thread(lambda: Settings(store).get(HOSTS_SETTING))
    if allowed and not _host_allowed(url, allowed):
        host = urlsplit(url).hostname
        raise JobctrlError(
            f"saving postings from {host} is not allowed (setting {HOSTS_SETTING})",
            code=FORBIDDEN,
        )
    snapshot = capture_snapshot(url, capture.html, capture.jsonld)
    fields = {
        "title": plain_field(capture.title),
        "company": plain_field(capture.company),
        "location": plain_field(capture.location),
        "description": capture.description or None,
    }
    posting = capture_posting(snapshot, url, fields)
    if not posting.title and not posting.description.strip():
        raise JobctrlError(
            "nothing to save: the page shows no job posting that could be read",
            code=INVALID_INPUT,
        )
    sha = store.artifacts.put(snapshot)
    job, workflow_id = await asyncio.to_thread(
        _admit, store, url, sha, len(snapshot), fields, token_name
    )
    if workflow_id is not None:
        await _start(home, store, job.job_id, job.idempotency_key, workflow_id)
    return CaptureSaved(job_id=job.job_id, created=job.created)


async def _start(home: Home, store: Store, job_id: str, key: str, workflow_id: str) -> None:
    # Temporal only where a job is started (as app.jobs): status reads must not load it.
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

    try:
        client = await runtime.client_for(home, starting_patience=runtime.WORKER_START_PATIENCE)
        await starts.start_preparation(client, home, store, job_id, key, workflow_id=workflow_id)
    except JobctrlError:
        pass  # kept with its start intent: the worker's reconciler starts it


def capture_status(home: Home, url: str) -> CaptureStatus:
    """Whether the posting at ``url`` is a job here (the same dedupe as `add`)."""
    try:
        url = posting_url(url)
    except JobctrlError:
        return CaptureStatus(known=False)
    store = Store.open(home)
    job_id = ids.job_id_for(ids.idempotency_key(ids.canonical_url(url), store.tenant))
    try:
        jobs.resolve_job_id(store, job_id)
    except NotFoundError:
        return CaptureStatus(known=False)
    view = job_view(store, job_id)
    return CaptureStatus(known=True, job_id=job_id, score=view.score, next_action=view.next_action)


def browser_tasks(home: Home, limit: int = 50) -> BrowserTasks:
    """The jobs waiting for the person's browser (none offered while the queue is
    stopped)."""
    store = Store.open(home)
    enabled = bool(Settings(store).get(TASKS_SETTING))
    rows = captures.waiting(store, limit) if enabled else []
    items = [BrowserTask(condition=BROWSER_CAPTURE_NEEDED, **r) for r in rows]
    return BrowserTasks(items=items, enabled=enabled)


def set_tasks(home: Home, enabled: bool) -> BrowserTasks:
    """Stop (or start again) offering jobs to the extension."""
    Settings(Store.open(home)).set_value(TASKS_SETTING, enabled)
    return browser_tasks(home)
