"""A discovery run's plan, member by member (`jobctrl runs --plan`, the Runs page): each
job the run linked with its state (planned, queued, running, done, not_eligible, waiting,
unknown) and, when left out, the reason with a sentence; postings the target search
filtered out are counted by reason (they never became jobs).

Counts keep ``waiting`` (known to be queued) apart from ``unknown`` (no evidence): an
unknown member is never counted as waiting or done.

Also the source-family ETA of a run still reading its sources (the operations snapshot's
``sourceEta``): the families left, priced from their last 14 days of runs.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any, ClassVar

from jobctrl.app.models import Sparse, View
from jobctrl.domain import eta as eta_rules
from jobctrl.domain.discovery import (
    FILTER_REASONS,
    ExecutionRef,
    MemberFacts,
    MemberState,
    NotEligible,
    RunStatus,
    StepState,
    member_state,
    total_counts,
)
from jobctrl.domain.errors import NOT_FOUND, JobctrlError
from jobctrl.domain.plain_words import NOT_ELIGIBLE_SENTENCES
from jobctrl.home import Home
from jobctrl.store import discovery_plan
from jobctrl.store.store import Store

__all__ = [
    "FamilyEta",
    "NotEligibleGroup",
    "PlanMember",
    "RunPlan",
    "SourceFamilyEta",
    "run_plan",
    "source_family_eta",
]


class PlanMember(View):
    """One job of the run: its state, and why it was left out (``reason``, ``sentence``)
    or how its preparation failed (``error_code``)."""

    job_id: str
    title: str | None
    company: str | None
    cohort: str
    state: str
    reason: str | None
    sentence: str | None
    error_code: str | None


class NotEligibleGroup(View):
    """The members (``job_ids``) and filtered postings (``postings``) left out for one
    reason, with its sentence."""

    reason: str
    sentence: str
    postings: int
    job_ids: list[str]


class RunPlan(View):
    """A run's plan: its members, the count in each state (filtered postings counted
    under ``not_eligible``), and the left-out ones grouped by reason."""

    workflow_id: str
    run_id: str
    status: str
    counts: dict[str, int]
    members: list[PlanMember]
    not_eligible: list[NotEligibleGroup]


def run_plan(home: Home, run_id: str | None = None) -> RunPlan:
    """The plan of run ``run_id`` (None: the newest run); ``not_found`` without one."""
    store = Store.open(home)
    row = discovery_plan.run_row(store, run_id)
    if row is None:
        raise JobctrlError(
            f"no discovery run {run_id}" if run_id else "no discovery run yet", code=NOT_FOUND
        )
    ref = ExecutionRef(store.tenant, row["workflow_id"], row["run_id"])
    run, members = discovery_plan.plan_rows(store, ref)
    assert run is not None
    discovering = run["status"] == RunStatus.RUNNING
    shown: list[PlanMember] = []
    for m in members:
        state, reason, code = member_state(
            MemberFacts(
                plan_state=m["work_plan_state"],
                discovering=discovering,
                prep_status=m["prep_status"],
                prep_is_the_runs=m["prep_started_at"] is not None
                and m["prep_started_at"] >= run["started_at"],
                existed_before=m["existed_before"],
                hidden=m["hidden"],
                closed=m["availability"] == "unavailable",
                stages=m["stages"],
            )
        )
        shown.append(
            PlanMember(
                job_id=m["job_id"],
                title=m["title"],
                company=m["company"],
                cohort=m["cohort"],
                state=state.value,
                reason=reason.value if reason else None,
                sentence=NOT_ELIGIBLE_SENTENCES[reason] if reason else None,
                error_code=code,
            )
        )
    filtered: Counter[str] = Counter()
    for key, n in total_counts(run["counts"] or {}).items():
        reason = FILTER_REASONS.get(key.removeprefix("filtered_"))
        if key.startswith("filtered_") and reason is not None:
            filtered[reason] += n
    counts = Counter({state.value: 0 for state in MemberState})
    counts.update(member.state for member in shown)
    counts[MemberState.NOT_ELIGIBLE] += sum(filtered.values())
    groups = [
        NotEligibleGroup(
            reason=reason.value,
            sentence=NOT_ELIGIBLE_SENTENCES[reason],
            postings=filtered[reason],
            job_ids=[m.job_id for m in shown if m.reason == reason],
        )
        for reason in NotEligible
        if filtered[reason] or any(m.reason == reason for m in shown)
    ]
    return RunPlan(
        workflow_id=ref.workflow_id,
        run_id=ref.run_id,
        status=run["status"],
        counts=dict(counts),
        members=shown,
        not_eligible=groups,
    )


class FamilyEta(Sparse):
    """One source family still to read: its comparable recent runs, the seconds it has
    run now, and (once calibrated) its p10/p50/p90 whole-family duration in seconds."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"p10", "p50", "p90", "members"})

    runs: int
    elapsed: float
    members: int | None = None  # the jobs a run of it linked, median
    p10: float | None = None
    p50: float | None = None
    p90: float | None = None


class SourceFamilyEta(View):
    """How long the run's remaining source families take (seconds, ``low``–``high``), or
    no number and the ``reason`` (``calibrating``: a family has fewer than 3 runs in the
    last 14 days)."""

    state: str
    low: float | None
    high: float | None
    reason: str | None
    detail: str | None
    members: int | None  # the jobs the families left should still link (medians)
    families: dict[str, FamilyEta]


def source_family_eta(
    store: Store, execution: dict[str, Any] | None, runtime_state: str, now: datetime
) -> SourceFamilyEta | None:
    """The source-family ETA of ``execution`` while it is still reading its sources
    (None otherwise). A family whose step completed or failed for good is done; the one
    running counts the seconds it has run."""
    if execution is None or execution["status"] != RunStatus.RUNNING:
        return None
    ref = ExecutionRef(store.tenant, execution["workflow_id"], execution["run_id"])
    steps = discovery_plan.family_steps(store, ref)
    remaining: list[tuple[str, float]] = []
    for kind in execution["families"] or []:
        state, started, before = steps.get(kind, (None, None, None))
        if state in (StepState.COMPLETED, StepState.FAILED):
            continue
        # Counted as the history is: from the previous family's end (its own start first).
        began = min(before, started) if before and started else started
        elapsed = (now - began).total_seconds() if began is not None else 0.0
        remaining.append((kind, max(0.0, elapsed)))
    history, yields = discovery_plan.family_history(store, now, besides=ref.run_id)
    found = eta_rules.source_family_estimate(remaining, history, runtime_state, yields)
    return SourceFamilyEta.model_validate(found)
