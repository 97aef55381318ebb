"""What follow-ups and outreach share: an outbound message as a person reads it, its truth
check, its exact approval and its one send (``stages.outbound_email``, the application's
send with the message's own attempts). ``app.followups`` and the outreach commands call
these; nothing here knows which of the two a message is for beyond its row.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from jobctrl import config as config_file
from jobctrl.app.models import Timestamp, View
from jobctrl.domain import errors
from jobctrl.domain.applications import Resolution, message_id
from jobctrl.domain.clock import Clock, as_utc
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.followups import OutboundStatus
from jobctrl.domain.outbound_text import MessageFacts, check_message, findings_summary
from jobctrl.domain.profile import Profile
from jobctrl.home import Home
from jobctrl.stages import outbound_email
from jobctrl.stages.smtp_session import smtp_account
from jobctrl.store import outbound
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "MessageView",
    "OutboundSendView",
    "approve_message",
    "followup_rules",
    "message_view",
    "posting_text",
    "profile_of",
    "resolve_message",
    "send_message",
    "truth_check",
]

MAX_POSTING = 20_000  # characters of the posting a draft's fitting line is chosen from

_NEXT: dict[str, str] = {
    OutboundStatus.DRAFT: "read the message, then approve it",
    OutboundStatus.APPROVED: "send it before the approval expires (15 minutes)",
    OutboundStatus.FAILED: "fix what the error says, then approve and send again",
    OutboundStatus.UNKNOWN: (
        "the connection ended after the message was sent and before the server answered: "
        "it may or may not have gone out. Check your mail account's Sent folder, then "
        "resolve it as sent or not-sent (`jobctrl followups resolve JOB sent|not-sent`, "
        "`jobctrl outreach resolve CONTACT sent|not-sent --job JOB`)"
    ),
    OutboundStatus.NOT_SENT: "approve and send it again",
    OutboundStatus.SENT: "nothing: it was sent",
    OutboundStatus.SENDING: "wait: it is being sent",
}


NOTE_NEXT = "copy it and send it yourself: jobctrl never sends a note"


class MessageView(View):
    """A follow-up or outreach message with its exact email (``references`` is the
    ``References`` header) and where it stands."""

    outbound_id: str
    kind: str
    channel: str
    job_id: str | None
    application_id: str | None
    contact_id: str | None
    sequence: int
    status: str
    to: list[str]
    subject: str
    body: str
    in_reply_to: str | None
    references: str | None
    message_id: str | None
    approval_valid: bool
    approved_until: Timestamp | None
    error_code: str | None
    sent_at: Timestamp | None
    next_step: str


class OutboundSendView(View):
    """What a send came to: ``sent``, ``unknown`` (check the Sent folder, then resolve) or
    ``failed`` with its ``error_code`` (nothing was sent)."""

    outbound_id: str
    job_id: str | None
    attempt_id: str | None
    status: str
    error_code: str | None
    message: str
    message_id: str | None


def message_view(row: dict[str, Any], now: datetime) -> MessageView:
    expires = row["approval_expires_at"]
    valid = (
        row["status"] == OutboundStatus.APPROVED
        and expires is not None
        and as_utc(expires) > as_utc(now)
    )
    return MessageView(
        outbound_id=row["id"],
        kind=row["kind"],
        channel=row["channel"],
        job_id=row["job_id"],
        application_id=row["application_id"],
        contact_id=row["contact_id"],
        sequence=int(row["sequence"] or 1),
        status=row["status"],
        to=list(row["email_to"] or []),
        subject=row["email_subject"] or "",
        body=row["email_body"] or "",
        in_reply_to=row["in_reply_to"],
        references=row["thread_references"],
        message_id=row["message_id"],
        approval_valid=valid,
        approved_until=expires if valid else None,
        error_code=row["error_code"],
        sent_at=row["sent_at"],
        next_step=NOTE_NEXT if row["channel"] == "note" else _NEXT.get(row["status"], ""),
    )


def followup_rules(store: Store) -> tuple[int, int]:
    """``followup.after_days`` and ``followup.max_count``: how long after a message went
    out its follow-up is due, and how many there may be (an application's and a sent
    outreach email's alike)."""
    settings = Settings(store)
    return int(settings.get("followup.after_days")), int(settings.get("followup.max_count"))


def profile_of(home: Home) -> tuple[Profile, dict[str, tuple[str, ...]]]:
    """The person's profile and their aliases (what every claim is held to)."""
    config = config_file.load_config(home)
    return config.profile, config.alias_map()


def posting_text(store: Store, job: dict[str, Any]) -> str:
    """The posting's text (for choosing the profile line that fits it), or its title."""
    ref = job.get("text_artifact")
    if ref:
        try:
            return store.artifacts.get(ref).decode("utf-8", "replace")[:MAX_POSTING]
        except (OSError, KeyError):
            pass
    return str(job.get("title") or "")


def truth_check(
    home: Home, body: str, subject: str, facts: MessageFacts, record: Sequence[str]
) -> None:
    """Refuse (``MESSAGE_UNSUPPORTED_CLAIM``) a message with a claim the profile does not
    support, or a connection or referral nobody recorded."""
    profile, aliases = profile_of(home)
    found = check_message(body, subject, profile, facts, record=record, extra_aliases=aliases)
    if found:
        raise JobctrlError(
            f"the message claims what your profile does not support — {findings_summary(found)}: "
            "edit it so each sentence says only what your profile says",
            code=errors.MESSAGE_UNSUPPORTED_CLAIM,
        )


def approve_message(store: Store, row: dict[str, Any], clock: Clock | None) -> None:
    """Approve exactly the message as it is now, for ``apply_approval_ttl_seconds`` (at
    most 15 minutes): recipients, subject, body, threading headers, sender."""
    if row["status"] in (OutboundStatus.SENT, OutboundStatus.UNKNOWN, OutboundStatus.SENDING):
        raise JobctrlError(
            f"message {row['id']} is {row['status']}: nothing to approve",
            code=errors.APPLY_ALREADY_DONE
            if row["status"] == OutboundStatus.SENT
            else errors.APPLY_OUTCOME_UNKNOWN,
        )
    settings = Settings(store)
    sender = smtp_account(settings).sender
    ttl = timedelta(seconds=int(settings.get("apply_approval_ttl_seconds")))
    with store.write(clock=clock) as tx:
        fresh = outbound.require(tx, row["id"])
        digest = outbound_email.current_outbound_digest(fresh, sender)
        outbound.approve(
            tx,
            fresh["id"],
            digest=digest,
            message_id=message_id(fresh["id"], digest, sender),
            expires_at=tx.now + ttl,
        )


def send_message(store: Store, row: dict[str, Any], clock: Clock | None) -> OutboundSendView:
    """Send the approved message once (``stages.outbound_email``)."""
    outbound_email.settle_dead_outbound(store, clock=clock)
    result = outbound_email.send_outbound(store, row["id"], clock=clock)
    return OutboundSendView(
        outbound_id=row["id"],
        job_id=row["job_id"],
        attempt_id=result.attempt_id,
        status=result.status,
        error_code=result.error_code,
        message=result.message,
        message_id=result.message_id,
    )


def resolve_message(
    store: Store, row: dict[str, Any], resolution: str, clock: Clock | None
) -> None:
    """A send in doubt: the person checked their Sent folder (``sent`` or ``not-sent``)."""
    if resolution not in (Resolution.SENT.value, Resolution.NOT_SENT.value):
        raise JobctrlError("resolve as sent or not-sent", code=errors.INVALID_INPUT)
    outbound_email.settle_dead_outbound(store, clock=clock)
    with store.write(clock=clock) as tx:
        outbound.resolve(tx, row["id"], Resolution(resolution))
