"""Contact research, the commands (issue 33): start a run for a job over the sources the
person names and the policy allows, see its candidates with their evidence, confirm or
dismiss them.

A run reads the job's posting (when ``contacts.sources`` allows it), the text the person
pastes, and the pages they name: a page on the company's own site is a ``company_pages``
source, any other an ``any_pages`` one, refused with a sentence unless the policy allows
it. Nothing else is fetched. The same request for the same job is one run: asked again,
its task is the answer (``requestId`` makes a new one).
"""

from __future__ import annotations

import hashlib
import json
from urllib.parse import urlsplit

from jobctrl.app import runtime
from jobctrl.app.models import Items, Timestamp, View
from jobctrl.domain.clock import as_utc
from jobctrl.domain.contacts import (
    MAX_SOURCES,
    PASTE_LIMIT,
    SourceKind,
    SourceRequest,
    TaskStatus,
    page_kind,
    refusal,
)
from jobctrl.domain.errors import (
    CONTACT_NOT_FOUND,
    CONTACT_SOURCE_REFUSED,
    INVALID_INPUT,
    JobctrlError,
    NotFoundError,
)
from jobctrl.home import Home
from jobctrl.store import contact_research, contacts, jobs
from jobctrl.store.contact_research import CandidateRow, TaskRow
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.workflows import starts

__all__ = [
    "CandidateView",
    "Confirmed",
    "Dismissed",
    "ResearchTask",
    "SourceAttempt",
    "confirm",
    "dismiss",
    "job_candidates",
    "research",
    "research_task",
]


class SourceAttempt(View):
    index: int
    kind: str
    source: str
    outcome: str  # read | refused | failed
    code: str | None = None
    candidates: int = 0


class CandidateView(View):
    candidate_id: str
    task_id: str
    job_id: str
    name: str
    role: str
    title: str | None
    email: str | None
    evidence: str
    source: str
    confidence: float
    status: str  # new | confirmed | dismissed
    contact_id: str | None


class ResearchTask(View):
    task_id: str
    job_id: str
    status: str  # queued | running | succeeded | failed
    workflow_id: str | None
    error_code: str | None
    sources: list[str]
    attempts: list[SourceAttempt]
    candidates: list[CandidateView]
    created_at: Timestamp
    finished_at: Timestamp | None


class Confirmed(View):
    items: list[CandidateView]


class Dismissed(View):
    candidate_ids: list[str]


def candidate_view(row: CandidateRow) -> CandidateView:
    return CandidateView.from_row(row)


def task_view(store: Store, task: TaskRow) -> ResearchTask:
    return ResearchTask(
        task_id=task.task_id,
        job_id=task.job_id,
        status=task.status,
        workflow_id=task.workflow_id,
        error_code=task.error_code,
        sources=[SourceRequest(**s).label() for s in task.sources],
        attempts=[
            SourceAttempt(
                index=int(a["index"]),
                kind=a["kind"],
                source=a["source"],
                outcome=a["outcome"],
                code=a.get("code"),
                candidates=int(a.get("candidates", 0)),
            )
            for a in task.attempts
        ],
        candidates=[
            candidate_view(c) for c in contact_research.candidate_rows(store, task_id=task.task_id)
        ],
        created_at=as_utc(task.created_at),
        finished_at=as_utc(task.finished_at) if task.finished_at else None,
    )


def _sources(
    store: Store, job: dict[str, object], urls: list[str], paste: str | None
) -> list[SourceRequest]:
    """The run's sources, each allowed by the policy, or a refusal naming the first that
    is not."""
    allowed = list(Settings(store).get("contacts.sources"))
    if len(urls) > MAX_SOURCES:
        raise JobctrlError(f"name at most {MAX_SOURCES} pages in one run", code=INVALID_INPUT)
    wanted: list[SourceRequest] = []
    if SourceKind.POSTING in allowed:
        wanted.append(SourceRequest(SourceKind.POSTING.value))
    if paste is not None:
        text = paste.strip()
        if not text:
            raise JobctrlError("the pasted text is empty", code=INVALID_INPUT)
        sha = store.artifacts.put(text[:PASTE_LIMIT].encode("utf-8"))
        wanted.append(SourceRequest(SourceKind.PASTED.value, sha))
    for url in dict.fromkeys(u.strip() for u in urls if u.strip()):
        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
            raise JobctrlError(f"{url} is not a web address (http or https)", code=INVALID_INPUT)
        kind = page_kind(
            url, company=str(job.get("company") or ""), posting_url=str(job.get("url") or "")
        )
        wanted.append(SourceRequest(kind, url))
    for source in wanted:
        refused = refusal(source, allowed)
        if refused is not None and source.kind != SourceKind.POSTING:
            raise JobctrlError(refused, code=CONTACT_SOURCE_REFUSED)
    if not wanted:
        raise JobctrlError(
            "nothing to read: your contacts.sources setting leaves out the posting, so "
            "paste text (--paste) or name a page (--source)",
            code=CONTACT_SOURCE_REFUSED,
        )
    return wanted


def request_key(job_id: str, sources: list[SourceRequest], request_id: str | None) -> str:
    spelled = json.dumps(
        [job_id, [[s.kind, s.ref] for s in sources], request_id or ""], sort_keys=True
    )
    return hashlib.sha256(spelled.encode()).hexdigest()


async def research(
    home: Home,
    ref: str,
    *,
    urls: list[str] | tuple[str, ...] = (),
    paste: str | None = None,
    request_id: str | None = None,
    wait: bool = False,
    timeout: float = 300.0,
) -> ResearchTask:
    """Start (or join) the research run of this job and request; with ``wait``, until it
    has ended, its candidates listed."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    job = jobs.job_row(store, job_id)
    sources = _sources(store, job, list(urls), paste)
    key = request_key(job_id, sources, request_id)
    task, _ = contact_research.new_task(
        store, job_id, key, [{"kind": s.kind, "ref": s.ref} for s in sources]
    )
    if task.status not in (TaskStatus.SUCCEEDED, TaskStatus.FAILED):
        client = await runtime.client_for(home)
        started = await starts.start_contact_research(
            client, store, task_id=task.task_id, job_id=job_id, request_key=key
        )
        contact_research.set_workflow(store, task.task_id, started.workflow_id)
        if wait:
            await runtime.ensure_worker_polls(client, "the contact research")
            await starts.wait_for_result(
                client, started, timeout,
                still_running=f"the contact research of job {job_id} still runs",
            )  # fmt: skip
    return research_task(home, task.task_id)


def research_task(home: Home, task_id: str) -> ResearchTask:
    store = Store.open(home)
    task = contact_research.task_row(store, task_id)
    if task is None:
        raise NotFoundError(f"no contact research task {task_id}", code=CONTACT_NOT_FOUND)
    return task_view(store, task)


def job_candidates(home: Home, ref: str) -> Items[CandidateView]:
    """The people research found for the job, most confident first."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    rows = contact_research.candidate_rows(store, job_id=job_id)
    return Items[CandidateView](items=[candidate_view(r) for r in rows])


def _known(store: Store, candidate_ids: list[str]) -> list[str]:
    ids = list(dict.fromkeys(c.strip() for c in candidate_ids if c.strip()))
    if not ids:
        raise JobctrlError("name at least one candidate", code=INVALID_INPUT)
    found = {r.candidate_id for r in contact_research.candidate_rows(store, candidate_ids=ids)}
    missing = [c for c in ids if c not in found]
    if missing:
        raise NotFoundError(f"no candidate {missing[0]}", code=CONTACT_NOT_FOUND)
    return ids


def confirm(home: Home, candidate_ids: list[str]) -> Confirmed:
    """Each candidate becomes a contact of its job's company (or joins the one kept for
    that person there)."""
    store = Store.open(home)
    ids = _known(store, candidate_ids)
    contacts.confirm_candidates(store, ids)
    rows = contact_research.candidate_rows(store, candidate_ids=ids)
    return Confirmed(items=[candidate_view(r) for r in rows])


def dismiss(home: Home, candidate_ids: list[str]) -> Dismissed:
    """Dismiss the candidates (a confirmed one stays: remove its contact instead)."""
    store = Store.open(home)
    ids = _known(store, candidate_ids)
    return Dismissed(candidate_ids=contacts.dismiss_candidates(store, ids))
