"""Discovery runs: a Discover execution's identity, its plan, how it ended.

Small frozen values that cross workflow and activity boundaries (ids and names only) and
the vocabularies of a run: its status, the cohort a member joined through, and the kinds
of pipeline step it records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    PARTIAL = "partial"  # a source family failed; the others' results are saved
    FAILED = "failed"
    CANCELED = "canceled"


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
