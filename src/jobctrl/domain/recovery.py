"""Automatic preparation recovery: which stage rows the worker's heartbeat re-dispatches
on its own, and when (the queries are in ``store/recovery.py``, the dispatch in
``worker/auto_recovery.py``).

A row is eligible when it failed with a retryable code, or is pending after every
earlier stage finished (its preparation stopped between two stages), or is a pending
Enrich whose job's preparation ended without claiming it (every attempt failed before
the claim: it waits its backoff like a failure, from its last change; a job never
prepared, or whose preparation was cancelled, is not recovery's to start); when nothing owns
it or its job (no reservation, no running row, no open run, no unstarted start intent);
while its automatic attempts are below ``max_auto_attempts`` and its backoff has passed.
Codes a later attempt cannot fix, and codes another recovery owns (a spent budget
resumes after the UTC rollover, an unreadable config.yaml once it can be read), are
never picked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime, timedelta

from jobctrl.domain import ids
from jobctrl.domain.applications import ApplicationStatus
from jobctrl.domain.errors import (
    AUTOMATION_PAUSED,
    BUDGET_EXCEEDED,
    CANCELED,
    CONFIG_INVALID,
    CONFIGURATION,
    COVER_FABRICATION,
    MIN_SCORE,
    MISSING_INPUT,
    POSTING_REFUSALS,
    PROFILE_EMPTY,
    PROVIDER_AUTH,
    PROVIDER_OUTPUT_TRUNCATED,
    PROVIDER_REQUEST_REJECTED,
    PROVIDER_TOOLS_UNSUPPORTED,
    TAILOR_FABRICATION,
)
from jobctrl.domain.stages import Stage
from jobctrl.domain.tenants import LOCAL

# The stages automatic recovery re-dispatches (Discover and Apply never).
RECOVERABLE_STAGES: tuple[str, ...] = (
    Stage.ENRICH,
    Stage.SCORE,
    Stage.TAILOR,
    Stage.COVER,
    Stage.PDF,
)
# The stages whose provider calls pass the spend preflight (their lane is the stage name).
PAID_STAGES = frozenset({Stage.SCORE, Stage.TAILOR, Stage.COVER})

# Never retried automatically, even on a row that says retryable: configuration, a key
# that is wrong, missing input, an unsafe or refused posting, a document the truth check
# refused, an explicit cancel; and the two codes with a recovery of their own.
NON_RETRYABLE_CODES = POSTING_REFUSALS | frozenset(
    {
        CONFIGURATION,
        PROVIDER_AUTH,
        PROVIDER_REQUEST_REJECTED,
        PROVIDER_TOOLS_UNSUPPORTED,  # the lane's output mode must change first
        PROVIDER_OUTPUT_TRUNCATED,  # paid once: asked again only when a person retries
        MISSING_INPUT,
        TAILOR_FABRICATION,
        COVER_FABRICATION,
        PROFILE_EMPTY,  # waits for the person to import a resume and retry
        MIN_SCORE,
        CANCELED,
        BUDGET_EXCEEDED,  # resumes after the UTC rollover (worker/recovery.py)
        CONFIG_INVALID,  # resumes once config.yaml can be read (worker/recovery.py)
    }
)

# A person's Apply decline (``jobctrl apply resolve JOB abandoned``) vetoes automatic
# Tailor/Cover for that job: never selected, and a member claimed anyway ends skipped (no
# error code, not retried). Explicit foreground generation and Enrich/Score are unchanged.
DECLINE_VETOED_STAGES: tuple[str, ...] = (Stage.TAILOR, Stage.COVER)
DECLINED_APPLICATION = ApplicationStatus.ABANDONED
APPLY_DECLINED = "apply_declined"  # why a declined member's reservation was released

COHORT_SIZE = 25  # jobs in one recovery execution, at most
# The worker count of a cohort saved before it was saved with one (its input said 2).
LEGACY_WORKERS = 2
MAX_AUTO_ATTEMPTS = 5  # whatever the stage's own limit
BACKOFF_BASE_SECONDS = 60.0  # the first automatic retry waits this long
BACKOFF_CAP_SECONDS = 1800.0
# A pending row left by a stopped preparation waits this long untouched first, so a
# preparation just started (recorded a moment after its first stage ran) claims it.
PENDING_GRACE_SECONDS = 30.0


def workflow_prefix(tenant: str) -> str:
    """What every automatic recovery execution id of ``tenant`` starts with."""
    return f"prepare-{ids.AUTO_KIND}-{tenant}"


WORKFLOW_PREFIX = workflow_prefix(LOCAL)  # the local tenant's


def max_auto_attempts(stage_limit: int) -> int:
    """Automatic attempts a row gets: the stage's own limit (``retry.max_attempts``), at
    most five."""
    return max(0, min(int(stage_limit), MAX_AUTO_ATTEMPTS))


def backoff_seconds(attempts: int, *, base: float = BACKOFF_BASE_SECONDS) -> float:
    """Delay before automatic attempt ``attempts + 1``: min(1800, 60 * 2**n) seconds.
    ``base`` shrinks it for tests and benchmarks only (the cap shrinks with it)."""
    scale = base / BACKOFF_BASE_SECONDS
    return float(min(BACKOFF_CAP_SECONDS * scale, base * 2 ** max(0, int(attempts))))


def retryable_code(code: str | None, retryable: bool | None) -> bool:
    """A failure automatic recovery may retry (canceled, budget and the rest: never)."""
    return bool(retryable) and code not in NON_RETRYABLE_CODES


def due_at(
    finished_at: datetime | None,
    auto_attempts: int,
    code: str | None,
    *,
    base: float = BACKOFF_BASE_SECONDS,
) -> datetime | None:
    """When a failed row may be retried (None: at once). A row stopped by a paused lane
    (``automation_paused``) used no attempt and waits for no backoff, only for its lane."""
    if finished_at is None or code == AUTOMATION_PAUSED:
        return None
    return finished_at + timedelta(seconds=backoff_seconds(auto_attempts, base=base))


def is_due(
    now: datetime,
    finished_at: datetime | None,
    auto_attempts: int,
    code: str | None,
    *,
    base: float = BACKOFF_BASE_SECONDS,
) -> bool:
    when = due_at(finished_at, auto_attempts, code, base=base)
    return when is None or when <= now


def pending_due(
    now: datetime,
    stage: str,
    since: datetime,
    auto_attempts: int,
    *,
    base: float = BACKOFF_BASE_SECONDS,
    grace: float = PENDING_GRACE_SECONDS,
) -> bool:
    """A pending row may be picked: a later stage once ``grace`` passed since its last
    change; an Enrich (its preparation ended before claiming it, so that run failed)
    once its backoff passed, as for a failure at its last change."""
    if stage == Stage.ENRICH:
        return is_due(now, since, auto_attempts, None, base=base)
    return since + timedelta(seconds=grace) <= now


def cohort_workflow_id(
    stage: str,
    members: Iterable[tuple[str, int, int]],
    reserved_at: datetime,
    tenant: str,
) -> str:
    """``prepare-auto-<tenant>-<stage>-<24 hex>``: a digest of the frozen cohort (each
    member's job id, attempts and automatic attempts, and when it was reserved), so two
    cohorts never share an id and one cohort keeps its id across restarts (it is saved)."""
    body = "|".join(f"{job}:{attempts}:{auto}" for job, attempts, auto in sorted(members))
    digest = hashlib.sha256(f"{stage}|{body}|{reserved_at.isoformat()}".encode()).hexdigest()
    return f"{workflow_prefix(tenant)}-{stage}-{digest[:24]}"


def vetoed(stage: str, application_status: str | None) -> bool:
    """Automatic ``stage`` is refused for a job whose application is in this status."""
    return stage in DECLINE_VETOED_STAGES and application_status == DECLINED_APPLICATION


def cohort_share(workers: int | None, unfinished: int) -> int:
    """The part of ``pipeline_internal_concurrency`` an open cohort holds: the smaller of
    its immutable worker count and its members not finished yet."""
    return max(0, min(LEGACY_WORKERS if workers is None else int(workers), int(unfinished)))


def remaining_workers(concurrency: int, shares: Iterable[int]) -> int:
    """What the setting leaves for a new cohort once the open ones took their shares
    (0: no dispatch this beat): the setting is shared, never multiplied per batch."""
    return max(0, int(concurrency) - sum(shares))
