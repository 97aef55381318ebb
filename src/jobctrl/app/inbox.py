"""The Jobs page as an inbox: jobs grouped by what the person does next, each row with its
one button; a posting listed on several boards (the same company, title and description)
is one row with every listing.

The next action is ``domain.inbox.next_action``, decided per job from stored state
(``app.job_facts``); the groups are cut to ``per_group`` rows each (the page links to the
whole group, a page at a time: ``find_jobs(action=…)``).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from pydantic import Field

from jobctrl.app import job_facts
from jobctrl.app.jobs_list import JobListItem, list_items
from jobctrl.app.models import View
from jobctrl.domain.clock import utcnow
from jobctrl.domain.inbox import ACTION_ORDER, COLLAPSED, TITLES, NextAction, NextStep
from jobctrl.home import Home
from jobctrl.sources.dedupe import normalise_company
from jobctrl.sources.filtering import words
from jobctrl.store import inbox
from jobctrl.store.job_list import JobFilter
from jobctrl.store.store import Store

__all__ = ["GROUPS", "Inbox", "InboxGroup", "InboxRow", "jobs_inbox"]

# Each group's heading and the label of its rows' one button.
GROUPS: dict[NextAction, tuple[str, str]] = {
    action: (title, job_facts.BUTTONS.get(action, "Open")) for action, title in TITLES.items()
}


class InboxRow(JobListItem):
    """A row of the inbox: the list item and the other jobs that are the same posting on
    another board (``duplicates``: their ids; their listings are in ``sources``)."""

    duplicates: list[str] = Field(default_factory=list)


class InboxGroup(View):
    """One group of the inbox: its action, heading, whether it starts folded, how many
    jobs it holds and the first of them."""

    action: str
    title: str
    collapsed: bool
    count: int
    rows: list[InboxRow]


class Inbox(View):
    """The Jobs inbox: its groups in order (the hidden jobs only as a count, unless
    asked for), and how many jobs match the filters in all."""

    groups: list[InboxGroup]
    total: int
    hidden: int


def jobs_inbox(
    home: Home,
    wanted: JobFilter | None = None,
    *,
    per_group: int = 25,
    show_hidden: bool = False,
    now: datetime | None = None,
) -> Inbox:
    """The jobs ``wanted`` matches, grouped by next action as of ``now``; each group's
    first ``per_group`` rows in ``wanted``'s order, a posting on several boards once."""
    store = Store.open(home)
    now = now or utcnow()
    rules = job_facts.inbox_rules(store)
    wanted = wanted or JobFilter()
    every = inbox.inbox_rows(store, wanted, lean=True)  # every job: only what decides
    firsts, merged = _merge_duplicates(every)
    grouped: dict[NextAction, list[tuple[dict[str, Any], NextStep]]] = {}
    for row, step in zip(firsts, job_facts.next_steps(firsts, rules, now), strict=True):
        grouped.setdefault(step.action, []).append((row, step))
    shown = {
        action: members[:per_group]
        for action, members in grouped.items()
        if action != NextAction.HIDDEN or show_hidden
    }
    ids_ = [r["job_id"] for members in shown.values() for r, _ in members]
    full = {r["job_id"]: r for r in inbox.inbox_rows(store, wanted, job_ids=ids_)}
    extra = inbox.listings(store, [d for job_id in ids_ for d in merged.get(job_id, [])])
    # One read of what the shown rows show, for every group at once
    pairs = [(full[r["job_id"]], step) for members in shown.values() for r, step in members]
    items = iter(list_items(home, store, [r for r, _ in pairs], [s for _, s in pairs], rules, now))
    cut = {action: [next(items) for _ in members] for action, members in shown.items()}
    groups = [
        InboxGroup(
            action=action.value,
            title=GROUPS[action][0],
            collapsed=action in COLLAPSED,
            count=len(grouped[action]),
            rows=[_row(item, merged, extra) for item in cut[action]],
        )
        for action in ACTION_ORDER
        if action in shown
    ]
    hidden = len(grouped.get(NextAction.HIDDEN, []))
    return Inbox(groups=groups, total=len(every), hidden=hidden)


def _row(
    item: JobListItem, merged: dict[str, list[str]], extra: dict[str, list[dict[str, Any]]]
) -> InboxRow:
    duplicates = merged.get(item.job_id, [])
    sources = list(item.sources)
    for other in duplicates:
        sources += [job_facts.Listing.from_row(x) for x in extra.get(other, [])]
    return InboxRow(**{**dict(item), "sources": sources}, duplicates=duplicates)


def _merge_duplicates(
    rows: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """The rows with each posting once (the first of its jobs, in order), and for each
    kept job the ids of the others. Jobs are one posting when the company (legal suffixes
    and case aside), the title (as words) and the extracted description (its content
    hash) are the same."""
    texts = Counter(row["text_artifact"] for row in rows if row["text_artifact"])
    first_of: dict[tuple[str, str, str], str] = {}
    merged: dict[str, list[str]] = {}
    kept = []
    for row in rows:
        text = row["text_artifact"]
        if not text or texts[text] < 2:  # a description no other job has: no duplicate
            kept.append(row)
            continue
        company, title = normalise_company(row["company"]), words(row["title"])
        if not (company and title):
            kept.append(row)
            continue
        key = (company, " ".join(title), text)
        if key in first_of:
            merged.setdefault(first_of[key], []).append(row["job_id"])
            continue
        first_of[key] = row["job_id"]
        kept.append(row)
    return kept, merged
