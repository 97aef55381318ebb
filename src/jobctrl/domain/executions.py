"""Workflow executions as the store records them: their types, statuses and outcomes."""

from __future__ import annotations

from enum import StrEnum


class WorkflowType(StrEnum):
    PREPARATION = "JobPreparationWorkflow"
    DISCOVERY = "DiscoverWorkflow"
    APPLY = "ApplyWorkflow"
    RECOVERY = "PreparationRecoveryWorkflow"  # one stage for a frozen cohort of <= 25 jobs
    CONTACT_RESEARCH = "ContactResearchWorkflow"  # a person's research run (issue 33)


class WorkflowStatus(StrEnum):
    """An execution's status in ``workflow_run_projections``."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELED = "canceled"
    # Provisional: the exact execution could not be found in the history the worker can
    # reach now. Probed again on every heartbeat; restored or closed when history returns.
    RECONCILED_NOT_FOUND = "reconciled_not_found"


class Outcome(StrEnum):
    """How a job's preparation ended."""

    PREPARED = "prepared"
    SKIPPED = "skipped"  # below min_fit_score: the later stages were skipped
    FAILED = "failed"
