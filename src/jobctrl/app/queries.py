"""Every read the CLI and the API offer: jobs, a job (with its latest truth check), its
materials and timeline, discovery runs, spend, the event log, settings, material PDFs,
the profile, sources and lanes (the truth check's own reads are in ``app.truth``).
Queries change nothing (a first read may create and migrate the database).

Each returns a model (``app.models.View``): the CLI's ``--json`` and the API's bodies
are those models dumped by alias (camelCase keys).
"""

from __future__ import annotations

import os
from datetime import date, timedelta
from typing import Any

from pydantic import Field, RootModel

from jobctrl import config as config_file
from jobctrl.app.apply_views import ApplicationSummary, application_summary
from jobctrl.app.materials import pdf_file_name
from jobctrl.app.models import Timestamp, View
from jobctrl.app.truth import TruthCheckView, latest_truth_check
from jobctrl.config import LANES, LaneProvider
from jobctrl.domain.discovery import total_counts
from jobctrl.domain.errors import ARTIFACT_NOT_FOUND, JobctrlError, NotFoundError
from jobctrl.domain.events import summary_fields
from jobctrl.domain.executions import WorkflowType
from jobctrl.domain.stages import JobStatus
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import (
    discovery,
    events,
    job_list,
    jobs,
    materials,
    profiles,
    spend,
    workflow_runs,
)
from jobctrl.store.job_list import JobFilter
from jobctrl.store.settings import SPECS, Settings
from jobctrl.store.store import Store

__all__ = [
    "JOB_SORTS",
    "DiscoveryRunView",
    "JobArtifacts",
    "JobDetail",
    "JobFilter",
    "JobListItem",
    "JobView",
    "LoggedEvent",
    "MaterialView",
    "RunProgress",
    "Salary",
    "StageView",
    "TimelineEvent",
    "daily_spend",
    "discovery_runs",
    "event_log",
    "find_jobs",
    "job_materials",
    "job_timeline",
    "job_view",
    "latest_event_seq",
    "list_jobs",
    "list_lanes",
    "list_sources",
    "material_pdf",
    "posting_text",
    "preparations_running",
    "profile_is_empty",
    "resolve_job",
    "settings_catalogue",
    "settings_values",
    "show_job",
    "show_profile",
    "spend_summary",
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


class JobView(View):
    """One job, read together (`jobctrl show`, ``GET /v1/jobs/{id}``, the Job page)."""

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
    score_report: dict[str, Any] | None
    evaluation_report: EvaluationReport | None
    truth_check: TruthCheckView | None
    # The application summary (``app.apply_views``), or None before one is prepared.
    application: ApplicationSummary | None
    created_at: Timestamp
    updated_at: Timestamp


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


class JobListItem(View):
    """A row of the Jobs list (the list projection)."""

    job_id: str
    title: str | None
    company: str | None
    location: str | None
    remote: bool | None
    score: int | None
    verdict: str | None
    status: str
    current_stage: str | None
    error_code: str | None
    url: str
    updated_at: Timestamp


class TimelineEvent(View):
    """One of a job's events with its summary fields (codes, counts, ids)."""

    seq: int
    type: str
    occurred_at: Timestamp
    fields: dict[str, Any]


def _stage_view(row: dict[str, Any]) -> StageView:
    return StageView(
        stage=row["stage"],
        state=row["state"],
        attempts=row["attempts"],
        error_code=row["error_code"],
        error_message=row["error_message"],
        retryable=row["retryable"],
        owner_run_id=row["owner_run_id"],
        next_attempt_at=row["next_attempt_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


def job_view(store: Store, job_id: str) -> JobView:
    """One job, read together: its extracted fields, stage states (with error codes),
    status (as the job list shows it), score report, evaluation report and the latest
    truth check of its resume or letter."""
    record = jobs.job_record(store, job_id)
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
        stages=[_stage_view(r) for r in record.stages],
        score=score["score"] if score else None,
        verdict=score["verdict"] if score else None,
        score_report=score["report"] if score else None,
        evaluation_report=report,
        truth_check=latest_truth_check(store, job_id),
        application=application_summary(store, job_id),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def show_job(home: Home, ref: str) -> JobView:
    store = Store.open(home)
    return job_view(store, jobs.resolve_job_id(store, ref))


def job_detail(home: Home, ref: str) -> JobDetail:
    """``show_job`` with every generation of the job's materials (``GET /v1/jobs/{id}``)."""
    view = show_job(home, ref)
    return JobDetail(**dict(view), materials=job_materials(home, view.job_id))


def _list_item(r: dict[str, Any]) -> JobListItem:
    return JobListItem(
        job_id=r["job_id"],
        title=r["title"],
        company=r["company"],
        location=r["location"],
        remote=r["remote"],
        score=r["score"],
        verdict=r["verdict"],
        status=r["status"],
        current_stage=r["current_stage"],
        error_code=r["error_code"],
        url=r["url"],
        updated_at=r["updated_at"],
    )


def find_jobs(home: Home, wanted: JobFilter | None = None) -> tuple[list[JobListItem], int]:
    """Jobs from the list projection, filtered and sorted as ``wanted`` says (default:
    every job, highest score first, no score last), and how many match in all.
    `jobctrl jobs`, the API and the Jobs page share it."""
    rows, total = job_list.find(Store.open(home), wanted)
    return [_list_item(r) for r in rows], total


def list_jobs(home: Home) -> list[JobListItem]:
    """Every job, best fit first."""
    return find_jobs(home, JobFilter())[0]


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
    """The PDF of a material and its readable file name (``Ada_Example_Resume_Acme.pdf``,
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
    name = pdf_file_name(row, jobs.job_row(store, job_id).get("company"))
    return store.artifacts.get(artifact_id), name


def preparations_running(home: Home) -> int:
    """How many job preparations the store believes are still running."""
    return workflow_runs.running_count(Store.open(home), WorkflowType.PREPARATION.value)


# -- discovery -----------------------------------------------------------------------------


class RunProgress(View):
    """Steps done of the steps planned."""

    done: int
    total: int


class DiscoveryRunView(View):
    """A discovery run: status, progress and counts (over all steps and per step)."""

    workflow_id: str
    run_id: str
    status: str
    families: list[str]
    progress: RunProgress
    counts: dict[str, int]
    counts_by_step: dict[str, Any]
    error_code: str | None
    started_at: Timestamp
    finished_at: Timestamp | None


def _run_view(row: dict[str, Any]) -> DiscoveryRunView:
    return DiscoveryRunView(
        workflow_id=row["workflow_id"],
        run_id=row["run_id"],
        status=row["status"],
        families=row["families"],
        progress=RunProgress(done=row["progress_done"], total=row["progress_total"] or 0),
        counts=total_counts(row["counts"] or {}),
        counts_by_step=row["counts"] or {},
        error_code=row["error_code"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


def discovery_runs(home: Home, limit: int = 20) -> list[DiscoveryRunView]:
    """Recent discovery runs, newest first, with their progress and counts."""
    return [_run_view(r) for r in discovery.recent_runs(Store.open(home), limit)]


# -- spend ---------------------------------------------------------------------------------


Usd = int | float  # as computed: a sum of nothing is the int 0, and prints as it always did


class LaneSpend(View):
    """One lane's usage today (UTC): tokens, estimated USD and calls."""

    lane: str
    input_tokens: int
    output_tokens: int
    cost_usd: Usd
    calls: int


class OpenReservations(View):
    """Calls in flight that reserved their worst case (strict budgets)."""

    count: int
    amount_usd: Usd


class SpendSummary(View):
    """Today's (UTC) estimated spend against the ceiling (``remainingUsd`` None: no
    ceiling). Observed: what providers reported; assumed: calls whose worker died before
    their usage was recorded, at their worst case."""

    day: str
    strict: bool
    open_reservations: OpenReservations
    daily_budget_usd: Usd
    spent_usd: Usd
    assumed_usd: Usd
    assumed_calls: int
    remaining_usd: Usd | None
    lane_token_limits: dict[str, Any]
    lanes: list[LaneSpend]
    estimate: bool


class SpendBar(View):
    """One UTC day's estimated spend and its bar's height out of 100."""

    day: str
    cost_usd: Usd
    height: float


def spend_summary(home: Home) -> SpendSummary:
    """Today's (UTC) estimated spend per lane against the ceiling, and open reservations."""
    store = Store.open(home)
    return SpendSummary.model_validate(SpendAuthority(store, Settings(store)).summary())


def daily_spend(home: Home, today: str, days: int = 14) -> list[SpendBar]:
    """The last ``days`` UTC days' estimated spend (zero for a day without any), oldest
    first, with each bar's height out of 100."""
    first = date.fromisoformat(today) - timedelta(days=days - 1)
    spent = spend.daily_totals(Store.open(home), first.isoformat(), today)
    days_shown = [(first + timedelta(days=n)).isoformat() for n in range(days)]
    top = max(spent.get(d, 0.0) for d in days_shown) or 1.0
    return [
        SpendBar(day=d, cost_usd=spent.get(d, 0.0), height=round(100 * spent.get(d, 0.0) / top, 1))
        for d in days_shown
    ]


# -- the event log -------------------------------------------------------------------------


class LoggedEvent(View):
    """An event of the log: ids, type, when (a UTC datetime, as the database returns it:
    naive on SQLite) and its payload (codes, counts, ids and refs only)."""

    seq: int
    event_id: str
    type: str
    job_id: str | None
    occurred_at: Timestamp
    payload: dict[str, Any]


def latest_event_seq(home: Home) -> int:
    return events.latest_seq(Store.open(home))


def event_log(home: Home, after: int, limit: int = 500) -> list[LoggedEvent]:
    """Up to ``limit`` events after sequence ``after``, oldest first."""
    return [
        LoggedEvent(
            seq=e["seq"],
            event_id=e["event_id"],
            type=e["type"],
            job_id=e["job_id"],
            occurred_at=e["occurred_at"],
            payload=e["payload"],
        )
        for e in events.events_after(Store.open(home), after, limit)
    ]


# -- settings, profile, sources, lanes -------------------------------------------------------


class SettingsValues(RootModel[dict[str, Any]]):
    """Settings by name (``min_fit_score``, ``fetch.allow_hosts``…) and their values: the
    names are the keys, as they are written (`jobctrl settings set NAME VALUE`)."""


class SettingValue(View):
    """One setting's name and current value (`jobctrl settings get NAME --json`)."""

    key: str
    value: Any


class Setting(View):
    """One setting: its name, current value, default and what it does."""

    key: str
    value: Any
    default: Any
    help: str


def settings_values(home: Home, key: str | None = None) -> SettingsValues:
    """Every setting's current value, or just ``key``'s (an unknown key is refused)."""
    settings = Settings(Store.open(home))
    return SettingsValues({key: settings.get(key)} if key else settings.all())


def settings_catalogue(home: Home) -> list[Setting]:
    """Each setting: key, current value, default and what it does."""
    return [
        Setting(key=key, value=value, default=SPECS[key].default, help=SPECS[key].help)
        for key, value in Settings(Store.open(home)).all().items()
    ]


class ProfileView(View):
    """The candidate profile (as config.yaml holds it) and its version number."""

    version: int
    profile: dict[str, Any]


def show_profile(home: Home) -> ProfileView:
    profile = config_file.load_config(home).profile
    version = profiles.version_of(Store.open(home), profile)
    return ProfileView(version=version, profile=profile.model_dump(mode="json"))


def profile_is_empty(home: Home) -> bool:
    """True when the profile has no skills and no experience yet (scores mean little);
    False also when config.yaml cannot be read (that is reported where it matters)."""
    try:
        profile = config_file.load_config(home).profile
    except JobctrlError:
        return False
    return not profile.skills and not profile.experience


class SourceView(View):
    """A configured source, with the keys of config.yaml's ``sources:`` (``base_url``)."""

    kind: str
    name: str
    base_url: str | None = Field(alias="base_url")
    enabled: bool


def list_sources(home: Home) -> list[SourceView]:
    return [
        SourceView(kind=s.kind, name=s.name, base_url=s.base_url, enabled=s.enabled)
        for s in config_file.load_config(home).sources
    ]


class LaneView(View):
    """A lane's provider and model, and whether its key variable is set (never its value)."""

    lane: str
    provider: str
    model: str
    base_url: str | None
    api_key_env: str | None
    api_key_set: bool


def list_lanes(home: Home) -> list[LaneView]:
    """Each lane's provider and model, and whether its key variable is set (never its value)."""
    providers = config_file.load_config(home).providers
    rows = []
    for lane in LANES:
        lp = providers.get(lane) or LaneProvider()
        key_env = lp.key_env()
        rows.append(
            LaneView(
                lane=lane,
                provider=lp.provider,
                model=lp.model,
                base_url=lp.base_url,
                api_key_env=key_env,
                api_key_set=bool(key_env and os.environ.get(key_env)),
            )
        )
    return rows
