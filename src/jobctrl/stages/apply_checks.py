"""What must hold before an email application is approved or sent: the exact message's
digest, a fresh approval of exactly it, a posting not confirmed closed, an application
not already done or in doubt. Shared by the approve command and the send.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jobctrl.domain import errors
from jobctrl.domain.applications import (
    DONE_STATUSES,
    ApplicationStatus,
    Channel,
    approval_digest,
)
from jobctrl.domain.clock import as_utc
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.mail import header_line_break
from jobctrl.store import applications
from jobctrl.store.hidden import hidden_in
from jobctrl.store.store import WriteTx

__all__ = [
    "check_not_done",
    "check_posting_open",
    "check_same_posting",
    "check_sendable",
    "current_digest",
]


def current_digest(row: Mapping[str, Any], sender: str) -> str:
    """The digest of the email as the row holds it now, sent from ``sender``."""
    if row["channel"] != Channel.EMAIL or not row["email_to"]:
        raise JobctrlError(
            f"application {row['id']} has no email prepared: run `jobctrl apply prepare JOB "
            "--channel email --to ADDRESS` first",
            code=errors.APPLY_NOT_PREPARED,
        )
    broken = header_line_break(row["email_subject"] or "")
    if broken:  # saved before prepare refused it: the email library would refuse it at send
        raise JobctrlError(
            f"the subject of application {row['id']} holds a line break ({broken}): prepare "
            "it again with a one-line subject",
            code=errors.INVALID_INPUT,
        )
    return approval_digest(
        application_id=row["id"],
        job_id=row["job_id"],
        posting_url=row["url"] or "",
        sender=sender,
        to=row["email_to"],
        subject=row["email_subject"] or "",
        body=row["email_body"] or "",
        attachments=row["attachments"] or [],
    )


def check_not_done(row: Mapping[str, Any]) -> None:
    """Refuse to touch an application already sent or submitted, or whose last send is in
    doubt (the person resolves that first), or that has an attempt running."""
    status = row["status"]
    if status in DONE_STATUSES:
        raise JobctrlError(
            f"application {row['id']} is already {status}: nothing more is sent",
            code=errors.APPLY_ALREADY_DONE,
        )
    if status == ApplicationStatus.UNKNOWN:
        raise JobctrlError(
            f"the last send of application {row['id']} may have gone out: check your Sent "
            "folder, then `jobctrl apply resolve JOB sent|not-sent`",
            code=errors.APPLY_OUTCOME_UNKNOWN,
        )
    if status == ApplicationStatus.SENDING:
        raise JobctrlError(
            f"application {row['id']} is being sent right now", code=errors.APPLY_ATTEMPT_LIVE
        )


def check_posting_open(tx: WriteTx, row: Mapping[str, Any]) -> None:
    """The posting is not confirmed closed, and the person has not hidden the job."""
    if row["job_id"] and applications.posting_unavailable(tx.conn, row["job_id"]):
        raise JobctrlError(
            f"the posting of job {row['job_id']} is confirmed closed",
            code=errors.POSTING_UNAVAILABLE,
        )
    if row["job_id"] and hidden_in(tx.conn, row["job_id"]) is not None:
        raise JobctrlError(
            f"job {row['job_id']} is hidden (not interested): `jobctrl unhide` it first",
            code=errors.JOB_HIDDEN,
        )


def check_same_posting(tx: WriteTx, row: Mapping[str, Any]) -> None:
    """The job's posting is still the one the message was prepared for: the approval binds
    its URL, and another posting's evidence cannot stand in for it."""
    if row["job_id"] and applications.job_posting_url(tx.conn, row["job_id"]) != row["url"]:
        raise JobctrlError(
            f"the posting of job {row['job_id']} is not the one this message was prepared "
            "for: `jobctrl apply prepare JOB` again, then approve it",
            code=errors.APPLY_APPROVAL_MISMATCH,
        )


def check_sendable(tx: WriteTx, row: Mapping[str, Any], digest: str, sender: str) -> None:
    """Under the intent's write transaction: the message (as built, ``digest``) is exactly
    the approved one, the approval is fresh, the posting is open, nothing is in doubt."""
    check_not_done(row)
    check_posting_open(tx, row)
    check_same_posting(tx, row)
    if not row["approval_digest"]:
        raise JobctrlError(
            f"application {row['id']} is not approved: `jobctrl apply approve JOB` after "
            "checking the message",
            code=errors.APPLY_NOT_APPROVED,
        )
    if row["approval_digest"] != digest or current_digest(row, sender) != digest:
        raise JobctrlError(
            f"application {row['id']} changed after it was approved (recipients, text, "
            "attachments or sender): approve it again",
            code=errors.APPLY_APPROVAL_MISMATCH,
        )
    expires = row["approval_expires_at"]
    if expires is None or as_utc(expires) <= tx.now:
        raise JobctrlError(
            f"the approval of application {row['id']} expired: approve it again",
            code=errors.APPLY_APPROVAL_EXPIRED,
        )
