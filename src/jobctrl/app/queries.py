"""Every read of jobs the CLI and the API offer: the job list, a job (with its latest
truth check and its application), its materials, timeline, posting text and material
PDFs (the truth check's own reads are in ``app.truth``; discovery runs, spend and the
event log in ``app.activity``; settings, profile, sources and lanes in
``app.configuration``). Queries change nothing (a first read may create and migrate the
database).

Each returns a model (``app.models.View``): the CLI's ``--json`` and the API's bodies
are those models dumped by alias (camelCase keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from jobctrl.app import job_facts
from jobctrl.app.apply_views import ApplicationSummary, application_summary
from jobctrl.app.job_facts import AvailabilityView
from jobctrl.app.jobs_list import JobListItem, find_jobs, list_jobs
from jobctrl.app.materials import letter_failure, pdf_file_name
from jobctrl.app.models import Timestamp, View
from jobctrl.app.staleness import Freshness, freshness
from jobctrl.app.truth import TruthCheckView, latest_truth_check
from jobctrl.domain import pdf_receipt
from jobctrl.domain.clock import utcnow
from jobctrl.domain.errors import ARTIFACT_NOT_FOUND, JobctrlError, NotFoundError
from jobctrl.domain.events import summary_fields
from jobctrl.domain.executions import WorkflowType
from jobctrl.domain.extension import browser_condition
from jobctrl.domain.fit_verdict import fit_summary
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.stages import JobStatus, StageState, letter_on_request
from jobctrl.home import Home
from jobctrl.store import events, hides, inbox, job_list, jobs, materials, workflow_runs
from jobctrl.store.job_list import JobFilter
from jobctrl.store.store import Store

__all__ = [
    "JOB_SORTS",
    "JobArtifacts",
    "JobDetail",
    "JobFilter",
    "JobListItem",
    "JobView",
    "MaterialView",
    "MissingPdfView",
    "Salary",
    "StageView",
    "TimelineEvent",
    "find_jobs",
    "job_detail",
    "job_materials",
    "job_timeline",
    "job_view",
    "list_jobs",
    "material_pdf",
    "posting_text",
    "preparations_running",
    "resolve_job",
    "show_job",
]

JOB_SORTS = job_list.SORTS


# -- jobs ----------------------------------------------------------------------------------


def resolve_job(home: Home, ref: str) -> str:
    """The id of the job ``ref`` names (a full id or a unique prefix of 4+ characters)."""
    return jobs.resolve_job_id(Store.open(home), ref)


class StageView(View):
    """One stage of a job: its state, attempts and (when it failed) the error."""

    stage: str
    state: str
    attempts: int
    error_code: str | None
    error_message: str | None
    retryable: bool | None
    owner_run_id: str | None
    next_attempt_at: Timestamp | None
    started_at: Timestamp | None
    finished_at: Timestamp | None
    # A typed condition on the stage: ``browser_capture_needed`` for an Enrich the site
    # refused to a robot, which the person's browser (the extension) can save (issue 32).
    condition: str | None = None

    @classmethod
    def of_row(cls, row: Mapping[str, Any]) -> StageView:
        view = cls.from_row(row)
        view.condition = browser_condition(view.stage, view.state, view.error_code)
        return view


class Salary(View):
    """The posting's salary range (either end may be missing)."""

    min: float | None
    max: float | None
    currency: str | None
    period: str | None


class JobArtifacts(View):
    """The stored fetched page and its extracted text (artifact hashes)."""

    page: str | None
    text: str | None


class EvaluationReport(View):
    """The job's numbered evaluation report and where it was written."""

    number: int
    path: str


class MissingPdfView(View):
    """The missing-PDF receipt: the materials the job would use that have no PDF
    (``kinds``), because the PDF step ``failed`` (with its ``code``) or ``not_run``, and
    what to do about it in a sentence."""

    reason: str
    code: str | None
    kinds: list[str]
    sentence: str


def _missing_pdf(store: Store, job_id: str, stages: list[dict[str, Any]]) -> MissingPdfView | None:
    pdf = next((r for r in stages if r["stage"] == "pdf"), None)
    busy = any(r["state"] == StageState.RUNNING.value for r in stages)
    found = pdf_receipt.missing_pdf(
        materials.list_materials(store, job_id),
        pdf["state"] if pdf else None,
        pdf["error_code"] if pdf else None,
        job_busy=busy,
    )
    if found is None:
        return None
    what = " and ".join("letter" if k == "cover" else k for k in found.kinds)
    if found.reason == pdf_receipt.FAILED:
        sentence = (
            f"The PDF step failed ({found.code}): the {what} has no PDF yet. "
            f"Try again: jobctrl retry {job_id} --stage pdf"
        )
    else:
        sentence = (
            f"The {what} was written, but its PDF was never made. "
            f"Make it: jobctrl reset {job_id} --stage pdf && jobctrl retry {job_id}"
        )
    return MissingPdfView(
        reason=found.reason, code=found.code, kinds=list(found.kinds), sentence=sentence
    )


class JobView(Freshness):
    """One job, read together (`jobctrl show`, ``GET /v1/jobs/{id}``, the Job page), and
    the profile versions its score and materials were made with (``stale``: another
    version than the current one)."""

    job_id: str
    idempotency_key: str
    url: str
    canonical_url: str
    source: str
    status: str
    title: str | None
    company: str | None
    location: str | None
    remote: bool | None
    salary: Salary | None
    apply_url: str | None
    date_posted: str | None
    valid_through: str | None
    extraction_method: str | None
    artifacts: JobArtifacts
    stages: list[StageView]
    score: int | None
    verdict: str | None
    # One line on why: "meets 6/6 must-haves; level matches" (None before a score).
    fit_summary: str | None
    score_report: dict[str, Any] | None
    evaluation_report: EvaluationReport | None
    truth_check: TruthCheckView | None
    # The application summary (``app.apply_views``), or None before one is prepared.
    application: ApplicationSummary | None
    created_at: Timestamp
    updated_at: Timestamp
    # The posting's availability (last check, result, next check), what the person does
    # next and why, and whether they hid the job (with their reason).
    availability: AvailabilityView | None = None
    next_action: str | None = None
    next_action_reason: str | None = None
    hidden: bool = False
    hidden_reason: str | None = None
    # Materials written whose PDF failed or was never made (issue 34), else None.
    missing_pdf: MissingPdfView | None = None
    # The cover letter waits for the person to ask for it ("Write the cover letter"):
    # never asked for, or asked for and failed (then ``letter_failure`` says why).
    letter_on_request: bool = False
    letter_failure: str | None = None


class MaterialView(View):
    """One generation of a job's resume or letter: approval state and its PDF."""

    job_id: str
    kind: str
    generation: int
    approval: str
    provider: str
    model: str
    profile_version: int | None
    pdf_artifact: str | None
    pdf_url: str | None
    pdf_path: str | None
    created_at: Timestamp
    decided_at: Timestamp | None


class JobDetail(JobView):
    """``GET /v1/jobs/{id}``: the job and every generation of its materials."""

    materials: list[MaterialView]


class TimelineEvent(View):
    """One of a job's events with its summary fields (codes, counts, ids)."""

    seq: int
    type: str
    occurred_at: Timestamp
    fields: dict[str, Any]


def job_view(store: Store, job_id: str, home: Home | None = None) -> JobView:
    """One job, read together: its extracted fields, stage states (with error codes),
    status (as the job list shows it), score report, evaluation report and the latest
    truth check of its resume or letter; with ``home`` (whose config.yaml holds the
    current profile), its profile versions and whether it is stale."""
    record = jobs.job_record(store, job_id)
    states = {r["stage"]: (r["state"], r["error_code"]) for r in record.stages}
    fresh = freshness(home, store, [job_id])[job_id] if home is not None else Freshness()
    row, score, numbered = record.job, record.score, record.report
    salary = None
    if row["salary_min"] is not None or row["salary_max"] is not None:
        salary = Salary(
            min=row["salary_min"],
            max=row["salary_max"],
            currency=row["salary_currency"],
            period=row["salary_period"],
        )
    report = (
        EvaluationReport(
            number=numbered["number"],
            path=str(store.artifacts.root.parent / numbered["path"]),
        )
        if numbered and numbered["path"]
        else None
    )
    return JobView(
        job_id=row["id"],
        idempotency_key=row["idempotency_key"],
        url=row["url"],
        canonical_url=row["canonical_url"],
        source=row["source"],
        status=record.status or JobStatus.PENDING.value,
        title=row["title"],
        company=row["company"],
        location=row["location"],
        remote=row["remote"],
        salary=salary,
        apply_url=row["apply_url"],
        date_posted=row["date_posted"],
        valid_through=row["valid_through"],
        extraction_method=row["extraction_method"],
        artifacts=JobArtifacts(page=row["raw_artifact"], text=row["text_artifact"]),
        stages=[StageView.of_row(r) for r in record.stages],
        score=score["score"] if score else None,
        verdict=score["verdict"] if score else None,
        fit_summary=_fit_summary(score["report"]) if score else None,
        score_report=score["report"] if score else None,
        evaluation_report=report,
        truth_check=latest_truth_check(store, job_id),
        application=application_summary(store, job_id),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        **dict(fresh),
        **_inbox_fields(store, job_id, row),
        missing_pdf=_missing_pdf(store, job_id, record.stages),
        letter_on_request=letter_on_request(states),
        letter_failure=letter_failure(job_id, states),
    )


def _inbox_fields(store: Store, job_id: str, row: dict[str, Any]) -> dict[str, Any]:
    """A job's availability, next action and hide, as the Jobs list has them."""
    now, hide = utcnow(), hides.is_hidden(store, job_id)
    listed = inbox.inbox_rows(store, JobFilter(), job_ids=[job_id])
    step = job_facts.next_step(listed[0], job_facts.inbox_rules(store), now) if listed else None
    return {
        "availability": job_facts.availability_view(row, now),
        "next_action": step.action.value if step else None,
        "next_action_reason": step.reason if step else None,
        "hidden": hide is not None,
        "hidden_reason": hide.reason if hide else None,
    }


def _fit_summary(report: dict[str, Any]) -> str | None:
    """A stored report's one-line reason; one from before issue 29 gets it derived."""
    if report.get("fit_summary"):
        return str(report["fit_summary"])
    try:
        return fit_summary(ScoreReport.model_validate(report))
    except ValidationError:
        return None


def show_job(home: Home, ref: str) -> JobView:
    store = Store.open(home)
    return job_view(store, jobs.resolve_job_id(store, ref), home)


def job_detail(home: Home, ref: str) -> JobDetail:
    """``show_job`` with every generation of the job's materials (``GET /v1/jobs/{id}``)."""
    view = show_job(home, ref)
    return JobDetail(**dict(view), materials=job_materials(home, view.job_id))


def job_materials(home: Home, ref: str) -> list[MaterialView]:
    """Each material of a job: kind, generation, approval state and its PDF."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    return [
        MaterialView(
            job_id=job_id,
            kind=m["kind"],
            generation=m["generation"],
            approval=m["state"],
            provider=m["provider"],
            model=m["model"],
            profile_version=m["profile_version"],
            pdf_artifact=m["pdf_artifact"],
            pdf_url=f"/v1/artifacts/{m['pdf_artifact']}" if m["pdf_artifact"] else None,
            pdf_path=str(store.artifacts.path_for(m["pdf_artifact"]))
            if m["pdf_artifact"]
            else None,
            created_at=m["created_at"],
            decided_at=m["decided_at"],
        )
        for m in materials.list_materials(store, job_id)
    ]


def job_timeline(home: Home, job_id: str) -> list[TimelineEvent]:
    """A job's events, oldest first, each with its summary fields (codes, counts, ids)."""
    return [
        TimelineEvent(
            seq=e["seq"],
            type=e["type"],
            occurred_at=e["occurred_at"],
            fields=summary_fields(e["payload"]),
        )
        for e in events.job_events(Store.open(home), job_id)
    ]


def posting_text(home: Home, sha: str | None, limit: int = 20_000) -> str:
    """A posting's extracted plain text (never its HTML), shortened to ``limit``; only
    the text of one of the tenant's jobs (artifacts are shared by every tenant)."""
    store = Store.open(home)
    if not sha or not jobs.has_text_artifact(store, sha):
        return ""
    try:
        text = store.artifacts.get(sha).decode("utf-8", "replace")
    except (OSError, JobctrlError):
        return ""
    return text if len(text) <= limit else text[:limit] + " …"


def material_pdf(home: Home, artifact_id: str) -> tuple[bytes, str]:
    """The PDF of a material and its readable file name (``Ada_Example_Resume_Acme_Engineer.pdf``,
    as `jobctrl materials export` writes it). Only material PDFs are served: other
    artifacts (fetched pages among them) never leave the store this way."""
    store = Store.open(home)
    owner = materials.pdf_owner(store, artifact_id)
    if owner is None:
        raise NotFoundError(f"no material PDF {artifact_id[:12]}", code=ARTIFACT_NOT_FOUND)
    job_id = owner[0]
    row = next(
        m for m in materials.list_materials(store, job_id) if m["pdf_artifact"] == artifact_id
    )
    job = jobs.job_row(store, job_id)
    name = pdf_file_name(row, job.get("company"), job.get("title"))
    return store.artifacts.get(artifact_id), name


def preparations_running(home: Home) -> int:
    """How many job preparations the store believes are still running."""
    return workflow_runs.running_count(Store.open(home), WorkflowType.PREPARATION.value)
