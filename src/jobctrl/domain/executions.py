"""Workflow executions as the store records them: their types, statuses and outcomes."""

from __future__ import annotations

from enum import StrEnum


class WorkflowType(StrEnum):
    PREPARATION = "JobPreparationWorkflow"
    DISCOVERY = "DiscoverWorkflow"
    APPLY = "ApplyWorkflow"


class WorkflowStatus(StrEnum):
    """An execution's status in ``workflow_run_projections``."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELED = "canceled"


class Outcome(StrEnum):
    """How a job's preparation ended."""

    PREPARED = "prepared"
    SKIPPED = "skipped"  # below min_fit_score: the later stages were skipped
    FAILED = "failed"
