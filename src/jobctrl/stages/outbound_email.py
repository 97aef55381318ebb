"""Sending an approved follow-up or outreach email at most once: the application's send.

``send_outbound(store, outbound_id)`` is ``stages.apply_email``'s send for a message of
``store.outbound``: the message is built by the same ``build_message`` (with its
``In-Reply-To`` / ``References``), one write transaction checks the exact approval, its
freshness and (outreach) the day's cap and records the submit intent with the message's
deterministic Message-ID, and the same SMTP conversation (``apply_email.converse``) runs
with this message's attempts (``store.outbound_attempts``) as its ledger: ``failed``
before the data (nothing sent), ``unknown`` after it (never re-sent by itself), ``sent``.
The crash points (``hooks.PAUSE_SEND_AT``) are the same four.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, time
from typing import Any

from jobctrl.domain import errors
from jobctrl.domain.clock import Clock, as_utc, utcnow
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.followups import OutboundKind, outbound_digest
from jobctrl.domain.processes import process_owner
from jobctrl.stages import apply_email
from jobctrl.stages.apply_checks import Wording, check_approval, check_not_done
from jobctrl.stages.apply_email import AttemptLedger, SendResult
from jobctrl.stages.smtp_session import smtp_account
from jobctrl.store import outbound, outbound_attempts
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "OUTBOUND_ATTEMPTS",
    "check_outbound_sendable",
    "current_outbound_digest",
    "send_outbound",
    "settle_dead_outbound",
]

OUTBOUND_ATTEMPTS = AttemptLedger(
    mark_data_sent=outbound_attempts.mark_data_sent,
    finish=outbound_attempts.finish_attempt,
    live=outbound_attempts.live_attempt,
    live_sends=outbound_attempts.live_attempts,
)


def current_outbound_digest(row: Mapping[str, Any], sender: str) -> str:
    """The digest of the message as the row holds it now, sent from ``sender``."""
    if row["channel"] != "email" or not row["email_to"]:
        raise JobctrlError(
            f"message {row['id']} is not an email with a recipient",
            code=errors.APPLY_NO_RECIPIENT,
        )
    return outbound_digest(
        outbound_id=row["id"],
        kind=row["kind"],
        job_id=row["job_id"],
        sender=sender,
        to=row["email_to"],
        subject=row["email_subject"] or "",
        body=row["email_body"] or "",
        in_reply_to=row["in_reply_to"],
        references=row["thread_references"],
    )


# The application's checks, in a message's words (its statuses are an email
# application's: ``sent`` is done, ``unknown`` in doubt, ``sending`` live).
MESSAGE = Wording(
    noun="message", resolve="resolve it as sent or not-sent", approve="approve it after reading it"
)


def _day_start(now: datetime) -> datetime:
    return datetime.combine(as_utc(now).date(), time(0), tzinfo=as_utc(now).tzinfo)


def check_outbound_sendable(
    tx: WriteTx, row: Mapping[str, Any], digest: str, sender: str, *, max_per_day: int
) -> None:
    """Under the intent's write transaction: exactly the approved message, a fresh
    approval, nothing in doubt, and for outreach fewer than ``max_per_day`` sent today."""
    check_not_done(row, MESSAGE)
    check_approval(tx, row, digest, lambda: current_outbound_digest(row, sender), MESSAGE)
    if row["kind"] == OutboundKind.OUTREACH:
        sent = outbound_attempts.sent_since(tx.conn, row["kind"], _day_start(tx.now))
        if sent >= max_per_day:
            raise JobctrlError(
                f"{sent} outreach emails went out today, the most outreach.max_per_day allows "
                f"({max_per_day}): send this one tomorrow",
                code=errors.OUTREACH_DAILY_CAP,
            )


def settle_dead_outbound(store: Store, *, clock: Clock | None = None) -> int:
    """End the live attempts whose process died, as an application's are
    (``apply_email.settle_dead_senders``). How many were settled."""
    return apply_email.settle_dead_senders(store, clock=clock, ledger=OUTBOUND_ATTEMPTS)


def send_outbound(
    store: Store,
    outbound_id: str,
    *,
    env: Mapping[str, str] | None = None,
    clock: Clock | None = None,
) -> SendResult:
    """Send the approved message ``outbound_id`` once. A refusal before the intent raises
    ``JobctrlError`` and changes nothing; after it the outcome is the result (sent,
    failed with its code, or unknown). ``SendResult.application_id`` is the message's id."""
    env = os.environ if env is None else env
    settings = Settings(store)
    account = smtp_account(settings)
    max_per_day = int(settings.get("outreach.max_per_day"))
    row = outbound.by_id(store, outbound_id)
    if row is None:
        raise JobctrlError(f"no message {outbound_id}", code=errors.APPLY_NOT_PREPARED)
    password = apply_email.account_password(store, account, env)
    digest = current_outbound_digest(row, account.sender)
    message = apply_email.build_message(store, row, account.sender, (clock or utcnow)())
    apply_email.pause("before_intent")
    with store.write(clock=clock) as tx:
        fresh = outbound.require(tx, outbound_id)
        check_outbound_sendable(tx, fresh, digest, account.sender, max_per_day=max_per_day)
        attempt = outbound_attempts.start_attempt(
            tx, outbound_id, owner=process_owner(), message_id=fresh["message_id"], digest=digest
        )
    apply_email.pause("after_intent")
    try:
        status, code, text = apply_email.converse(
            store, attempt, account, password, row, message, clock, OUTBOUND_ATTEMPTS
        )
    except BaseException:
        apply_email.settle_interrupted(store, outbound_id, attempt, clock, OUTBOUND_ATTEMPTS)
        raise
    return SendResult(outbound_id, attempt, status, code, text, str(fresh["message_id"]))
