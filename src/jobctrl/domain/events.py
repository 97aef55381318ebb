"""The typed event registry: one pydantic model per event type, camelCase payloads.

Events carry codes, counts, ids and artifact references only: never raw page text, a
prompt, a provider response, a credential or exception text.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class DomainEvent(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")
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


class SettingChanged(DomainEvent):
    type = "SettingChanged"
    key: str


REGISTRY: dict[str, type[DomainEvent]] = {
    cls.type: cls
    for cls in (
        JobCreated,
        WorkflowStarted,
        WorkflowCompleted,
        WorkflowFailed,
        StageStarted,
        StageSucceeded,
        StageFailed,
        StageSkipped,
        JobEnriched,
        JobScored,
        SettingChanged,
    )
}


def parse_event(event_type: str, payload: dict[str, object]) -> DomainEvent:
    return REGISTRY[event_type].model_validate(payload)
