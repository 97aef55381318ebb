"""Discovery runs: a Discover execution's identity, its plan, how it ended.

Small frozen values that cross workflow and activity boundaries (ids and names only) and
the vocabularies of a run: its status, the cohort a member joined through, and the kinds
of pipeline step it records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from jobctrl.domain import errors
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.domain.stages import StageState


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    PARTIAL = "partial"  # a source family failed; the others' results are saved
    FAILED = "failed"
    CANCELED = "canceled"
    # Ended at its first step, finding nothing, because another run was still at work
    # (discovery_busy); kept apart from discovery_runs (store/discovery_refusals.py).
    REFUSED = "refused"


class Cohort(StrEnum):
    """How a job became a member of a Discover execution."""

    OBSERVED = "observed_this_run"
    BACKLOG = "existing_backlog"


class StepKind(StrEnum):
    SOURCE_PLANNING = "source_planning"
    SOURCE_FAMILY = "source_family"
    ENRICHMENT_PASS = "enrichment_pass"
    PREPARATION_FANOUT = "preparation_fanout"
    EXISTING_BACKLOG_SWEEP = "existing_backlog_sweep"  # after the fan-out: stale work re-admitted


class StepState(StrEnum):
    """A pipeline step's state in ``pipeline_step_projections``."""

    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class PlanState(StrEnum):
    """A member's preparation: still to start, or started (its workflow id recorded)."""

    PENDING = "pending"
    PLANNED = "planned"


@dataclass(frozen=True)
class ExecutionRef:
    """A Discover execution's identity, read once when the workflow starts."""

    tenant_id: str
    workflow_id: str
    run_id: str


@dataclass(frozen=True)
class SourceRef:
    kind: str
    name: str
    base_url: str | None = None


@dataclass(frozen=True)
class FamilyPlan:
    kind: str
    sources: list[SourceRef]


@dataclass(frozen=True)
class DiscoveryPlan:
    families: list[FamilyPlan]
    progress_total: int


@dataclass(frozen=True)
class DiscoverFinish:
    ref: ExecutionRef
    status: str  # a RunStatus value
    error_code: str | None
    counts: dict[str, int]


def total_counts(by_step: dict[str, dict[str, int]]) -> dict[str, int]:
    """A run's counts over all its steps."""
    total: Counter[str] = Counter()
    for counts in by_step.values():
        total.update(counts)
    return dict(total)


# -- a plan member's state (issue 34) -------------------------------------------------------


class MemberState(StrEnum):
    """Where a run's member (or a posting it filtered out) stands. ``waiting`` is known to
    be queued for something (its start, a retry, a budget, a pause); ``unknown`` is no
    evidence either way: never counted as waiting or done."""

    PLANNED = "planned"  # its preparation started; no step has begun yet
    QUEUED = "queued"  # its preparation runs and its next step waits for a slot
    RUNNING = "running"  # a step runs now
    DONE = "done"  # its preparation closed (``error_code`` says when it failed)
    NOT_ELIGIBLE = "not_eligible"  # left out on purpose: ``reason`` says why
    WAITING = "waiting"
    UNKNOWN = "unknown"


class NotEligible(StrEnum):
    """Why a member (or a posting) is left out of preparation."""

    FILTERED_TITLE = "filtered_title"
    FILTERED_LOCATION = "filtered_location"
    DUPLICATE = "duplicate"
    BELOW_THRESHOLD = "below_threshold"
    CLOSED = "closed"
    HIDDEN = "hidden"


# The target search's filter reasons (sources/filtering.py) by the plan's reason.
FILTER_REASONS = {
    "title_excluded": NotEligible.FILTERED_TITLE,
    "title_not_targeted": NotEligible.FILTERED_TITLE,
    "seniority_not_targeted": NotEligible.FILTERED_TITLE,
    "keyword_missing": NotEligible.FILTERED_TITLE,
    "not_remote": NotEligible.FILTERED_LOCATION,
    "location_not_targeted": NotEligible.FILTERED_LOCATION,
}
_CLOSED_CODES = frozenset({errors.POSTING_UNAVAILABLE, errors.POSTING_EXPIRED})
_BLOCKED_CODES = frozenset(
    {errors.BUDGET_EXCEEDED, errors.AUTOMATION_PAUSED, errors.CONFIG_INVALID}
)
_OPEN = WorkflowStatus.RUNNING.value
_CLOSED_RUNS = (
    WorkflowStatus.COMPLETED.value,
    WorkflowStatus.FAILED.value,
    WorkflowStatus.CANCELED.value,
)


@dataclass(frozen=True)
class MemberFacts:
    """What the store knows of one member, read at once."""

    plan_state: str  # a PlanState value
    discovering: bool  # the Discover run itself is still running
    prep_status: str | None  # its recorded preparation's status; None: none seen
    prep_is_the_runs: bool  # that preparation started once the run had
    existed_before: bool  # the job was known before the run started
    hidden: bool
    closed: bool  # its availability check found the posting gone
    stages: dict[str, tuple[str, str | None, bool]]  # stage -> (state, code, retryable)


def member_state(facts: MemberFacts) -> tuple[MemberState, NotEligible | None, str | None]:
    """(state, not-eligible reason, failure code) of one member."""
    codes = {code for _, code, _ in facts.stages.values() if code}
    if facts.hidden or errors.JOB_HIDDEN in codes:
        return MemberState.NOT_ELIGIBLE, NotEligible.HIDDEN, None
    if facts.closed or codes & _CLOSED_CODES:
        return MemberState.NOT_ELIGIBLE, NotEligible.CLOSED, None
    if errors.MIN_SCORE in codes:
        return MemberState.NOT_ELIGIBLE, NotEligible.BELOW_THRESHOLD, None
    states = [state for state, _, _ in facts.stages.values()]
    if StageState.RUNNING.value in states:
        return MemberState.RUNNING, None, None
    if facts.plan_state == PlanState.PENDING:
        # Before its start the member waits while the run is live; after, nothing will.
        state = MemberState.WAITING if facts.discovering else MemberState.UNKNOWN
        return state, None, None
    if facts.prep_status not in (_OPEN, *_CLOSED_RUNS):
        return MemberState.UNKNOWN, None, None
    failed = [(c, r) for s, c, r in facts.stages.values() if s == StageState.FAILED.value]
    if facts.prep_status == _OPEN:
        if any(c in _BLOCKED_CODES or r for c, r in failed):
            return MemberState.WAITING, None, None
        if states and all(s == StageState.PENDING.value for s in states):
            return MemberState.PLANNED, None, None
        return MemberState.QUEUED, None, None
    if facts.existed_before and not facts.prep_is_the_runs:
        return MemberState.NOT_ELIGIBLE, NotEligible.DUPLICATE, None
    if any(c in _BLOCKED_CODES for c, _ in failed):
        return MemberState.WAITING, None, failed[0][0]
    return MemberState.DONE, None, failed[0][0] if failed else None
