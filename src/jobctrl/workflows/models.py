"""Small typed values that cross workflow and activity boundaries: ids, codes, refs only.

Every input names the tenant it acts for (``tenant_id``). Its default, ``local``, is what
an input recorded before tenants means: their histories replay and their executions in
flight at an upgrade go on as the local tenant's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from temporalio.common import RetryPolicy

from jobctrl.domain.discovery import ExecutionRef, FamilyPlan
from jobctrl.domain.tenants import LOCAL


@dataclass(frozen=True)
class RetrySettings:
    """Frozen at start from the settings, so the workflow stays deterministic."""

    max_attempts: int = 3
    initial_interval_seconds: float = 5.0
    heartbeat_timeout_seconds: float = 30.0

    def policy(self) -> RetryPolicy:
        """The activities' retry policy: exponential from the initial interval, at most
        five minutes apart, ``max_attempts`` in all."""
        return RetryPolicy(
            initial_interval=timedelta(seconds=self.initial_interval_seconds),
            backoff_coefficient=2.0,
            maximum_interval=timedelta(minutes=5),
            maximum_attempts=self.max_attempts,
        )

    @property
    def heartbeat_timeout(self) -> timedelta:
        return timedelta(seconds=self.heartbeat_timeout_seconds)


@dataclass(frozen=True)
class PrepInput:
    job_id: str
    idempotency_key: str
    retry: RetrySettings = RetrySettings()
    profile_version: int | None = None  # the profile this work was admitted under
    # Run Tailor, Cover and PDF after a passing Score. Every start says which; the field is
    # absent only from inputs recorded before materials existed (read as False: the
    # workflow's replay of the materials-v1 marker decides for those).
    materials: bool = False
    tenant_id: str = LOCAL
    # Ask a paid Score lane even when the free offline pre-score places the job far below
    # min_fit_score (``jobctrl rescore --paid``).
    paid_score: bool = False


@dataclass(frozen=True)
class StageInput:
    job_id: str
    profile_version: int | None = None
    materials: bool = True  # Score marks the later stages skipped (MATERIALS_OFF) if not
    tenant_id: str = LOCAL
    paid_score: bool = False  # as PrepInput.paid_score


@dataclass(frozen=True)
class EnrichResult:
    job_id: str
    text_artifact: str | None
    reused: bool


@dataclass(frozen=True)
class ScoreResult:
    job_id: str
    score: int
    below_threshold: bool
    reused: bool


@dataclass(frozen=True)
class FinalizeInput:
    job_id: str
    workflow_id: str
    run_id: str
    outcome: str  # an executions.Outcome value
    error_code: str | None = None
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class PrepResult:
    job_id: str
    outcome: str
    score: int | None = None
    error_code: str | None = None


# -- availability ----------------------------------------------------------------------


@dataclass(frozen=True)
class SweepInput:
    limit: int  # at most this many checks
    budget_seconds: float  # no new check starts after this long
    heartbeat_timeout_seconds: float = 30.0
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class SweepResult:
    counts: dict[str, int]  # per outcome: active, unavailable, unknown, failed


# -- discovery (the execution reference, plan and finish are domain values) -----------------


@dataclass(frozen=True)
class DiscoverInput:
    tenant_id: str = LOCAL
    retry: RetrySettings = RetrySettings()


@dataclass(frozen=True)
class FamilyInput:
    ref: ExecutionRef
    family: FamilyPlan
    index: int


@dataclass(frozen=True)
class StepResult:
    counts: dict[str, int]


@dataclass(frozen=True)
class DiscoverResult:
    status: str
    error_code: str | None
    counts: dict[str, int]


# -- apply (the standing loop and one-shot applies) ----------------------------------------


@dataclass(frozen=True)
class ApplyWorkflowInput:
    """One job's apply (``job_id``) or the standing loop (``continuous``; the auto_apply
    reconciler starts it with ``auto_apply_loop``). ``counts`` carries the loop's totals
    across continue-as-new."""

    job_id: str | None = None
    continuous: bool = False
    auto_apply_loop: bool = False
    polls_per_run: int = 200  # then continue-as-new, so the history stays bounded
    retry: RetrySettings = RetrySettings()
    counts: dict[str, int] = field(default_factory=dict)
    tenant_id: str = LOCAL  # carried across continue-as-new with the rest


@dataclass(frozen=True)
class ApplyClaimInput:
    workflow_id: str
    run_id: str
    job_id: str | None = None  # None: the standing loop's next jobs
    first: bool = False  # the run's first poll: the run is recorded as started
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class ClaimRef:
    claim_id: str
    job_id: str


@dataclass(frozen=True)
class ApplyClaimResult:
    claims: list[ClaimRef]
    parked: dict[str, int]  # jobs passed over, by code
    refused: str | None = None  # a named job's refusal
    already: str | None = None  # a named job's application is prepared already: its status
    poll_seconds: float = 30.0  # the loop's pause when it found nothing, as set now


@dataclass(frozen=True)
class ApplyPrepareInput:
    claim_id: str
    job_id: str
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class ApplyPrepareResult:
    job_id: str
    application_id: str | None
    channel: str | None
    status: str  # the application's: draft (waiting for the person) or failed
    error_code: str | None = None


@dataclass(frozen=True)
class ApplyFinishInput:
    workflow_id: str
    run_id: str
    job_id: str | None
    status: str  # an ApplyRunStatus value
    outcome: str | None = None
    error_code: str | None = None
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class ApplyResult:
    status: str
    error_code: str | None
    counts: dict[str, int]


# -- automatic preparation recovery (one stage for a frozen cohort) -------------------------


@dataclass(frozen=True)
class RecoveryInput:
    """A frozen cohort: one stage for at most 25 jobs, each run as the stage's normal
    activity with one Temporal attempt (the heartbeat owns later attempts)."""

    stage: str  # enrich | score | tailor | cover | pdf
    job_ids: list[str]
    retry: RetrySettings = RetrySettings()  # its heartbeat timeout; attempts stay 1
    profile_version: int | None = None
    materials: bool = True
    # Members run at once: the worker count the heartbeat gave it from what
    # ``pipeline_internal_concurrency`` left; frozen with the cohort, never rewritten (2:
    # the default of inputs recorded before the setting).
    concurrency: int = 2
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class RecoveryBeginInput:
    workflow_id: str
    run_id: str
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class RecoveryFinishInput:
    workflow_id: str
    run_id: str
    stage: str
    job_ids: list[str]
    status: str  # completed | failed | canceled
    error_code: str | None = None
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class RecoveryResult:
    stage: str
    counts: dict[str, int]  # succeeded, failed, released


# -- ContactResearchWorkflow (issue 33): ids only; the people stay in the store ----------


@dataclass(frozen=True)
class ContactResearchInput:
    task_id: str
    retry: RetrySettings = field(default_factory=RetrySettings)
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class ContactClaimInput:
    task_id: str
    workflow_id: str
    run_id: str
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class ContactClaimResult:
    job_id: str
    sources: int
    done: bool


@dataclass(frozen=True)
class ContactSourceInput:
    task_id: str
    run_id: str
    index: int
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class ContactFinishInput:
    task_id: str
    workflow_id: str
    run_id: str
    job_id: str
    error_code: str | None = None
    tenant_id: str = LOCAL


@dataclass(frozen=True)
class ContactResearchResult:
    candidates: int
    error_code: str | None = None
