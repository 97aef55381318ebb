"""What must hold before an email application is approved or sent: the exact message's
digest, a fresh approval of exactly it, a posting not confirmed closed, an application
not already done or in doubt. Shared by the approve command and the send; a follow-up or
outreach message's send (``stages.outbound_email``) checks its approval with the same
``check_not_done`` and ``check_approval``, in its own words (``Wording``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
    "APPLICATION",
    "Wording",
    "check_approval",
    "check_not_done",
    "check_posting_open",
    "check_same_posting",
    "check_sendable",
    "current_digest",
]


@dataclass(frozen=True)
class Wording:
    """How a refusal names what it checks, and the person's next step in its words."""

    noun: str  # "application {id} ...", "message {id} ..."
    resolve: str  # how a send in doubt is resolved
    approve: str  # how it is approved
    approved: str = ""  # what the approval binds, after "changed after it was approved"


APPLICATION = Wording(
    noun="application",
    resolve="`jobctrl apply resolve JOB sent|not-sent`",
    approve="`jobctrl apply approve JOB` after checking the message",
    approved=" (recipients, text, attachments or sender)",
)


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


def check_not_done(row: Mapping[str, Any], wording: Wording = APPLICATION) -> None:
    """Refuse to touch an application (or a message) already sent or submitted, or whose
    last send is in doubt (the person resolves that first), or that has an attempt
    running."""
    status = row["status"]
    named = f"{wording.noun} {row['id']}"
    if status in DONE_STATUSES:
        raise JobctrlError(
            f"{named} is already {status}: nothing more is sent", code=errors.APPLY_ALREADY_DONE
        )
    if status == ApplicationStatus.UNKNOWN:
        raise JobctrlError(
            f"the last send of {named} may have gone out: check your Sent folder, then "
            f"{wording.resolve}",
            code=errors.APPLY_OUTCOME_UNKNOWN,
        )
    if status == ApplicationStatus.SENDING:
        raise JobctrlError(f"{named} is being sent right now", code=errors.APPLY_ATTEMPT_LIVE)


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
    check_approval(tx, row, digest, lambda: current_digest(row, sender))


def check_approval(
    tx: WriteTx,
    row: Mapping[str, Any],
    digest: str,
    current: Callable[[], str],
    wording: Wording = APPLICATION,
) -> None:
    """The message as built (``digest``) is exactly the approved one and still the row's
    (``current()``: its digest now, asked only once it was approved), and the approval
    is fresh at ``tx.now``."""
    named = f"{wording.noun} {row['id']}"
    if not row["approval_digest"]:
        raise JobctrlError(
            f"{named} is not approved: {wording.approve}", code=errors.APPLY_NOT_APPROVED
        )
    if row["approval_digest"] != digest or current() != digest:
        raise JobctrlError(
            f"{named} changed after it was approved{wording.approved}: approve it again",
            code=errors.APPLY_APPROVAL_MISMATCH,
        )
    expires = row["approval_expires_at"]
    if expires is None or as_utc(expires) <= tx.now:
        raise JobctrlError(
            f"the approval of {named} expired: approve it again",
            code=errors.APPLY_APPROVAL_EXPIRED,
        )
