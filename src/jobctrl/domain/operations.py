"""The operations snapshot's rules: its three scopes, how a stage row counts (remaining,
blocked or failed) and the phase of the selected Discover execution.

A phase is decided from the execution's own status and what its two cohorts (the jobs
it observed and the backlog it swept) still have to do: a successful Discover whose
jobs are still being prepared is ``draining``, not ``completed``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from jobctrl.domain.errors import AUTOMATION_PAUSED, BUDGET_EXCEEDED, CANCELED, CONFIG_INVALID

CURRENT = "current_execution"  # the selected execution's observed_this_run cohort
SWEEP = "execution_sweep"  # its existing_backlog cohort
GLOBAL = "global_outside_execution"  # every other job
SCOPES = (CURRENT, SWEEP, GLOBAL)

# The preparation stages whose remaining work the snapshot counts (Apply is a person's).
OPS_STAGES = ("enrich", "score", "tailor", "cover", "pdf")
# Which LLM lane's spend ceiling a stage waits on (Enrich and PDF call no model).
STAGE_LANES = {"score": "score", "tailor": "tailor", "cover": "cover"}

# Failed rows that wait on something the person or the clock fixes, not on a retry:
# counted ``blocked``, never ``failed`` and never remaining work.
BLOCKED_CODES = frozenset({AUTOMATION_PAUSED, BUDGET_EXCEEDED, CONFIG_INVALID})
# Failed rows automatic recovery never picks up whatever their retryable flag says (the
# recovery rules add theirs: configuration, auth, missing input, unsafe URL, fabrication).
NEVER_RETRIED = frozenset({CANCELED})


class RowClass(StrEnum):
    """How one stage row counts in the snapshot."""

    REMAINING = "remaining"  # pending or running
    RETRY = "retry"  # failed, and automatic recovery will run it again
    BLOCKED = "blocked"  # failed with a code in BLOCKED_CODES
    FAILED = "failed"  # failed for good: non-retryable, canceled or attempts exhausted


def classify_failed(
    code: str | None,
    retryable: bool | None,
    auto_attempts: int,
    *,
    non_retryable: frozenset[str],
    max_auto_attempts: int,
) -> RowClass:
    """How a failed row counts: blocked, still retried by recovery, or failed for good."""
    if code in BLOCKED_CODES:
        return RowClass.BLOCKED
    never = NEVER_RETRIED | non_retryable
    if retryable and code not in never and auto_attempts < max_auto_attempts:
        return RowClass.RETRY
    return RowClass.FAILED


class Phase(StrEnum):
    IDLE = "idle"  # no Discover execution has ever run
    DISCOVERING = "discovering"
    DRAINING = "draining"
    COMPLETED = "completed"
    COMPLETED_WITH_ISSUES = "completed_with_issues"
    FAILED = "failed"
    CANCELED = "canceled"


def phase(run_status: str | None, *, remaining: int, issues: int) -> Phase:
    """The phase of the selected execution.

    ``run_status`` is its ``discovery_runs`` status (None: no execution); ``remaining``
    the stage rows its two cohorts still have to run (pending, running or retried by
    recovery); ``issues`` their failed and blocked rows. A run that could not be found
    in Temporal's history (``reconciled_not_found``) is not claimed to be running: it
    reads ``failed`` until the reconciler restores it.
    """
    if run_status is None:
        return Phase.IDLE
    if run_status == "running":
        return Phase.DISCOVERING
    if run_status == "canceled":
        return Phase.CANCELED
    if run_status not in ("completed", "partial"):
        return Phase.FAILED
    if remaining > 0:
        return Phase.DRAINING
    if issues > 0 or run_status == "partial":
        return Phase.COMPLETED_WITH_ISSUES
    return Phase.COMPLETED


def empty_scope() -> dict[str, Any]:
    """A scope with nothing in it, in the snapshot's shape."""
    return {"jobs": 0, "remaining": dict.fromkeys(OPS_STAGES, 0), "failed": 0, "blocked": 0}
