"""Reads of applications: the Apply queue (`jobctrl apply list`, `/v1/apply`), one job's
application with its exact message (`/v1/apply/{job}`), and the summary `jobctrl show`
and the Job page carry. Nothing here sends; a read that meets an attempt whose sending
process died settles it first (``unknown`` or ``failed``), so no view shows a dead send as
still running."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jobctrl.app.materials import material_files
from jobctrl.app.models import Timestamp, View
from jobctrl.domain.applications import UNKNOWN_HINT, ApplicationStatus, Channel
from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.extension import APPLY_ON_SITE, apply_on_site
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.domain.stages import JobStatus
from jobctrl.home import Home
from jobctrl.store import applications, job_list, jobs
from jobctrl.store.store import Store

__all__ = [
    "ApplicationDetail",
    "ApplicationSummary",
    "Attachment",
    "AttachmentDetail",
    "NoApplication",
    "QueuedJob",
    "QueuedPdf",
    "application_detail",
    "application_summary",
    "apply_queue",
    "show_application",
]

# What the person is asked to do next, by status.
NEXT_STEP = {
    ApplicationStatus.DRAFT: "check the message, then `jobctrl apply approve JOB`",
    ApplicationStatus.APPROVED: "`jobctrl apply send JOB` before the approval expires",
    ApplicationStatus.FAILED: "fix what the error says, then approve and send again",
    ApplicationStatus.UNKNOWN: UNKNOWN_HINT,
    ApplicationStatus.NOT_SENT: "approve and send again when ready",
    ApplicationStatus.PREFILLED: "submit the form yourself, then `jobctrl apply resolve JOB "
    "submitted`",
}
# A draft taken back (`jobctrl apply reset`) has no channel, so no message or form yet.
CHOOSE_CHANNEL_STEP = "choose how to apply: `jobctrl apply prepare JOB --channel email|browser`"
# A form application's draft waits for the person to open the form, not for an approval.
FORM_DRAFT_STEP = (
    "open the form with `jobctrl apply JOB --browser`, check it and submit it yourself"
)


def _next_step(status: str, channel: str | None) -> str | None:
    if status == ApplicationStatus.DRAFT and channel == Channel.BROWSER:
        return FORM_DRAFT_STEP
    if status == ApplicationStatus.DRAFT and channel is None:  # taken back (`apply reset`)
        return CHOOSE_CHANNEL_STEP
    return NEXT_STEP.get(ApplicationStatus(status)) if status in NEXT_STEP else None


def _approval_valid(row: dict[str, Any], now: datetime) -> bool:
    expires = row.get("approval_expires_at")
    return bool(row.get("approval_digest") and expires and as_utc(expires) > now)


class Attachment(View):
    """A PDF attached to an email application, as the summary shows it."""

    kind: str
    name: str
    size: int


class AttachmentDetail(Attachment):
    """An attachment with its hash: exactly the bytes that are (or were) sent."""

    sha256: str


class ApplicationSummary(View):
    """The job's application as `jobctrl show` and the Job page show it."""

    application_id: str
    channel: str | None
    status: str
    outcome: str | None
    to: list[str]
    attachments: list[Attachment]
    error_code: str | None
    approved_until: Timestamp | None
    approval_valid: bool
    form_url: str | None
    applied_at: Timestamp | None
    next_step: str | None


class ApplicationDetail(View):
    """The summary plus the exact message (`jobctrl apply show`, ``/v1/apply/{job}``, and
    what prepare, approve and resolve answer): subject, body, each attachment's hash, the
    Message-ID while the approval is valid, and the posting's company, role and URL."""

    job_id: str
    application_id: str
    channel: str | None
    status: str
    outcome: str | None
    to: list[str]
    attachments: list[AttachmentDetail]
    error_code: str | None
    approved_until: Timestamp | None
    approval_valid: bool
    form_url: str | None
    applied_at: Timestamp | None
    next_step: str | None
    subject: str | None
    body: str | None
    message_id: str | None
    company: str | None
    role: str | None
    url: str | None


class NoApplication(View):
    """`jobctrl apply show` of a job without an application: ``application: null``."""

    job_id: str
    application: None = None


def application_summary(store: Store, job_id: str) -> ApplicationSummary | None:
    """The job's application as `jobctrl show` and the Job page show it (None: none)."""
    row = applications.get(store, job_id)
    if row is None:
        return None
    if row["status"] == ApplicationStatus.SENDING:  # its sender may have died: say so
        # The sender's module only here: it loads smtplib and the fetch stack, which a
        # read (`jobctrl show`) otherwise never needs (issue 26)
        from jobctrl.stages.apply_email import settle_dead_senders

        settle_dead_senders(store)
        row = applications.get(store, job_id) or row
    status = row["status"]
    expires, applied = row["approval_expires_at"], row["applied_at"]  # UTC (SQLite: naive)
    return ApplicationSummary(
        application_id=row["id"],
        channel=row["channel"],
        status=status,
        outcome=row["outcome"],
        to=list(row["email_to"] or []),
        attachments=[
            Attachment(kind=a["kind"], name=a["name"], size=a["size"])
            for a in row["attachments"] or []
        ],
        error_code=row["error_code"],
        approved_until=as_utc(expires) if expires else None,
        approval_valid=_approval_valid(row, utcnow()),
        form_url=row["form_url"],
        applied_at=as_utc(applied) if applied else None,
        next_step=_next_step(status, row["channel"]),
    )


def application_detail(store: Store, job_id: str) -> ApplicationDetail:
    """The summary plus the exact message: subject, body and each attachment's hash."""
    row = applications.get(store, job_id)
    summary = application_summary(store, job_id)
    assert row is not None and summary is not None
    return ApplicationDetail(
        job_id=job_id,
        **summary.model_dump(by_alias=False, exclude={"attachments"}),
        attachments=[
            AttachmentDetail(kind=a["kind"], name=a["name"], size=a["size"], sha256=a["sha256"])
            for a in row["attachments"] or []
        ],
        subject=row["email_subject"],
        body=row["email_body"],
        message_id=row["message_id"] if summary.approval_valid else None,
        company=row["company"],
        role=row["role"],
        url=row["url"],
    )


def show_application(home: Home, ref: str) -> ApplicationDetail | NoApplication:
    """One job's application with its exact message (``application: null`` if none)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    if applications.get(store, job_id) is None:
        return NoApplication(job_id=job_id)
    return application_detail(store, job_id)


class QueuedPdf(View):
    """One of a queued job's PDFs (approved, else newest) with its approval."""

    kind: str
    name: str
    size: int
    approval: str
    sha256: str


class QueuedJob(View):
    """A job in the Apply queue: its channel, PDFs, what is still missing before it can
    go out, and its application's status (none yet: ``application_id`` None)."""

    job_id: str
    title: str | None
    company: str | None
    score: int | None
    channel: str
    pdfs: list[QueuedPdf]
    missing: list[str]
    ready: bool
    application_id: str | None
    status: str | None
    error_code: str | None
    form_url: str | None
    # ``apply_on_site``: the site takes applications in its own form (LinkedIn Easy Apply,
    # Indeed): the person applies there; nothing is prefilled, retried or looked up.
    target: str | None = None


def _pdfs(home: Home, job_id: str) -> tuple[list[QueuedPdf], list[str]]:
    """The job's PDFs (approved, else newest) and what is missing before it can go out."""
    try:
        files = material_files(home, job_id)
    except JobctrlError:
        return [], ["the PDFs are missing from the artifact store"]
    pdfs = [
        QueuedPdf(kind=f.kind, name=f.name, size=f.size, approval=f.approval, sha256=f.sha256)
        for f in files
    ]
    missing = []
    for kind, label in ((MaterialKind.RESUME, "resume"), (MaterialKind.COVER, "cover letter")):
        found = [p for p in pdfs if p.kind == kind]
        optional = kind == MaterialKind.COVER  # written when asked for; none goes without
        if optional and (not found or found[0].approval == MaterialState.REJECTED):
            continue  # none, or the person turned it down: the application goes without
        if not found:
            missing.append(f"{label} PDF")
        elif found[0].approval != MaterialState.APPROVED:
            missing.append(f"{label} approval")
    return pdfs, missing


def apply_queue(home: Home) -> list[QueuedJob]:
    """Prepared jobs and jobs with an application, best fit first: each with its channel,
    PDFs, what is still missing and the application's status."""
    # The sender's module here, not at the top: see application_summary
    from jobctrl.stages.apply_email import settle_dead_senders

    store = Store.open(home)
    settle_dead_senders(store)
    prepared, _ = job_list.find(store, job_list.JobFilter(status=JobStatus.PREPARED.value))
    rows = {r["job_id"]: r for r in prepared}
    apps = {a["job_id"]: a for a in applications.list_all(store) if a["job_id"]}
    if apps.keys() - rows.keys():  # applications of jobs no longer listed as prepared
        every, _ = job_list.find(store)
        rows.update({r["job_id"]: r for r in every if r["job_id"] in apps})
    queue = []
    for job_id, listed in rows.items():
        app = apps.get(job_id)
        pdfs, missing = _pdfs(home, job_id)
        job = jobs.job_row(store, job_id)
        channel = (app or {}).get("channel") or (
            Channel.EMAIL.value
            if str(job.get("apply_url") or "").lower().startswith("mailto:")
            else Channel.BROWSER.value
        )
        if channel == Channel.EMAIL and not (app and app["email_to"]):
            missing.append("recipient")
        form_url = (app or {}).get("form_url") or job.get("apply_url") or job.get("url")
        on_site = channel == Channel.BROWSER and apply_on_site(form_url)
        queue.append(
            QueuedJob(
                job_id=job_id,
                title=listed["title"],
                company=listed["company"],
                score=listed["score"],
                channel=channel,
                pdfs=pdfs,
                missing=missing,
                ready=not missing,
                application_id=app["id"] if app else None,
                status=app["status"] if app else None,
                error_code=app["error_code"] if app else None,
                form_url=form_url,
                target=APPLY_ON_SITE if on_site else None,
            )
        )
    queue.sort(key=lambda q: (q.score is None, -(q.score or 0), q.job_id))
    return queue
