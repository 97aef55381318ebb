"""The typed event registry: one pydantic model per event type, camelCase payloads.

Events carry codes, counts, ids and artifact references only: never raw page text, a
prompt, a provider response, a credential or exception text.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class DomainEvent(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", defer_build=True
    )
    type: ClassVar[str]

    def payload(self) -> dict[str, object]:
        return self.model_dump(mode="json", by_alias=True)


class JobCreated(DomainEvent):
    type = "JobCreated"
    job_id: str
    url: str
    canonical_url: str
    idempotency_key: str
    source: str = "manual"


class WorkflowStarted(DomainEvent):
    type = "WorkflowStarted"
    workflow_id: str
    run_id: str
    workflow_type: str
    job_id: str | None = None


class WorkflowCompleted(DomainEvent):
    type = "WorkflowCompleted"
    workflow_id: str
    run_id: str
    outcome: str  # "prepared" | "skipped" | "failed"


class WorkflowFailed(DomainEvent):
    type = "WorkflowFailed"
    workflow_id: str
    run_id: str
    error_code: str


class WorkflowCanceled(DomainEvent):
    type = "WorkflowCanceled"
    workflow_id: str
    run_id: str


class WorkflowReconciled(DomainEvent):
    """The reconciler compared a run the store believed open with what Temporal describes
    for that exact execution: ``verdict`` is the status it recorded (``completed``,
    ``failed``, ``canceled``, ``running`` when a run thought lost was found again, or the
    provisional ``reconciled_not_found``); ``previous`` is what the store said before, so
    a false verdict stays in the audit trail."""

    type = "WorkflowReconciled"
    workflow_id: str
    run_id: str
    verdict: str
    previous: str
    outcome: str | None = None
    error_code: str | None = None


class StageQueued(DomainEvent):
    """Automatic recovery reserved this stage for its frozen cohort (``workflowId``),
    recording the state and attempt count it had before."""

    type = "StageQueued"
    job_id: str
    stage: str
    workflow_id: str
    prior_state: str
    attempts: int
    auto_attempt: int


class StageDeclined(DomainEvent):
    """Automatic recovery skipped ``stage`` (Tailor/Cover) because the person abandoned
    the job's application: the row ends skipped with no error code, never retried
    automatically (a MIN_SCORE skip is a StageSkipped). ``workflowId`` is the cohort."""

    type = "StageDeclined"
    job_id: str
    stage: str
    workflow_id: str


class StageReservationReleased(DomainEvent):
    """Before its frozen cohort was started again, a declined member that never started
    was released (its state and attempts as they were): ``workflowId`` was its
    reservation, ``reason`` why (``apply_declined``)."""

    type = "StageReservationReleased"
    job_id: str
    stage: str
    workflow_id: str
    reason: str


class EnrichmentFetchRechecked(DomainEvent):
    """The worker re-resolved an Enrich refused with ``DETAIL_UNSAFE_URL`` (a host name
    that resolved to a non-public address): ``cause`` is the failure's evidence, ``host``
    the host name checked (no URL), ``result`` public|non_public|unresolved, ``checks``
    how many so far, ``nextCheckAt`` when again (None: no more, or resolved). The
    original StageFailed stays as it was."""

    type = "EnrichmentFetchRechecked"
    job_id: str
    error_code: str
    cause: str
    host: str
    result: str
    checks: int
    next_check_at: datetime | None = None


class StopLossPaused(DomainEvent):
    """``threshold`` jobs in a row failed with ``code`` in one lane or source: its
    automation is paused until the person resumes it."""

    type = "StopLossPaused"
    kind: str  # lane | source
    name: str
    code: str
    streak: int


class StopLossResumed(DomainEvent):
    type = "StopLossResumed"
    kind: str
    name: str
    code: str | None = None


class StageStarted(DomainEvent):
    type = "StageStarted"
    job_id: str
    stage: str
    attempt: int
    run_id: str


class StageSucceeded(DomainEvent):
    type = "StageSucceeded"
    job_id: str
    stage: str
    attempt: int
    run_id: str


class StageFailed(DomainEvent):
    type = "StageFailed"
    job_id: str
    stage: str
    attempt: int
    run_id: str
    error_code: str
    retryable: bool
    # Attempts the stage has used after this one (one less when it used none: a spent
    # budget). None in events written before the field existed: then ``attempt``.
    attempts_used: int | None = None
    # A refused truth check (TAILOR_FABRICATION / COVER_FABRICATION): how many unsupported
    # claims it found. The claims themselves are in the store (truth_checks), never here.
    findings: int | None = None


class StageSkipped(DomainEvent):
    type = "StageSkipped"
    job_id: str
    stage: str
    reason: str


class JobEnriched(DomainEvent):
    type = "JobEnriched"
    job_id: str
    title: str | None = None
    company: str | None = None
    location: str | None = None
    remote: bool | None = None
    salary_min: float | None = None
    salary_max: float | None = None
    salary_currency: str | None = None
    salary_period: str | None = None
    apply_url: str | None = None
    date_posted: str | None = None
    valid_through: str | None = None
    method: str
    raw_artifact: str
    text_artifact: str


class JobScored(DomainEvent):
    type = "JobScored"
    job_id: str
    score: int
    verdict: str
    provider: str
    model: str
    requirements_total: int
    requirements_matched: int
    report_artifact: str
    profile_version: int | None = None  # None: scored before versions were recorded (28)


class JobDiscovered(DomainEvent):
    """A source observed the job (title/company/location as the source listed them)."""

    type = "JobDiscovered"
    job_id: str
    source_kind: str
    source_name: str
    title: str | None = None
    company: str | None = None
    location: str | None = None
    discover_workflow_id: str
    discover_run_id: str
    cohort: str


class DiscoveryRunStarted(DomainEvent):
    type = "DiscoveryRunStarted"
    tenant_id: str
    workflow_id: str
    run_id: str
    families: list[str]
    progress_total: int


class DiscoveryRunCompleted(DomainEvent):
    type = "DiscoveryRunCompleted"
    tenant_id: str
    workflow_id: str
    run_id: str
    status: str  # "completed" | "partial" | "canceled"
    error_code: str | None = None
    counts: dict[str, int]


class DiscoveryRunFailed(DomainEvent):
    type = "DiscoveryRunFailed"
    tenant_id: str
    workflow_id: str
    run_id: str
    error_code: str


class PipelineStep(DomainEvent):
    """A Discover step's lifecycle; the four event types below share these fields."""

    workflow_id: str
    run_id: str
    step_kind: str  # source_planning | source_family | enrichment_pass | preparation_fanout
    item_key: str
    attempt: int


class PipelineStepQueued(PipelineStep):
    type = "PipelineStepQueued"


class PipelineStepStarted(PipelineStep):
    type = "PipelineStepStarted"


class PipelineStepCompleted(PipelineStep):
    type = "PipelineStepCompleted"
    counts: dict[str, int] = {}


class PipelineStepFailed(PipelineStep):
    type = "PipelineStepFailed"
    error_code: str


class MaterialGenerated(DomainEvent):
    type = "MaterialGenerated"
    job_id: str
    kind: str  # resume | cover
    generation: int
    provider: str
    model: str


class MaterialsRendered(DomainEvent):
    type = "MaterialsRendered"
    job_id: str
    resume_pdf: str | None = None
    cover_pdf: str | None = None


class MaterialDecided(DomainEvent):
    type = "MaterialDecided"
    job_id: str
    kind: str
    generation: int
    state: str  # approved | rejected


class StageReset(DomainEvent):
    """A finished stage was put back to pending on purpose (``reason`` says why)."""

    type = "StageReset"
    job_id: str
    stage: str
    reason: str


class StagesPending(DomainEvent):
    """``stages`` of the job wait as pending rows that no other event announced: Score
    found the job fit and left Tailor, Cover and PDF for its preparation (or automatic
    recovery, one stage at a time) to run. The job list folds them as pending, so the job
    is never listed prepared while they wait. Logs from before this event fold as they
    did: such rows were learned of when they started."""

    type = "StagesPending"
    job_id: str
    stages: list[str]


class ProfileVersionRecorded(DomainEvent):
    """A new candidate profile (by content) was recorded under ``version`` (logs from
    before issue 28; a new version is ``ProfileVersionCreated`` since)."""

    type = "ProfileVersionRecorded"
    version: int
    sha256: str


class ProfileVersionCreated(DomainEvent):
    """A new candidate profile (by content) was recorded under ``version``: imported,
    edited in config.yaml or on the web. ``previous``: the newest version before it."""

    type = "ProfileVersionCreated"
    version: int
    sha256: str
    previous: int | None = None


class JobsMarkedStale(DomainEvent):
    """With profile ``version`` new, this many jobs were made with another one (counts
    only; staleness itself is derived, never stored): ``jobs`` in all, ``scores`` scored
    and ``materials`` with unapproved materials written for another version."""

    type = "JobsMarkedStale"
    version: int
    jobs: int
    scores: int
    materials: int


class SettingChanged(DomainEvent):
    type = "SettingChanged"
    key: str


class JobAvailabilityChecked(DomainEvent):
    """One availability check of a saved job's posting (codes and clocks only, no page text).

    ``availability`` is "active", "unavailable" or "unknown"; ``previous`` is the state
    before (None when never checked); ``code`` is the stable reason (an ``ENRICH_*`` fetch
    code or ``POSTING_EXPIRED``), None when active; ``failures`` counts unknown checks in a row.
    """

    type = "JobAvailabilityChecked"
    job_id: str
    availability: str
    previous: str | None = None
    code: str | None = None
    failures: int = 0
    checked_at: datetime
    next_check_at: datetime


class JobHidden(DomainEvent):
    """The person hid the job ("not interested"): whether they gave a reason, never it."""

    type = "JobHidden"
    job_id: str
    has_reason: bool = False


class JobUnhidden(DomainEvent):
    """The person brought a hidden job back into the inbox (``reset``: its stages skipped
    while hidden wait again)."""

    type = "JobUnhidden"
    job_id: str
    reset: list[str] = []


class JobDeleted(DomainEvent):
    """The person deleted the job: its rows, materials, events and the files no other job
    uses are gone; this audit event keeps only the id, counts and whether the posting
    stays hidden if found again (no URL, title or text)."""

    type = "JobDeleted"
    job_id: str
    rows: int
    artifacts: int
    hidden: bool = False


class ReportWritten(DomainEvent):
    """The coordinator wrote evaluation report ``number`` (``path`` relative to the home)."""

    type = "ReportWritten"
    job_id: str
    number: int
    path: str


# -- applications: ids, codes, counts and hashes only; never an address, subject or body


class ApplicationEvent(DomainEvent):
    """An application's lifecycle; ``job_id`` is None for one imported without a job."""

    application_id: str
    job_id: str | None = None


class ApplicationPrepared(ApplicationEvent):
    type = "ApplicationPrepared"
    channel: str  # email | browser
    recipients: int = 0
    attachments: int = 0
    body_sha256: str | None = None


class ApplicationApproved(ApplicationEvent):
    type = "ApplicationApproved"
    digest: str
    expires_at: datetime


class ApplicationSendIntent(ApplicationEvent):  # before the SMTP conversation starts
    type = "ApplicationSendIntent"
    attempt_id: str
    digest: str


class ApplicationSent(ApplicationEvent):
    type = "ApplicationSent"
    attempt_id: str


class ApplicationSubmitted(ApplicationEvent):
    """A form the person submitted (``detected`` by the program, or told by the person)."""

    type = "ApplicationSubmitted"
    attempt_id: str | None = None
    how: str = "person"  # detected | person


class ApplicationOutcomeUnknown(ApplicationEvent):
    """The data went out, the server's answer was never recorded: never re-sent by itself."""

    type = "ApplicationOutcomeUnknown"
    attempt_id: str
    reason: str  # a code: connection_lost | sender_died | ...


class ApplicationFailed(ApplicationEvent):
    type = "ApplicationFailed"
    attempt_id: str | None = None
    error_code: str
    retryable: bool = True


class ApplicationCancelled(ApplicationEvent):  # an approval withdrawn, or an application dropped
    type = "ApplicationCancelled"
    reason: str  # approval_invalidated | ...
    status: str  # the application's status after it


class ApplicationResolved(ApplicationEvent):
    type = "ApplicationResolved"
    resolution: str  # sent | not-sent | submitted | abandoned
    status: str


class ApplicationOutcomeSet(ApplicationEvent):
    type = "ApplicationOutcomeSet"
    outcome: str
    follow_up: str | None = None  # a date, YYYY-MM-DD


class ApplicationRecorded(ApplicationEvent):
    """An application made outside jobctrl's channels: imported from a career-ops tracker
    (``source`` career-ops) or marked applied by the person (``person``)."""

    type = "ApplicationRecorded"
    status: str  # the application's status after it
    outcome: str | None = None
    source: str  # career-ops | person


class ApplicationPrefilled(ApplicationEvent):
    type = "ApplicationPrefilled"
    attempt_id: str | None = None
    filled: int = 0
    left: int = 0
    error_code: str | None = None


# -- follow-ups and outreach (issue 33): ids, codes, counts and hashes only; never an address,
# a name, a subject or a body


class OutboundEvent(DomainEvent):
    """An outbound message's lifecycle (``kind``: followup | outreach)."""

    outbound_id: str
    kind: str
    job_id: str | None = None
    application_id: str | None = None
    contact_id: str | None = None


class OutboundPrepared(OutboundEvent):
    type = "OutboundPrepared"
    channel: str  # email | note
    recipients: int = 0
    body_sha256: str | None = None


class OutboundApproved(OutboundEvent):
    type = "OutboundApproved"
    digest: str
    expires_at: datetime


class OutboundSendIntent(OutboundEvent):  # before the SMTP conversation starts
    type = "OutboundSendIntent"
    attempt_id: str
    digest: str


class OutboundSent(OutboundEvent):
    type = "OutboundSent"
    attempt_id: str


class OutboundFailed(OutboundEvent):
    type = "OutboundFailed"
    attempt_id: str
    error_code: str


class OutboundOutcomeUnknown(OutboundEvent):
    type = "OutboundOutcomeUnknown"
    attempt_id: str
    reason: str


class OutboundResolved(OutboundEvent):
    type = "OutboundResolved"
    resolution: str
    status: str


# The payload fields a one-line summary of an event shows (`jobctrl events`, the Job
# page's timeline): codes, counts and ids.
SUMMARY_FIELDS = ("stage", "attempt", "errorCode", "score", "verdict", "outcome", "reason",
                  "kind", "generation", "state", "availability", "code", "number", "method",
                  "key", "workflowId", "findings", "applicationId", "channel", "resolution",
                  "status")  # fmt: skip


def summary_fields(payload: dict[str, object]) -> dict[str, object]:
    return {k: payload[k] for k in SUMMARY_FIELDS if k in payload}


def _concrete(base: type[DomainEvent]) -> list[type[DomainEvent]]:
    """Every event class below ``base`` that names its type (a family's base names none)."""
    found = []
    for cls in base.__subclasses__():
        if "type" in cls.__dict__:
            found.append(cls)
        found += _concrete(cls)
    return found


# Every event type defined above: a new event class is registered by being one.
REGISTRY: dict[str, type[DomainEvent]] = {cls.type: cls for cls in _concrete(DomainEvent)}


def parse_event(event_type: str, payload: dict[str, object]) -> DomainEvent:
    return REGISTRY[event_type].model_validate(payload)
