"""Applying to a job by email: prepare the exact message, approve exactly it, send it at
most once, and resolve what happened (`jobctrl apply ...`, `/v1/apply/...`).

The send itself is ``stages.apply_email.send_application(store, application_id)`` (an
activity can call it too); this module checks and records what the person decides. The
queue and the views of an application are in ``app.apply_views``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from jobctrl import config as config_file
from jobctrl.app.apply_views import application_detail
from jobctrl.app.materials import MaterialFile, material_files
from jobctrl.domain import errors
from jobctrl.domain.applications import Channel, Resolution, message_id
from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.mail import email_address
from jobctrl.domain.materials import MaterialKind
from jobctrl.home import Home
from jobctrl.stages import apply_email
from jobctrl.stages.apply_checks import check_not_done, check_posting_open, current_digest
from jobctrl.stages.smtp_session import smtp_account
from jobctrl.store import applications, jobs
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "approve_application",
    "prepare_application",
    "resolve_application",
    "send_application",
]

MAX_SUBJECT = 300
MAX_BODY = 20_000


def _candidate(home: Home) -> dict[str, str]:
    """The person's name, email and phone from the profile (empty when unreadable)."""
    try:
        profile = config_file.load_config(home).profile
    except JobctrlError:
        return {"name": "", "email": "", "phone": ""}
    return {"name": profile.name, "email": profile.contact.email, "phone": profile.contact.phone}


def _default_recipient(job: dict[str, Any]) -> list[str]:
    """The posting's own application address, when it gives one (``mailto:``)."""
    apply_url = str(job.get("apply_url") or "")
    if apply_url.lower().startswith("mailto:"):
        address = apply_url[7:].split("?", 1)[0]
        try:
            return [email_address(address)]
        except ValueError:
            return []
    return []


def _default_text(job: dict[str, Any], person: dict[str, str]) -> tuple[str, str]:
    role = job.get("title") or "the open position"
    company = job.get("company") or "your company"
    subject = f"Application: {role}" + (f" – {person['name']}" if person["name"] else "")
    signature = "\n".join(v for v in (person["name"], person["email"], person["phone"]) if v)
    body = (
        f"Dear Hiring Team at {company},\n\n"
        f"I would like to apply for the {role} position ({job.get('url')}). "
        "My resume and cover letter are attached.\n\n"
        f"Kind regards,\n{signature}\n"
    )
    return subject, body


def _approved_files(home: Home, job_id: str) -> list[MaterialFile]:
    files = material_files(home, job_id, approved_only=True)
    if not any(f.kind == MaterialKind.RESUME for f in files):
        raise JobctrlError(
            f"job {job_id} has no approved resume PDF: check its materials and "
            "`jobctrl materials approve JOB` first",
            code=errors.APPLY_MATERIALS_NOT_APPROVED,
        )
    return files


def _recipients(to: list[str] | None, current: list[str] | None) -> list[str]:
    if to is None:
        return list(current or [])
    try:
        return [email_address(part) for item in to for part in item.split(",") if part.strip()]
    except ValueError as exc:
        raise JobctrlError(str(exc), code=errors.INVALID_INPUT) from None


def _text(value: str | None, current: str | None, default: str, limit: int, what: str) -> str:
    text = value if value is not None else (current or default)
    if not text.strip() or len(text) > limit:
        raise JobctrlError(f"the {what} must be 1 to {limit} characters", code=errors.INVALID_INPUT)
    if what == "subject" and ("\n" in text or "\r" in text):
        raise JobctrlError("the subject must be one line", code=errors.INVALID_INPUT)
    return text


def prepare_application(
    home: Home,
    ref: str,
    *,
    channel: str | None = None,
    to: list[str] | None = None,
    subject: str | None = None,
    body: str | None = None,
    form_url: str | None = None,
    clock: Clock | None = None,
) -> dict[str, Any]:
    """Prepare (or edit) the job's application. Email: the exact message (recipients,
    subject, body, the approved PDFs under readable names); any change clears an approval.
    Browser: the form to prefill. Needs approved materials and a posting not closed."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    job = jobs.job_row(store, job_id)
    files = _approved_files(home, job_id)
    existing = applications.get(store, job_id)
    if channel is None:
        channel = (existing or {}).get("channel") or (
            Channel.EMAIL.value if to or _default_recipient(job) else Channel.BROWSER.value
        )
    if channel not in {c.value for c in Channel}:
        raise JobctrlError("--channel must be email or browser", code=errors.INVALID_INPUT)
    score = jobs.score_row(store, job_id)
    defaults = _default_text(job, _candidate(home))
    with store.write(clock=clock) as tx:
        row = applications.ensure_for_job(
            tx,
            job_id,
            company=job.get("company"),
            role=job.get("title"),
            url=job.get("url"),
            score=score["score"] if score else None,
        )
        check_not_done(row)
        check_posting_open(tx, row)
        if channel == Channel.BROWSER:
            target = form_url or row.get("form_url") or job.get("apply_url") or job.get("url")
            applications.set_channel(tx, row["id"], Channel.BROWSER.value, form_url=target)
        else:
            recipients = _recipients(to, row.get("email_to")) or _default_recipient(job)
            if not recipients:
                raise JobctrlError(
                    f"no address to send job {job_id}'s application to: add --to ADDRESS",
                    code=errors.APPLY_NO_RECIPIENT,
                )
            title = _text(subject, row.get("email_subject"), defaults[0], MAX_SUBJECT, "subject")
            text = _text(body, row.get("email_body"), defaults[1], MAX_BODY, "body")
            applications.save_email(
                tx,
                row["id"],
                to=recipients,
                subject=title,
                body=text,
                attachments=[
                    {"kind": f.kind, "name": f.name, "sha256": f.sha256, "size": f.size}
                    for f in files
                ],
            )
    return application_detail(store, job_id)


def approve_application(home: Home, ref: str, *, clock: Clock | None = None) -> dict[str, Any]:
    """Approve exactly the message as it is now (recipients, subject, body hash,
    attachment hashes, sender), for ``apply_approval_ttl_seconds`` (at most 15 minutes)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    settings = Settings(store)
    sender = smtp_account(settings).sender
    ttl = timedelta(seconds=int(settings.get("apply_approval_ttl_seconds")))
    found = applications.get(store, job_id)
    if found is None:
        raise JobctrlError(
            f"job {job_id} has no application: `jobctrl apply prepare JOB` first",
            code=errors.APPLY_NOT_PREPARED,
        )
    for item in found["attachments"] or []:  # the approved bytes must be there to be sent
        if not store.artifacts.path_for(item["sha256"]).is_file():
            raise JobctrlError(
                f"the attachment {item['name']} is missing from the artifact store",
                code=errors.ARTIFACT_MISSING,
            )
    with store.write(clock=clock) as tx:
        row = applications.require(tx, found["id"])
        check_not_done(row)
        check_posting_open(tx, row)
        digest = current_digest(row, sender)
        applications.approve(
            tx,
            row["id"],
            digest=digest,
            message_id=message_id(row["id"], digest, sender),
            expires_at=tx.now + ttl,
        )
    return application_detail(store, job_id)


def send_application(home: Home, ref: str, *, clock: Clock | None = None) -> dict[str, Any]:
    """Send the job's approved email once (see ``stages.apply_email``). The result's
    ``status`` is ``sent``, ``unknown`` (check the Sent folder, then resolve) or
    ``failed`` with its ``errorCode`` (nothing was sent; the person may try again)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    apply_email.settle_dead_senders(store, clock=clock)
    found = applications.get(store, job_id)
    if found is None:
        raise JobctrlError(
            f"job {job_id} has no application: `jobctrl apply prepare JOB` first",
            code=errors.APPLY_NOT_PREPARED,
        )
    result = apply_email.send_application(store, found["id"], clock=clock)
    return {
        "jobId": job_id,
        "applicationId": result.application_id,
        "attemptId": result.attempt_id,
        "status": result.status,
        "errorCode": result.error_code,
        "message": result.message,
        "messageId": result.message_id,
    }


def resolve_application(
    home: Home, ref: str, resolution: str, *, clock: Clock | None = None
) -> dict[str, Any]:
    """Record what the person says happened: an unknown send was ``sent`` or ``not-sent``,
    a form was ``submitted``, or the application is ``abandoned``."""
    try:
        chosen = Resolution(resolution)
    except ValueError:
        raise JobctrlError(
            "resolve as sent, not-sent, submitted or abandoned", code=errors.INVALID_INPUT
        ) from None
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    apply_email.settle_dead_senders(store, clock=clock)
    found = applications.get(store, job_id)
    if found is None:
        raise JobctrlError(f"job {job_id} has no application", code=errors.APPLY_NOT_PREPARED)
    with store.write(clock=clock) as tx:
        applications.resolve(tx, found["id"], chosen)
    return application_detail(store, job_id)
