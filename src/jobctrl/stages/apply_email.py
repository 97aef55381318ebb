"""Sending an approved email application through the person's SMTP account, at most once.

``send_application(store, application_id)`` is the whole send, callable from a command or
an activity:

1. The message is built from the stored row (recipients, subject, body, the attachments'
   bytes from the artifact store, checked against their hashes).
2. One write transaction checks that an approval of exactly this message (its digest) is
   fresh, that the posting is not confirmed closed and that no other attempt is live,
   and records the submit intent with the message's deterministic Message-ID. Nothing
   goes to the server before that commit.
3. The SMTP conversation (``stages.smtp_session``: STARTTLS, TLS, or none on a loopback
   host) runs up to the recipients. A refusal there (login, sender, recipient, size, no
   connection) ends the attempt as ``failed`` with its code: nothing was sent, the person
   may retry.
4. Just before the message data goes out, the attempt is marked ``data_sent`` (committed).
   From then on a dropped connection, or a process that dies before the server's reply
   is recorded, leaves the outcome ``unknown``: shown to the person with what to check
   (their Sent folder), never re-sent by itself.
5. The server's 250 is recorded as ``sent``.

An attempt whose process died (``owner`` = host/pid/process start time, checked with
psutil) is settled by ``settle_dead_senders``: after the data was marked sent it becomes
``unknown``; before, ``failed`` (nothing went out). One that stopped on an exception in a
process that goes on (a bug, Ctrl-C, a cancelled activity) is settled the same way at once
(``SEND_INTERRUPTED``).

The crash tests stop the process at one of those points (before_intent | after_intent |
before_data | after_data) with a hook (``jobctrl.testing.hooks.PAUSE_SEND_AT``), never set
in normal use.
"""

from __future__ import annotations

import os
import smtplib
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime
from hashlib import sha256
from typing import Any

from jobctrl.domain import errors
from jobctrl.domain.applications import UNKNOWN_HINT, AttemptState, Channel
from jobctrl.domain.clock import Clock, as_utc, utcnow
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.processes import owner_is_alive, process_owner
from jobctrl.domain.settings import DEFAULT_SMTP_PASSWORD_ENV as DEFAULT_PASSWORD_ENV
from jobctrl.domain.tenants import LOCAL
from jobctrl.stages import smtp_session as smtp
from jobctrl.stages.apply_checks import check_sendable, current_digest
from jobctrl.stages.smtp_session import SmtpAccount, smtp_account
from jobctrl.store import applications, apply_attempts
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store, WriteTx
from jobctrl.testing import hooks

__all__ = [
    "APPLICATION_ATTEMPTS",
    "AttemptLedger",
    "SendResult",
    "account_password",
    "build_message",
    "converse",
    "pause",
    "send_application",
    "settle_dead_prefills",
    "settle_dead_senders",
    "settle_interrupted",
]


@dataclass(frozen=True)
class SendResult:
    application_id: str
    attempt_id: str | None
    status: str  # sent | unknown | failed
    error_code: str | None
    message: str
    message_id: str | None


@dataclass(frozen=True)
class AttemptLedger:
    """Where one send's attempt is recorded: an application's (``store.apply_attempts``)
    or a follow-up's or outreach message's (``store.outbound_attempts``). The send itself,
    its intent, its points of no return and its outcomes are the same for both."""

    mark_data_sent: Callable[[WriteTx, str], bool]
    finish: Callable[..., bool]  # (tx, attempt, state, *, error_code=None)
    live: Callable[[Any, str], dict[str, Any] | None]  # (conn, the message's id)
    live_sends: Callable[[Store], list[dict[str, Any]]]  # every live email attempt


APPLICATION_ATTEMPTS = AttemptLedger(
    mark_data_sent=apply_attempts.mark_data_sent,
    finish=apply_attempts.finish_attempt,
    live=apply_attempts.live_attempt,
    live_sends=lambda store: apply_attempts.live_attempts(store, Channel.EMAIL.value),
)


def settle_dead_senders(
    store: Store, *, clock: Clock | None = None, ledger: AttemptLedger = APPLICATION_ATTEMPTS
) -> int:
    """End the live email attempts (``ledger``'s: an application's by default) whose
    process died: ``unknown`` once the data was marked sent, else ``failed`` (nothing went
    out). How many were settled."""
    settled = 0
    for attempt in ledger.live_sends(store):
        if owner_is_alive(attempt["owner"]):
            continue
        data_sent = attempt["state"] == AttemptState.DATA_SENT.value
        with store.write(clock=clock) as tx:
            settled += ledger.finish(
                tx,
                attempt["id"],
                AttemptState.UNKNOWN if data_sent else AttemptState.FAILED,
                error_code=errors.SEND_SENDER_DIED,
            )
    return settled


def settle_dead_prefills(store: Store, *, clock: Clock | None = None) -> int:
    """End the live browser attempts whose process died (``failed``, nothing submitted by
    the program: it never submits); how many."""
    settled = 0
    for attempt in apply_attempts.live_attempts(store, Channel.BROWSER.value):
        if owner_is_alive(attempt["owner"]):
            continue
        with store.write(clock=clock) as tx:
            settled += apply_attempts.finish_attempt(
                tx, attempt["id"], AttemptState.FAILED, error_code=errors.APPLY_PREFILL_INTERRUPTED
            )
    return settled


def pause(point: str) -> None:
    """Stop here forever when a crash test asked to (``hooks.PAUSE_SEND_AT``)."""
    if hooks.hook(hooks.PAUSE_SEND_AT) == point:
        print(f"paused at {point}", file=sys.stderr, flush=True)
        while True:  # until the crash test kills this process
            time.sleep(3600)


def build_message(store: Store, row: Mapping[str, Any], sender: str, now: datetime) -> bytes:
    """The exact message an application sends (CRLF line ends), its attachments read from
    the artifact store and checked against the hashes the approval bound."""
    msg = EmailMessage(policy=SMTP_POLICY)
    msg["From"] = sender
    msg["To"] = ", ".join(row["email_to"] or [])
    msg["Subject"] = row["email_subject"] or ""
    msg["Date"] = format_datetime(as_utc(now))
    msg["Message-ID"] = row["message_id"]
    if row.get("in_reply_to"):  # a follow-up: in the thread of the message it answers
        msg["In-Reply-To"] = row["in_reply_to"]
        msg["References"] = row.get("thread_references") or row["in_reply_to"]
    msg.set_content(row["email_body"] or "")
    for item in row.get("attachments") or []:
        data = store.artifacts.get(item["sha256"])
        if sha256(data).hexdigest() != item["sha256"]:
            raise JobctrlError(
                f"the attachment {item['name']} changed since it was approved",
                code=errors.APPLY_APPROVAL_MISMATCH,
            )
        msg.add_attachment(data, maintype="application", subtype="pdf", filename=item["name"])
    return msg.as_bytes()


def _finish(
    store: Store,
    attempt: str,
    state: AttemptState,
    code: str | None,
    clock: Clock | None,
    ledger: AttemptLedger,
) -> None:
    with store.write(clock=clock) as tx:
        ledger.finish(tx, attempt, state, error_code=code)


def account_password(store: Store, account: SmtpAccount, env: Mapping[str, str]) -> str:
    """The SMTP password from the variable the account names (``SMTP_PASSWORD_MISSING``
    when a login needs one, or when another tenant would use the deployment's own)."""
    password_env = account.password_env
    if store.tenant != LOCAL and password_env == DEFAULT_PASSWORD_ENV:
        # The deployment's own variable is local's: a tenant that chose its SMTP host would
        # otherwise log in there with the operator's password. The operator names each
        # tenant's variable (an operator-only setting).
        raise JobctrlError(
            f"the SMTP password of tenant {store.tenant} is not configured: the operator sets "
            f"its variable with `JOBCTRL_TENANT={store.tenant} jobctrl settings set "
            "smtp.password_env VAR` (not the deployment's own, "
            f"{DEFAULT_PASSWORD_ENV})",
            code=errors.SMTP_PASSWORD_MISSING,
        )
    password = env.get(password_env, "") if password_env else ""
    if account.username and not password:
        raise JobctrlError(
            f"the SMTP password is not set: put it in the environment variable "
            f"{account.password_env or '(smtp.password_env is empty)'}",
            code=errors.SMTP_PASSWORD_MISSING,
        )
    return password


def send_application(
    store: Store,
    application_id: str,
    *,
    env: Mapping[str, str] | None = None,
    clock: Clock | None = None,
) -> SendResult:
    """Send the approved email of ``application_id`` (see the module's steps). A refusal
    before the intent (no approval, expired, changed, closed posting, another attempt
    live, no account) raises ``JobctrlError`` and changes nothing; after the intent the
    outcome is the result: sent, failed (with its code) or unknown."""
    env = os.environ if env is None else env
    account = smtp_account(Settings(store))
    row = applications.by_id(store, application_id)
    if row is None:
        raise JobctrlError(f"no application {application_id}", code=errors.APPLY_NOT_PREPARED)
    password = account_password(store, account, env)
    digest = current_digest(row, account.sender)
    message = build_message(store, row, account.sender, (clock or utcnow)())
    pause("before_intent")
    with store.write(clock=clock) as tx:
        fresh = applications.require(tx, application_id)
        check_sendable(tx, fresh, digest, account.sender)
        attempt = apply_attempts.start_attempt(
            tx,
            application_id,
            kind=Channel.EMAIL.value,
            owner=process_owner(),
            message_id=fresh["message_id"],
            digest=digest,
        )
    message_id = str(fresh["message_id"])

    def result(status: str, code: str | None, text: str) -> SendResult:
        return SendResult(application_id, attempt, status, code, text, message_id)

    pause("after_intent")
    try:
        status, code, text = converse(store, attempt, account, password, row, message, clock)
    except BaseException:
        # Anything unforeseen (a bug, Ctrl-C, a cancelled activity) ends the attempt here,
        # so it never stays live in a process that goes on: failed before the data went
        # out, unknown after.
        settle_interrupted(store, application_id, attempt, clock)
        raise
    return result(status, code, text)


def converse(
    store: Store,
    attempt: str,
    account: SmtpAccount,
    password: str,
    row: Mapping[str, Any],
    message: bytes,
    clock: Clock | None,
    ledger: AttemptLedger = APPLICATION_ATTEMPTS,
) -> tuple[str, str | None, str]:
    """The SMTP conversation of a recorded intent: (status, code, what to tell)."""

    def finish(state: AttemptState, code: str | None) -> None:
        _finish(store, attempt, state, code, clock, ledger)

    server: smtplib.SMTP | None = None
    try:
        server = smtp.connect(account, password)
        smtp.envelope(server, account.sender, list(row["email_to"] or []), len(message))
        with store.write(clock=clock) as tx:
            still_ours = ledger.mark_data_sent(tx, attempt)
        if not still_ours:  # ended elsewhere (judged dead): the data must not go out now
            smtp.quit_quietly(server)
            return "failed", errors.SEND_INTERRUPTED, "the attempt was ended; nothing was sent"
        pause("before_data")
        smtp.data_command(server)
    except smtp.Refused as exc:
        finish(AttemptState.FAILED, exc.code)
        smtp.quit_quietly(server)
        return "failed", exc.code, exc.message + "; nothing was sent"
    except (OSError, smtplib.SMTPException) as exc:
        code = errors.SMTP_UNREACHABLE
        finish(AttemptState.FAILED, code)
        smtp.quit_quietly(server)
        return "failed", code, f"the connection failed ({type(exc).__name__}); nothing was sent"
    try:
        reply = smtp.send_data(server, message)
    except (OSError, smtplib.SMTPException):
        finish(AttemptState.UNKNOWN, errors.SEND_CONNECTION_LOST)
        smtp.quit_quietly(server)
        return "unknown", errors.SEND_CONNECTION_LOST, UNKNOWN_HINT
    pause("after_data")
    if reply == 250:
        finish(AttemptState.SENT, None)
        smtp.quit_quietly(server)
        return "sent", None, "sent"
    code = smtp.refusal_code(reply, errors.SMTP_REFUSED)
    finish(AttemptState.FAILED, code)
    smtp.quit_quietly(server)
    return "failed", code, f"the server refused the message ({reply}); nothing was sent"


def settle_interrupted(
    store: Store,
    owner_id: str,
    attempt: str,
    clock: Clock | None,
    ledger: AttemptLedger = APPLICATION_ATTEMPTS,
) -> None:
    """End ``attempt`` of ``owner_id`` (the application or message) that stopped on an
    exception: failed before the data went out, unknown after."""
    with store.write(clock=clock) as tx:
        live = ledger.live(tx.conn, owner_id)
        if live is None or live["id"] != attempt:
            return
        data_sent = live["state"] == AttemptState.DATA_SENT.value
        ledger.finish(
            tx,
            attempt,
            AttemptState.UNKNOWN if data_sent else AttemptState.FAILED,
            error_code=errors.SEND_INTERRUPTED,
        )
