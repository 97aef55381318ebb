"""Contact research, the work itself (issue 33): claim a research task for a run, read
each of its sources and record the people found, end the task.

A source is read only when the person's policy (``contacts.sources``) allows it at the
time the run reads it: the posting is the text Enrich saved (nothing fetched), pasted
text is the artifact the command stored, a page is fetched through the safe fetcher
(public addresses, robots.txt, per-host politeness, size limits). Each source's attempt is
recorded with its outcome (read, refused, failed with a code) and its candidates, fenced
on the run that owns the task.

The people are read by the ``contact_research`` lane: the offline extractor by default
(free, deterministic), a model when the person configured a paid provider for the lane.
A paid run passes the spend preflight when it claims the task, and the spend authority
again before the call; the answer is stored the moment it arrives, so a retried attempt
after a crash reuses it instead of paying again (``llm.lanes.call_lane``, one step per
source).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from jobctrl.domain.contacts import (
    CONTACT_LANE,
    AttemptOutcome,
    SourceKind,
    SourceRequest,
    TaskStatus,
    refusal,
)
from jobctrl.domain.errors import (
    CONTACT_SOURCE_REFUSED,
    MISSING_INPUT,
    JobctrlError,
    StageError,
)
from jobctrl.fetch.extract import html_fragment_to_text
from jobctrl.llm import lanes
from jobctrl.llm.contact_answers import (
    CONTACTS_SYSTEM,
    ContactAnswer,
    contacts_prompt,
    offline_answer,
    supported_people,
)
from jobctrl.stages.context import StageContext
from jobctrl.store import contact_research, jobs

__all__ = ["Claimed", "claim_task", "finish_task", "research_source"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Claimed:
    sources: int
    done: bool  # the task had ended already: nothing to do
    job_id: str


def claim_task(ctx: StageContext, task_id: str, run_id: str) -> Claimed:
    """Own the task for ``run_id``; with a paid lane, the spend preflight first (a spent
    budget refuses the run before anything is read)."""
    if lanes.lane_provider(ctx.home, CONTACT_LANE).provider != "offline":
        ctx.spend.preflight(CONTACT_LANE)
    task = contact_research.claim(ctx.store, task_id, run_id, clock=ctx.clock)
    done = task.status in (TaskStatus.SUCCEEDED, TaskStatus.FAILED)
    return Claimed(len(task.sources), done, task.job_id)


def _read(ctx: StageContext, source: SourceRequest, job: dict[str, object]) -> str:
    if source.kind == SourceKind.POSTING:
        sha = job.get("text_artifact")
        if not sha:
            raise StageError(MISSING_INPUT, "the posting has no saved text yet")
        return ctx.store.artifacts.get(str(sha)).decode("utf-8", "replace")
    if source.kind == SourceKind.PASTED:
        return ctx.store.artifacts.get(source.ref).decode("utf-8", "replace")
    with ctx.fetcher() as fetcher:
        page = fetcher.fetch(source.ref)
    return html_fragment_to_text(page.body.decode("utf-8", "replace"))


def research_source(ctx: StageContext, task_id: str, run_id: str, index: int, attempt: int) -> int:
    """Read source ``index`` of the task and record its candidates; how many it added."""
    task = contact_research.task_row(ctx.store, task_id)
    if task is None:
        return 0
    source = SourceRequest(**task.sources[index])
    record = {"index": index, "kind": source.kind, "source": source.label()}
    allowed = list(ctx.settings.get("contacts.sources"))
    refused = refusal(source, allowed)
    if refused is not None:
        outcome = {
            **record,
            "outcome": AttemptOutcome.REFUSED.value,
            "code": CONTACT_SOURCE_REFUSED,
        }
        contact_research.record_source(ctx.store, task_id, run_id, outcome, [], clock=ctx.clock)
        return 0
    job = jobs.job_row(ctx.store, task.job_id)
    try:
        text = _read(ctx, source, job)
    except StageError as error:
        if error.retryable and attempt < 3:
            raise  # a timeout, a 503: the activity's retry reads it again
        log.info("contact research: source %s of task %s: %s", index, task_id, error.code)
        outcome = {**record, "outcome": AttemptOutcome.FAILED.value, "code": error.code}
        contact_research.record_source(ctx.store, task_id, run_id, outcome, [], clock=ctx.clock)
        return 0
    lane = lanes.lane_provider(ctx.home, CONTACT_LANE)
    answer = lanes.call_lane(
        ctx.spend,
        CONTACT_LANE,
        lane,
        job_id=task.job_id,
        run_id=run_id,
        attempt=attempt,
        output_type=ContactAnswer,
        system=CONTACTS_SYSTEM,
        prompt=lambda: contacts_prompt(
            text, company=str(job.get("company") or ""), source=source.label()
        ),
        offline=lambda: offline_answer(text, str(job.get("company") or "") or None),
        keep_alive=ctx.keep_alive,
        heartbeat=ctx.heartbeat,
        step=f"contacts-{task_id}-{index}",  # one paid answer per source, reused on retry
    )
    people = supported_people(answer, text)
    candidates = [
        {
            "name": p.name, "role": p.role, "title": p.title, "email": p.email,
            "evidence": p.evidence, "source": source.label(), "confidence": p.confidence,
        }
        for p in people
    ]  # fmt: skip
    outcome = {**record, "outcome": AttemptOutcome.READ.value, "provider": lane.provider}
    return contact_research.record_source(
        ctx.store, task_id, run_id, outcome, candidates, clock=ctx.clock
    )


def finish_task(ctx: StageContext, task_id: str, run_id: str, error_code: str | None) -> None:
    """End the task: succeeded, or failed with ``error_code``. A run that lost the task
    changes nothing."""
    status = TaskStatus.FAILED if error_code else TaskStatus.SUCCEEDED
    try:
        contact_research.finish(
            ctx.store, task_id, run_id, status.value, error_code, clock=ctx.clock
        )
    except JobctrlError as error:
        log.info("contact research: task %s not finished by this run: %s", task_id, error.code)
