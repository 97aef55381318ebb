"""Server-rendered pages (Jinja2, autoescaped): Jobs, Job, Apply, Runs, Applications,
Spend and Settings.

The pages read the same application queries as the JSON API and change nothing
themselves: their buttons and forms call the JSON API from ``static/app.js`` (same-origin
``fetch``). A page with live content re-renders just that part on ``?fragment=NAME``
when the event stream says something changed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from jobctrl.api import material_forms
from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import (
    activity,
    answers,
    applications,
    apply_loop,
    apply_views,
    configuration,
    contacts,
    control,
    discovery,
    discovery_plan,
    followups,
    inbox,
    outreach,
    queries,
    rescore,
    staleness,
    truth,
)
from jobctrl.app import extension as app_extension
from jobctrl.app import settings_page as settings_view
from jobctrl.app.models import dump
from jobctrl.app.queries import MaterialView
from jobctrl.domain.discovery import RunStatus
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.events import REGISTRY
from jobctrl.domain.inbox import NextAction
from jobctrl.domain.materials import MaterialState
from jobctrl.domain.plain_words import sentence
from jobctrl.domain.shown_text import without_controls
from jobctrl.domain.stages import JobStatus, Stage

HERE = Path(__file__).parent
STAGES = tuple(s.value for s in Stage)
STATUSES = tuple(s.value for s in JobStatus)
ACTIONS = {a.value: inbox.GROUPS[a][0] for a in NextAction}  # the inbox's groups, titled
PER_PAGE = 50


def _when(value: datetime | str | None) -> str:
    if not value:
        return ""
    at = datetime.fromisoformat(value) if isinstance(value, str) else value
    at = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    return at.strftime("%Y-%m-%d %H:%M:%S")


def _is_web_url(url: str | None) -> bool:
    """Only http(s) URLs become links (a ``javascript:`` URL from a posting must not)."""
    return bool(url) and str(url).lower().startswith(("http://", "https://"))


def _shown(value: Any) -> Any:
    """Every ``{{ … }}`` a page prints, without control or bidirectional formatting
    characters: a title stored with a U+202E before issue 30 cannot reverse a row."""
    if isinstance(value, Markup):
        return Markup(without_controls(str(value)))
    return without_controls(value) if isinstance(value, str) else value


_env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    finalize=_shown,
)
_env.filters["when"] = _when
_env.filters["plain"] = sentence  # a code in plain words (domain.plain_words)
_env.globals.update(event_types=" ".join(REGISTRY), stages=STAGES, is_web_url=_is_web_url)


def _render(name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_env.get_template(name).render(**context), status_code=status_code)


# The pages of other API modules (api/operations.py) render through the same environment.
render_page = _render


def _int_or_none(raw: str, low: int, high: int) -> int | None:
    """A GET form sends empty fields as ``""``: that (or junk) means no filter."""
    try:
        return min(high, max(low, int(raw)))
    except ValueError:
        return None


def _viewer_rank(material: MaterialView) -> tuple[bool, bool, int]:
    approval = material.approval
    return (
        approval == MaterialState.DRAFT,
        approval == MaterialState.APPROVED,
        material.generation,
    )


router = tenant_router(include_in_schema=False)
"""The HTML pages (Jobs, Job, Runs, Applications, Spend, Settings); ``STATIC`` is served
at ``/static`` (api/app.py mounts it)."""
STATIC = HERE / "static"


@router.get("/", include_in_schema=False)
def index(home: TenantHome) -> RedirectResponse:
    return RedirectResponse("/jobs", status_code=303)


@router.get("/jobs", response_class=HTMLResponse, include_in_schema=False)
def jobs_page(
    home: TenantHome,
    stage: str = "",
    status: str = "",
    min_score: str = "",
    q: str = "",
    sort: str = "score",
    page: str = "1",
    action: str = "",
    view: str = "",
    fragment: str = "",
) -> HTMLResponse:
    """The inbox (jobs grouped by next action); with ``action``, one group's jobs a page
    at a time; with ``view=list``, every job in one list (the filters apply to each)."""
    filters: dict[str, Any] = {
        "stage": stage if stage in STAGES else "",
        "status": status if status in STATUSES else "",
        "min_score": _int_or_none(min_score, 0, 100),
        "q": q.strip()[:200],
        "sort": sort if sort in queries.JOB_SORTS else "score",
        "action": action if action in ACTIONS else "",
        "view": "list" if view == "list" else "",
    }
    number = _int_or_none(page, 1, 100_000) or 1
    wanted = queries.JobFilter(
        stage=filters["stage"] or None,
        status=filters["status"] or None,
        min_score=filters["min_score"],
        q=filters["q"] or None,
        sort=filters["sort"],
        limit=PER_PAGE,
        offset=(number - 1) * PER_PAGE,
    )
    context: dict[str, Any] = {"filters": filters, "statuses": STATUSES, "actions": ACTIONS}
    if filters["action"] or filters["view"] or fragment == "rows":
        rows, total = queries.find_jobs(home, wanted, action=filters["action"] or None)
        context.update(rows=dump(rows), total=total, inbox=None)
    else:
        found = inbox.jobs_inbox(home, replace(wanted, limit=None, offset=0))
        context.update(rows=[], total=found.total, inbox=dump(found))
    if fragment in ("rows", "inbox"):
        response = _render("_job_rows.html", **context)
        response.headers["X-Total-Count"] = str(context["total"])
        return response
    context["rescore"] = dump(rescore.rescore_status(home))  # stale jobs, rescore runs open
    if fragment == "rescore":
        return _render("_rescore.html", **context)
    pages = max(1, -(-context["total"] // PER_PAGE)) if context["inbox"] is None else 1
    paused = dump(control.stop_loss_status(home).paused)  # the stop-loss notice
    return _render("jobs.html", page=number, pages=pages, nav="jobs", paused=paused, **context)


@router.get("/jobs/{job_id}", response_class=HTMLResponse, include_in_schema=False)
def job_page(home: TenantHome, job_id: str, fragment: str = "") -> HTMLResponse:
    try:
        job = queries.show_job(home, job_id)
        materials = queries.job_materials(home, job.job_id)
    except JobctrlError as exc:
        return _render("error.html", 404, nav="jobs", title="No such job", error=exc)
    # One in-page viewer per kind: the draft awaiting a decision, else the approved
    # generation, else the newest.
    shown: dict[str, MaterialView] = {}
    for m in sorted(materials, key=_viewer_rank):
        shown[m.kind] = m  # the best-ranked of each kind comes last
    context: dict[str, Any] = {
        "job": dump(job),
        "materials": dump(materials),
        "viewers": dump([m for m in shown.values() if m.pdf_url]),
        "drafts": any(m.approval == MaterialState.DRAFT for m in materials),
        "events": dump(queries.job_timeline(home, job.job_id)),
        "description": queries.posting_text(home, job.artifacts.text),
        "citations": dump(truth.material_citations(home, job.job_id)),
        "profile_version": staleness.current_profile_version(home),
        "followup": dump(followups.followup_panel(home, job.job_id)),
        "people": dump(contacts.job_people(home, job.job_id)),
        "outreach": dump(outreach.job_outreach(home, job.job_id)),
        **material_forms.job_page_context(home, job.job_id, materials),
    }
    if fragment == "main":
        return _render("_job_detail.html", **context)
    return _render("job.html", nav="jobs", **context)


@router.get("/runs", response_class=HTMLResponse, include_in_schema=False)
def runs_page(home: TenantHome, fragment: str = "") -> HTMLResponse:
    found = activity.discovery_runs(home)
    running = any(r.status == RunStatus.RUNNING for r in found)
    runs = dump(found)
    loop = dump(apply_loop.apply_loop_status(home))
    gate = dump(discovery.discovery_gate(home))
    plan = dump(discovery_plan.run_plan(home)) if found else None
    context = {"runs": runs, "running": running, "loop": loop, "gate": gate, "plan": plan}
    if fragment == "main":
        return _render("_runs.html", **context)
    return _render("runs.html", nav="runs", **context)


@router.get("/apply", response_class=HTMLResponse, include_in_schema=False)
def apply_page(home: TenantHome, fragment: str = "") -> HTMLResponse:
    queue = apply_views.apply_queue(home)
    messages = {
        q.job_id: apply_views.show_application(home, q.job_id) for q in queue if q.application_id
    }
    context: dict[str, Any] = {
        "queue": dump(queue),
        "messages": dump(messages),
        # Materials written for another profile version: said before approving or sending.
        "older": staleness.older_materials(home, [q.job_id for q in queue]),
        "profile_version": staleness.current_profile_version(home),
    }
    if fragment == "main":
        return _render("_apply.html", **context)
    return _render("apply.html", nav="apply", **context)


@router.get("/applications", response_class=HTMLResponse, include_in_schema=False)
def applications_page(home: TenantHome, fragment: str = "") -> HTMLResponse:
    context: dict[str, Any] = {
        "items": dump(applications.list_applications(home)),
        "outcomes": applications.OUTCOMES,
    }
    if fragment == "main":
        return _render("_applications.html", **context)
    return _render("applications.html", nav="applications", **context)


@router.get("/spend", response_class=HTMLResponse, include_in_schema=False)
def spend_page(home: TenantHome) -> HTMLResponse:
    summary = activity.spend_summary(home)
    bars = activity.daily_spend(home, summary.day)
    return _render("spend.html", nav="spend", spend=dump(summary), bars=dump(bars))


@router.get("/settings", response_class=HTMLResponse, include_in_schema=False)
def settings_page(home: TenantHome) -> HTMLResponse:
    """A job seeker's settings first, in plain words; the operator's under "Advanced"."""
    return _render(
        "settings.html",
        nav="settings",
        page=dump(settings_view.settings_page(home)),
        sources=dump(configuration.list_sources(home)),
        answers=dump(answers.answer_rows(home)),
        extensions=dump(app_extension.list_extensions(home)),
    )
