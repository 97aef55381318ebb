"""The Jobs list: a page of jobs (`jobctrl jobs`, ``GET /v1/jobs``, the Jobs page), each
with its next action and why, its code in plain words, its posting's availability and the
listings it was found on (``app.job_facts``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from jobctrl.app import job_facts
from jobctrl.app.job_facts import AvailabilityView, Listing
from jobctrl.app.models import Timestamp
from jobctrl.app.staleness import Freshness, freshness
from jobctrl.domain.clock import utcnow
from jobctrl.domain.inbox import NextAction, NextStep
from jobctrl.home import Home
from jobctrl.store import inbox, job_list, jobs
from jobctrl.store.job_list import JobFilter
from jobctrl.store.store import Store

__all__ = ["JobListItem", "find_jobs", "list_items", "list_jobs"]


class JobListItem(Freshness):
    """A row of the Jobs list (the list projection), and whether the job was made with
    another profile version than the current one (``stale``, with both versions)."""

    job_id: str
    title: str | None
    company: str | None
    location: str | None
    remote: bool | None
    score: int | None
    verdict: str | None
    fit_summary: str | None = None  # one line on why (see JobView)
    status: str
    current_stage: str | None
    error_code: str | None
    url: str
    updated_at: Timestamp
    # What the person does next (``domain.inbox.NextAction``) and why, in a sentence; the
    # error code in plain words; the posting's availability; the listings it was found on.
    next_action: str | None = None
    next_action_reason: str | None = None
    error_sentence: str | None = None
    availability: AvailabilityView | None = None
    sources: list[Listing] = Field(default_factory=list)
    # The row's one button: its label, and ``open``, ``retry``, ``hide`` or ``unhide``.
    button: str | None = None
    button_kind: str | None = None


def find_jobs(
    home: Home,
    wanted: JobFilter | None = None,
    *,
    action: str | None = None,
    now: datetime | None = None,
) -> tuple[list[JobListItem], int]:
    """Jobs from the list projection, filtered and sorted as ``wanted`` says (default:
    every job, highest score first, no score last), each with its next action as of
    ``now``; with ``action``, only the jobs whose next action it is. And how many match
    in all. `jobctrl jobs`, the API and the Jobs page share it."""
    store = Store.open(home)
    wanted = wanted or JobFilter()
    now = now or utcnow()
    rules = job_facts.inbox_rules(store)
    if action is None:
        rows = inbox.inbox_rows(store, wanted, paged=True)
        total = len(rows) if wanted.limit is None else job_list.count(store, wanted)
        steps = job_facts.next_steps(rows, rules, now)
    else:  # the action is decided per job: every match is read, the page cut here
        every = inbox.inbox_rows(store, wanted, lean=True)
        chosen = [
            (r["job_id"], step)
            for r, step in zip(every, job_facts.next_steps(every, rules, now), strict=True)
            if step.action == action
        ]
        total = len(chosen)
        end = None if wanted.limit is None else wanted.offset + wanted.limit
        page = chosen[wanted.offset : end]
        full = {
            r["job_id"]: r for r in inbox.inbox_rows(store, wanted, job_ids=[i for i, _ in page])
        }
        rows = [full[job_id] for job_id, _ in page]
        steps = [step for _, step in page]
    return list_items(home, store, rows, steps, rules, now), total


def list_items(
    home: Home,
    store: Store,
    rows: list[dict[str, Any]],
    steps: list[NextStep],
    rules: job_facts.InboxRules,
    now: datetime,
) -> list[JobListItem]:
    """The list items of inbox rows (``store.inbox``) and their next steps."""
    ids_ = [r["job_id"] for r in rows]
    fresh = freshness(home, store, ids_)
    reasons = jobs.fit_summaries(store, [r["job_id"] for r in rows if r["score"] is not None])
    found = inbox.listings(store, ids_)
    seen = {r["job_id"]: job_facts.availability_view(r, now) for r in rows}
    return [
        JobListItem.from_row(
            {
                **r,
                **dict(fresh[r["job_id"]]),
                "fit_summary": reasons.get(r["job_id"]),
                "next_action": step.action.value,
                **dict(
                    zip(
                        ("button", "button_kind"),
                        job_facts.button_for(step.action, r["error_code"]),
                        strict=True,
                    )
                ),
                "next_action_reason": _reason(step, seen[r["job_id"]]),
                "error_sentence": job_facts.error_sentence(r["error_code"], rules),
                "availability": seen[r["job_id"]],
                "sources": [job_facts.Listing.from_row(x) for x in found.get(r["job_id"], [])],
            }
        )
        for r, step in zip(rows, steps, strict=True)
    ]


def list_jobs(home: Home) -> list[JobListItem]:
    """Every job, best fit first."""
    return find_jobs(home, JobFilter())[0]


def _reason(step: NextStep, availability: AvailabilityView) -> str:
    """Why: a closed posting says when it was found closed."""
    if step.action == NextAction.CLOSED and availability.state == "closed":
        return availability.sentence
    return step.reason
