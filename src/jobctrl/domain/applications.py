"""Job applications: their statuses, send/prefill attempts, and the exact approval.

An email application is sent only with an approval that binds exactly what goes out:
the recipients, the subject, the body (by hash), each attachment (by hash) and the
sender. ``approval_digest`` is that binding; any change gives another digest, so an
approval given before the change no longer matches. An approval lasts at most
``APPROVAL_TTL``.

An attempt is *live* while its outcome is open (an email whose intent is recorded or
whose data was sent, a browser prefill that runs); at most one per application.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from datetime import timedelta
from enum import StrEnum
from typing import Any

__all__ = [
    "APPROVAL_TTL",
    "DONE_STATUSES",
    "LIVE_ATTEMPT_STATES",
    "ApplicationStatus",
    "AttemptState",
    "Channel",
    "Outcome",
    "Resolution",
    "approval_digest",
    "attempt_id",
    "message_id",
    "new_application_id",
    "resolution_allowed",
    "sha256_text",
]

APPROVAL_TTL = timedelta(minutes=15)


class Channel(StrEnum):
    EMAIL = "email"
    BROWSER = "browser"


class ApplicationStatus(StrEnum):
    DRAFT = "draft"  # prepared, waiting for the person's approval
    APPROVED = "approved"  # an email approved exactly, not sent yet
    SENDING = "sending"  # a send attempt is live
    SENT = "sent"  # the SMTP server accepted the message
    UNKNOWN = "unknown"  # the data went out but the server's answer was never recorded
    FAILED = "failed"  # refused before the data went out: nothing sent; retryable
    PREFILLED = "prefilled"  # a browser form filled, waiting for the person to submit
    SUBMITTED = "submitted"  # the person submitted the form
    ABANDONED = "abandoned"  # the person gave up on it
    NOT_SENT = "not_sent"  # the person checked: an unknown send did not go out
    APPLIED = "applied"  # imported or marked by hand


# Statuses after which nothing is sent or submitted again (the person may still record
# an outcome). ``not_sent`` and ``failed`` are not final: the person may try again.
DONE_STATUSES = frozenset(
    {
        ApplicationStatus.SENT,
        ApplicationStatus.SUBMITTED,
        ApplicationStatus.ABANDONED,
        ApplicationStatus.APPLIED,
    }
)


class Outcome(StrEnum):
    APPLIED = "applied"
    SCREENING = "screening"
    INTERVIEW = "interview"
    OFFER = "offer"
    REJECTED = "rejected"
    NO_ANSWER = "no_answer"


class AttemptState(StrEnum):
    INTENT = "intent"  # recorded before the SMTP conversation starts
    DATA_SENT = "data_sent"  # the message data went out; the server's reply is pending
    PREFILLING = "prefilling"  # a browser prefill runs
    SENT = "sent"
    FAILED = "failed"
    UNKNOWN = "unknown"
    PREFILLED = "prefilled"
    SUBMITTED = "submitted"
    ABANDONED = "abandoned"


LIVE_ATTEMPT_STATES = frozenset(
    {AttemptState.INTENT, AttemptState.DATA_SENT, AttemptState.PREFILLING}
)

# What an email attempt's ``unknown`` outcome asks of the person (the send's error and
# `jobctrl show` / `jobctrl apply show` say it).
UNKNOWN_HINT = (
    "the connection ended after the message was sent and before the server answered: it "
    "may or may not have gone out. Check your mail account's Sent folder, then run "
    "`jobctrl apply resolve JOB sent` or `jobctrl apply resolve JOB not-sent`"
)


class Resolution(StrEnum):
    """What the person says happened to an application (``jobctrl apply resolve``)."""

    SENT = "sent"
    NOT_SENT = "not-sent"
    SUBMITTED = "submitted"
    ABANDONED = "abandoned"

    @property
    def status(self) -> ApplicationStatus:
        return {
            Resolution.SENT: ApplicationStatus.SENT,
            Resolution.NOT_SENT: ApplicationStatus.NOT_SENT,
            Resolution.SUBMITTED: ApplicationStatus.SUBMITTED,
            Resolution.ABANDONED: ApplicationStatus.ABANDONED,
        }[self]


def new_application_id() -> str:
    return "app-" + secrets.token_hex(6)


def attempt_id() -> str:
    return "att-" + secrets.token_hex(6)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def approval_digest(
    *,
    application_id: str,
    job_id: str | None,
    posting_url: str,
    sender: str,
    to: Sequence[str],
    subject: str,
    body: str,
    attachments: Sequence[dict[str, Any]],
) -> str:
    """The hash an approval binds: the job and its posting's URL (the submit intent names
    the posting it applies to), sender, recipients, subject, body and attachments (kind,
    file name, sha256, size). Anything else changed is another digest."""
    bound = {
        "application": application_id,
        "job": job_id,
        "posting": posting_url,
        "from": sender.strip().lower(),
        "to": sorted(a.strip().lower() for a in to),
        "subject": subject,
        "body": sha256_text(body),
        "attachments": [
            [a["kind"], a["name"], a["sha256"], int(a["size"])]
            for a in sorted(attachments, key=lambda a: (a["kind"], a["name"]))
        ],
    }
    return hashlib.sha256(json.dumps(bound, sort_keys=True).encode()).hexdigest()


def message_id(application_id: str, digest: str, sender: str) -> str:
    """The Message-ID of an approved message: the same for the same approved content, so a
    copy that did go out can be found (and deduplicated) by it."""
    domain = sender.rpartition("@")[2].strip().lower() or "jobctrl.invalid"
    return f"<jobctrl.{application_id}.{digest[:16]}@{domain}>"


# From which statuses the person may resolve an application each way.
_RESOLVABLE: dict[Resolution, frozenset[ApplicationStatus]] = {
    Resolution.SENT: frozenset({ApplicationStatus.UNKNOWN}),
    Resolution.NOT_SENT: frozenset({ApplicationStatus.UNKNOWN}),
    Resolution.SUBMITTED: frozenset(
        {ApplicationStatus.PREFILLED, ApplicationStatus.DRAFT, ApplicationStatus.FAILED}
    ),
    Resolution.ABANDONED: frozenset(
        {
            ApplicationStatus.DRAFT,
            ApplicationStatus.APPROVED,
            ApplicationStatus.FAILED,
            ApplicationStatus.UNKNOWN,
            ApplicationStatus.NOT_SENT,
            ApplicationStatus.PREFILLED,
        }
    ),
}


def resolution_allowed(status: str, resolution: Resolution) -> bool:
    """Whether an application in ``status`` may be resolved as ``resolution``: an unknown
    send as sent or not sent, a form as submitted, anything not done as abandoned."""
    return status in _RESOLVABLE[resolution]
