"""Emails after the application: follow-ups to an application and outreach to a contact.

Both are *outbound messages*: one row each (``store.outbound``), drafted, approved exactly
and sent at most once through the application's own send (``stages.apply_email``): the
same submit intent, digest approval, 15-minute validity and ``unknown`` state.

A follow-up is due for an application sent or submitted with no answer yet (no outcome,
or ``applied`` / ``no_answer``): ``after_days`` after it went out, then ``after_days``
after each follow-up sent, at most ``max_count`` of them. It replies in the application
email's thread: ``In-Reply-To`` and ``References`` name that message's Message-ID and its
subject is the original's with "Re: ".
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from jobctrl.domain.applications import ApplicationStatus, Outcome, sha256_text
from jobctrl.domain.clock import as_utc

__all__ = [
    "APPLIED_STATUSES",
    "NO_ANSWER_YET",
    "OPEN_STATUSES",
    "OutboundKind",
    "OutboundStatus",
    "awaiting_answer",
    "new_outbound_id",
    "next_followup_due",
    "outbound_digest",
    "reply_subject",
]

# The application went out (by email, a form, or the person says so).
APPLIED_STATUSES = frozenset(
    {ApplicationStatus.SENT, ApplicationStatus.SUBMITTED, ApplicationStatus.APPLIED}
)
# Outcomes that are no answer yet: a follow-up may still be due. Any other outcome the
# person records (screening, interview, offer, rejected) stops the follow-ups.
NO_ANSWER_YET = frozenset({None, Outcome.APPLIED.value, Outcome.NO_ANSWER.value})


class OutboundKind(StrEnum):
    FOLLOWUP = "followup"  # to an application's recipients, in its thread
    OUTREACH = "outreach"  # to a contact, about a job


class OutboundStatus(StrEnum):
    """The same life as an email application's (``domain.applications``)."""

    DRAFT = "draft"
    APPROVED = "approved"
    SENDING = "sending"
    SENT = "sent"
    UNKNOWN = "unknown"  # the data went out, the server's answer was never recorded
    FAILED = "failed"  # refused before the data: nothing sent; retryable
    NOT_SENT = "not_sent"  # the person checked: an unknown send did not go out
    COPIED = "copied"  # a note the person copies and sends themselves (never sent by jobctrl)


# A message not sent yet (another draft would replace it rather than add one).
OPEN_STATUSES = frozenset(
    {
        OutboundStatus.DRAFT,
        OutboundStatus.APPROVED,
        OutboundStatus.FAILED,
        OutboundStatus.NOT_SENT,
    }
)


def awaiting_answer(application_status: str | None, outcome: str | None) -> bool:
    """Whether an application went out and no answer is recorded yet."""
    return application_status in APPLIED_STATUSES and outcome in NO_ANSWER_YET


def next_followup_due(
    applied_at: datetime | None,
    sent: int,
    last_sent_at: datetime | None,
    *,
    after_days: int,
    max_count: int,
) -> datetime | None:
    """When the next follow-up is due: ``after_days`` after the application went out, or
    after the last follow-up (``last_sent_at``); None once ``max_count`` were ``sent``."""
    if applied_at is None or sent >= max_count:
        return None
    last = max(as_utc(applied_at), as_utc(last_sent_at)) if last_sent_at else as_utc(applied_at)
    return last + timedelta(days=after_days)


def reply_subject(subject: str) -> str:
    """The original subject as a reply: "Re: " once."""
    text = " ".join(subject.split())
    return text if text.lower().startswith("re:") else f"Re: {text}"


def new_outbound_id() -> str:
    return "out-" + secrets.token_hex(6)


def outbound_digest(
    *,
    outbound_id: str,
    kind: str,
    job_id: str | None,
    sender: str,
    to: Sequence[str],
    subject: str,
    body: str,
    in_reply_to: str | None,
    references: str | None,
) -> str:
    """The hash an approval of an outbound message binds: what it is (id, kind, job),
    sender, recipients, subject, body and its threading headers."""
    bound = {
        "outbound": outbound_id,
        "kind": kind,
        "job": job_id,
        "from": sender.strip().lower(),
        "to": sorted(a.strip().lower() for a in to),
        "subject": subject,
        "body": sha256_text(body),
        "inReplyTo": in_reply_to,
        "references": references,
    }
    return hashlib.sha256(json.dumps(bound, sort_keys=True).encode()).hexdigest()
