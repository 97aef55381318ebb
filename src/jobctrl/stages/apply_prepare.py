"""Preparing a job's application: the exact email (recipients, subject, body, the approved
PDFs under their readable names) waiting for the person's approval, or the application
form the person prefills and submits themselves. Nothing here sends or submits.

Two steps, so that a caller can write the draft inside a transaction of its own (the apply
workflow fences it on its claim): ``draft_for`` reads what the draft needs (the job, its
approved PDFs, the person's name from the profile), ``write_draft`` writes it in the
caller's transaction. ``jobctrl apply prepare`` (``app.apply``) and the apply workflow's
activity both use them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jobctrl import config as config_file
from jobctrl.domain import errors
from jobctrl.domain.applications import Channel
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.mail import email_address, header_line_break
from jobctrl.domain.materials import MaterialKind
from jobctrl.home import Home
from jobctrl.stages.apply_checks import check_not_done, check_posting_open
from jobctrl.stages.material_files import MaterialFile, material_files
from jobctrl.store import applications, jobs
from jobctrl.store.store import Store, WriteTx

__all__ = ["MAX_BODY", "MAX_SUBJECT", "Draft", "DraftRequest", "draft_for", "write_draft"]

MAX_SUBJECT = 300
MAX_BODY = 20_000


@dataclass(frozen=True)
class DraftRequest:
    """What the person asks for (None: keep what the application has, else the default)."""

    channel: str | None = None
    to: list[str] | None = None
    subject: str | None = None
    body: str | None = None
    form_url: str | None = None


@dataclass(frozen=True)
class Draft:
    """Everything ``write_draft`` needs, read before its transaction."""

    job_id: str
    job: dict[str, Any]
    channel: str
    score: int | None
    files: list[MaterialFile]
    default_subject: str
    default_body: str
    request: DraftRequest = field(default_factory=DraftRequest)


def candidate(home: Home) -> dict[str, str]:
    """The person's name, email and phone from the profile (empty when unreadable)."""
    try:
        profile = config_file.load_config(home).profile
    except JobctrlError:
        return {"name": "", "email": "", "phone": ""}
    return {"name": profile.name, "email": profile.contact.email, "phone": profile.contact.phone}


def default_recipient(job: dict[str, Any]) -> list[str]:
    """The posting's own application address, when it gives one (``mailto:``)."""
    apply_url = str(job.get("apply_url") or "")
    if apply_url.lower().startswith("mailto:"):
        address = apply_url[7:].split("?", 1)[0]
        try:
            return [email_address(address)]
        except ValueError:
            return []
    return []


def default_text(
    job: dict[str, Any], person: dict[str, str], *, with_letter: bool = True
) -> tuple[str, str]:
    """The subject and body a new email draft starts from (naming a cover letter only
    when one is attached)."""
    role = job.get("title") or "the open position"
    company = job.get("company") or "your company"
    subject = f"Application: {role}" + (f" – {person['name']}" if person["name"] else "")
    signature = "\n".join(v for v in (person["name"], person["email"], person["phone"]) if v)
    body = (
        f"Dear Hiring Team at {company},\n\n"
        f"I would like to apply for the {role} position ({job.get('url')}). "
        f"{'My resume and cover letter are' if with_letter else 'My resume is'} attached.\n\n"
        f"Kind regards,\n{signature}\n"
    )
    return subject, body


def approved_files(store: Store, job_id: str) -> list[MaterialFile]:
    """The approved PDFs (resume first); an application needs at least the resume."""
    files = material_files(store, job_id, approved_only=True)
    if not any(f.kind == MaterialKind.RESUME for f in files):
        raise JobctrlError(
            f"job {job_id} has no approved resume PDF: check its materials and "
            "`jobctrl materials approve JOB` first",
            code=errors.APPLY_MATERIALS_NOT_APPROVED,
        )
    return files


def recipients(to: list[str] | None, current: list[str] | None) -> list[str]:
    """``to`` (comma-separated items allowed) as checked addresses, else ``current``."""
    if to is None:
        return list(current or [])
    try:
        return [email_address(part) for item in to for part in item.split(",") if part.strip()]
    except ValueError as exc:
        raise JobctrlError(str(exc), code=errors.INVALID_INPUT) from None


def checked_text(
    value: str | None, current: str | None, default: str, limit: int, what: str
) -> str:
    text = value if value is not None else (current or default)
    if not text.strip() or len(text) > limit:
        raise JobctrlError(f"the {what} must be 1 to {limit} characters", code=errors.INVALID_INPUT)
    broken = header_line_break(text) if what == "subject" else None
    if broken:
        raise JobctrlError(
            f"the subject must be one line: it holds a line break ({broken})",
            code=errors.INVALID_INPUT,
        )
    return text


def draft_for(home: Home, store: Store, job_id: str, request: DraftRequest | None = None) -> Draft:
    """Read what the job's draft needs. The channel is the one asked for, else the
    application's, else email when the posting gives an address, else its form."""
    request = request or DraftRequest()
    job = jobs.job_row(store, job_id)
    files = approved_files(store, job_id)
    existing = applications.get(store, job_id)
    channel = request.channel or (existing or {}).get("channel")
    if channel is None:
        channel = Channel.EMAIL if request.to or default_recipient(job) else Channel.BROWSER
    if channel not in {c.value for c in Channel}:
        raise JobctrlError("--channel must be email or browser", code=errors.INVALID_INPUT)
    score = jobs.score_row(store, job_id)
    letter = any(f.kind == MaterialKind.COVER for f in files)
    subject, body = default_text(job, candidate(home), with_letter=letter)
    return Draft(
        job_id=job_id,
        job=job,
        channel=str(channel),
        score=score["score"] if score else None,
        files=files,
        default_subject=subject,
        default_body=body,
        request=request,
    )


def write_draft(tx: WriteTx, draft: Draft) -> dict[str, Any]:
    """Write the draft in ``tx``: email — the exact message (any change clears an
    approval); browser — the form to prefill. Refused for an application already sent,
    submitted or in doubt, or a posting confirmed closed. The application's row."""
    job, request = draft.job, draft.request
    row = applications.ensure_for_job(
        tx,
        draft.job_id,
        company=job.get("company"),
        role=job.get("title"),
        url=job.get("url"),
        score=draft.score,
    )
    check_not_done(row)
    check_posting_open(tx, row)
    if draft.channel == Channel.BROWSER:
        target = request.form_url or row.get("form_url") or job.get("apply_url") or job.get("url")
        applications.set_channel(tx, row["id"], Channel.BROWSER.value, form_url=target)
    else:
        to = recipients(request.to, row.get("email_to")) or default_recipient(job)
        if not to:
            raise JobctrlError(
                f"no address to send job {draft.job_id}'s application to: add --to ADDRESS",
                code=errors.APPLY_NO_RECIPIENT,
            )
        subject = checked_text(
            request.subject, row.get("email_subject"), draft.default_subject, MAX_SUBJECT, "subject"
        )
        body = checked_text(
            request.body, row.get("email_body"), draft.default_body, MAX_BODY, "body"
        )
        applications.save_email(
            tx,
            row["id"],
            to=to,
            subject=subject,
            body=body,
            attachments=[
                {"kind": f.kind, "name": f.name, "sha256": f.sha256, "size": f.size}
                for f in draft.files
            ],
        )
    return applications.require(tx, row["id"])
