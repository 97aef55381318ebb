"""Applying to a job by email: prepare the exact message, approve exactly it, send it at
most once, and resolve what happened (`jobctrl apply ...`, `/v1/apply/...`).

The send itself is ``stages.apply_email.send_application(store, application_id)`` (an
activity can call it too); this module checks and records what the person decides. The
queue and the views of an application are in ``app.apply_views``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from jobctrl.app.apply_views import ApplicationDetail, application_detail
from jobctrl.app.models import View
from jobctrl.domain import errors
from jobctrl.domain.applications import Resolution, message_id
from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import JobctrlError
from jobctrl.home import Home
from jobctrl.stages import apply_email, apply_prepare
from jobctrl.stages.apply_checks import (
    check_not_done,
    check_posting_open,
    check_same_posting,
    current_digest,
)
from jobctrl.stages.smtp_session import smtp_account
from jobctrl.store import application_reset, applications, jobs
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "SendView",
    "approve_application",
    "prepare_application",
    "reset_application",
    "resolve_application",
    "send_application",
]

MAX_SUBJECT = apply_prepare.MAX_SUBJECT
MAX_BODY = apply_prepare.MAX_BODY


class SendView(View):
    """What a send came to: ``status`` ``sent``, ``unknown`` (check the Sent folder, then
    resolve) or ``failed`` with its ``error_code`` (nothing was sent)."""

    job_id: str
    application_id: str
    attempt_id: str | None
    status: str
    error_code: str | None
    message: str
    message_id: str | None


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
) -> ApplicationDetail:
    """Prepare (or edit) the job's application. Email: the exact message (recipients,
    subject, body, the approved PDFs under readable names); any change clears an approval.
    Browser: the form to prefill. Needs approved materials and a posting not closed. The
    work is ``stages.apply_prepare``'s, which the apply workflow runs too."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    request = apply_prepare.DraftRequest(
        channel=channel, to=to, subject=subject, body=body, form_url=form_url
    )
    draft = apply_prepare.draft_for(home, store, job_id, request)
    with store.write(clock=clock) as tx:
        apply_prepare.write_draft(tx, draft)
    return application_detail(store, job_id)


def _prepared(store: Store, job_id: str) -> dict[str, Any]:
    """The job's application row, or ``APPLY_NOT_PREPARED``."""
    found = applications.get(store, job_id)
    if found is None:
        raise JobctrlError(
            f"job {job_id} has no application: `jobctrl apply prepare JOB` first",
            code=errors.APPLY_NOT_PREPARED,
        )
    return found


def _check_current_materials(store: Store, job_id: str, row: dict[str, Any]) -> None:
    """The message's attachments must be the job's approved PDFs as they are now: a newer
    generation approved since it was prepared would otherwise go out under the same name."""
    attached = {a["sha256"] for a in row["attachments"] or []}
    if not attached:
        return
    current = {f.sha256 for f in apply_prepare.approved_files(store, job_id)}
    if attached != current:
        raise JobctrlError(
            f"the approved materials of job {job_id} changed since this message was "
            "prepared: `jobctrl apply prepare JOB` again to attach them",
            code=errors.APPLY_MATERIALS_CHANGED,
        )


def approve_application(home: Home, ref: str, *, clock: Clock | None = None) -> ApplicationDetail:
    """Approve exactly the message as it is now, for the job and posting it was prepared
    for (job id, posting URL, recipients, subject, body hash, attachment hashes, sender),
    for ``apply_approval_ttl_seconds`` (at most 15 minutes)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    settings = Settings(store)
    sender = smtp_account(settings).sender
    ttl = timedelta(seconds=int(settings.get("apply_approval_ttl_seconds")))
    found = _prepared(store, job_id)
    _check_current_materials(store, job_id, found)
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
        check_same_posting(tx, row)
        digest = current_digest(row, sender)
        applications.approve(
            tx,
            row["id"],
            digest=digest,
            message_id=message_id(row["id"], digest, sender),
            expires_at=tx.now + ttl,
        )
    return application_detail(store, job_id)


def send_application(home: Home, ref: str, *, clock: Clock | None = None) -> SendView:
    """Send the job's approved email once (see ``stages.apply_email``). The result's
    ``status`` is ``sent``, ``unknown`` (check the Sent folder, then resolve) or
    ``failed`` with its ``error_code`` (nothing was sent; the person may try again)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    apply_email.settle_dead_senders(store, clock=clock)
    apply_email.settle_dead_prefills(store, clock=clock)
    found = _prepared(store, job_id)
    _check_current_materials(store, job_id, found)
    result = apply_email.send_application(store, found["id"], clock=clock)
    return SendView(
        job_id=job_id,
        application_id=result.application_id,
        attempt_id=result.attempt_id,
        status=result.status,
        error_code=result.error_code,
        message=result.message,
        message_id=result.message_id,
    )


def resolve_application(
    home: Home, ref: str, resolution: str, *, clock: Clock | None = None
) -> ApplicationDetail:
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
    apply_email.settle_dead_prefills(store, clock=clock)
    found = _prepared(store, job_id)
    with store.write(clock=clock) as tx:
        applications.resolve(tx, found["id"], chosen)
    return application_detail(store, job_id)


def reset_application(home: Home, ref: str, *, clock: Clock | None = None) -> ApplicationDetail:
    """Take back an abandoned application: it is an unprepared draft again, so the apply
    loop (and automatic Tailor/Cover) treat the job as any other; any other status is
    refused (``APPLY_BAD_RESOLUTION``)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    found = _prepared(store, job_id)
    with store.write(clock=clock) as tx:
        application_reset.reset_abandoned(tx, found["id"])
    return application_detail(store, job_id)
