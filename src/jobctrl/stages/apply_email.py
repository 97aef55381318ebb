"""Sending an approved email application through the person's SMTP account, at most once.

``send_application(store, application_id)`` is the whole send, callable from a command or
an activity:

1. The message is built from the stored row (recipients, subject, body, the attachments'
   bytes from the artifact store, checked against their hashes).
2. One write transaction checks that an approval of exactly this message (its digest) is
   fresh, that the posting is not confirmed closed and that no other attempt is live,
   and records the submit intent with the message's deterministic Message-ID. Nothing
   goes to the server before that commit.
3. The SMTP conversation (smtplib: STARTTLS, TLS, or none on a loopback host) runs up to
   the recipients. A refusal there (login, sender, recipient, size, no connection) ends
   the attempt as ``failed`` with its code: nothing was sent, the person may retry.
4. Just before the message data goes out, the attempt is marked ``data_sent`` (committed).
   From then on a dropped connection, or a process that dies before the server's reply
   is recorded, leaves the outcome ``unknown``: shown to the person with what to check
   (their Sent folder), never re-sent by itself.
5. The server's 250 is recorded as ``sent``.

An attempt whose process died (``owner`` = host/pid/process start time, checked with
psutil) is settled by ``settle_dead_senders``: after the data was marked sent it becomes
``unknown``; before, ``failed`` (nothing went out).

``JOBCTRL_TEST_PAUSE_AT`` (before_intent | after_intent | before_data | after_data) makes
the process stop at that point for crash tests; it is never set in normal use.
"""

from __future__ import annotations

import os
import re
import smtplib
import socket
import ssl
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime
from hashlib import sha256
from typing import Any

import psutil

from jobctrl.domain import errors
from jobctrl.domain.applications import AttemptState, Channel
from jobctrl.domain.clock import Clock, as_utc, utcnow
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.mail import SmtpSecurity, check_security_for_host, is_loopback_host
from jobctrl.stages.apply_checks import check_sendable, current_digest
from jobctrl.store import applications, apply_attempts
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "PAUSE_ENV",
    "SendResult",
    "SmtpAccount",
    "build_message",
    "owner_is_alive",
    "process_owner",
    "send_application",
    "settle_dead_senders",
    "smtp_account",
]

PAUSE_ENV = "JOBCTRL_TEST_PAUSE_AT"
SMTP_TIMEOUT = 30.0


@dataclass(frozen=True)
class SmtpAccount:
    host: str
    port: int
    security: str
    username: str
    password_env: str
    sender: str


@dataclass(frozen=True)
class SendResult:
    application_id: str
    attempt_id: str | None
    status: str  # sent | unknown | failed
    error_code: str | None
    message: str
    message_id: str | None


def smtp_account(settings: Settings) -> SmtpAccount:
    """The person's SMTP account from the settings; ``SMTP_NOT_CONFIGURED`` if unusable."""
    values = settings.all()
    account = SmtpAccount(
        host=str(values["smtp.host"]),
        port=int(values["smtp.port"]),
        security=str(values["smtp.security"]),
        username=str(values["smtp.username"]),
        password_env=str(values["smtp.password_env"]),
        sender=str(values["smtp.from"]),
    )
    if not account.host or not account.sender:
        raise JobctrlError(
            "set your SMTP account first: `jobctrl settings set smtp.host HOST` and "
            "`jobctrl settings set smtp.from ADDRESS` (and smtp.username, smtp.password_env)",
            code=errors.SMTP_NOT_CONFIGURED,
        )
    refused = check_security_for_host(account.security, account.host)
    if refused:
        raise JobctrlError(refused, code=errors.SMTP_NOT_CONFIGURED)
    return account


def process_owner() -> str:
    """This process as an attempt's owner: host/pid/process start time."""
    return f"{socket.gethostname()}/{os.getpid()}/{psutil.Process().create_time():.3f}"


def owner_is_alive(owner: str | None) -> bool:
    """Whether the process that owns an attempt still runs (another host's: assumed so)."""
    host, _, rest = (owner or "").partition("/")
    pid_text, _, started = rest.partition("/")
    if host != socket.gethostname():
        return True
    try:
        process = psutil.Process(int(pid_text))
        return abs(process.create_time() - float(started)) < 0.01
    except (ValueError, psutil.Error):
        return False


def settle_dead_senders(store: Store, *, clock: Clock | None = None) -> int:
    """End the live email attempts whose process died: ``unknown`` once the data was
    marked sent, else ``failed`` (nothing went out). How many were settled."""
    settled = 0
    for attempt in apply_attempts.live_attempts(store, Channel.EMAIL.value):
        if owner_is_alive(attempt["owner"]):
            continue
        data_sent = attempt["state"] == AttemptState.DATA_SENT.value
        with store.write(clock=clock) as tx:
            settled += apply_attempts.finish_attempt(
                tx,
                attempt["id"],
                AttemptState.UNKNOWN if data_sent else AttemptState.FAILED,
                error_code=errors.SEND_SENDER_DIED,
            )
    return settled


def _pause(point: str) -> None:
    if os.environ.get(PAUSE_ENV) == point:
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
    msg.set_content(row["email_body"] or "")
    for item in row["attachments"] or []:
        data = store.artifacts.get(item["sha256"])
        if sha256(data).hexdigest() != item["sha256"]:
            raise JobctrlError(
                f"the attachment {item['name']} changed since it was approved",
                code=errors.APPLY_APPROVAL_MISMATCH,
            )
        msg.add_attachment(data, maintype="application", subtype="pdf", filename=item["name"])
    return msg.as_bytes()


class _Refused(Exception):
    """The server refused before the message data went out: nothing was sent."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _refusal(reply: int, default: str) -> str:
    if reply == 552:
        return errors.SMTP_MESSAGE_TOO_LARGE
    if 400 <= reply < 500:
        return errors.SMTP_TEMPORARY
    return default


def _connect(account: SmtpAccount, password: str) -> smtplib.SMTP:
    context = ssl.create_default_context()
    try:
        if account.security == SmtpSecurity.NONE:  # the name must reach loopback only
            found = socket.getaddrinfo(account.host, account.port, type=socket.SOCK_STREAM)
            if any(not is_loopback_host(str(a[4][0])) for a in found):
                raise _Refused(errors.SMTP_TLS_FAILED, f"{account.host} is not a loopback host")
        server: smtplib.SMTP
        if account.security == SmtpSecurity.TLS:
            server = smtplib.SMTP_SSL(
                account.host, account.port, timeout=SMTP_TIMEOUT, context=context
            )
        else:
            server = smtplib.SMTP(account.host, account.port, timeout=SMTP_TIMEOUT)
        server.ehlo()
        if account.security == SmtpSecurity.STARTTLS:
            if not server.has_extn("starttls"):
                server.close()
                raise _Refused(errors.SMTP_TLS_FAILED, "the server does not offer STARTTLS")
            server.starttls(context=context)
            server.ehlo()
    except ssl.SSLError as exc:
        raise _Refused(
            errors.SMTP_TLS_FAILED, f"TLS with the server failed ({exc.reason})"
        ) from None
    except (OSError, smtplib.SMTPException) as exc:
        raise _Refused(
            errors.SMTP_UNREACHABLE,
            f"could not reach {account.host}:{account.port} ({type(exc).__name__})",
        ) from None
    if account.username:
        try:
            server.login(account.username, password)
        except smtplib.SMTPAuthenticationError as exc:
            server.close()
            raise _Refused(
                errors.SMTP_AUTH_FAILED, f"the server refused the login ({exc.smtp_code})"
            ) from None
        except smtplib.SMTPNotSupportedError:
            server.close()
            raise _Refused(errors.SMTP_AUTH_FAILED, "the server offers no login") from None
    return server


def _envelope(server: smtplib.SMTP, sender: str, to: list[str], size: int) -> None:
    """MAIL FROM and RCPT TO: any refusal is raised as ``_Refused`` (nothing sent)."""
    limit = int(server.esmtp_features.get("size", "0") or 0) if server.has_extn("size") else 0
    if limit and size > limit:
        raise _Refused(
            errors.SMTP_MESSAGE_TOO_LARGE,
            f"the message is {size} bytes; the server takes at most {limit}",
        )
    code, _ = server.mail(sender, [f"SIZE={size}"] if server.has_extn("size") else [])
    if code != 250:
        raise _Refused(
            _refusal(code, errors.SMTP_SENDER_REFUSED), f"the server refused the sender ({code})"
        )
    for address in to:
        code, _ = server.rcpt(address)
        if code not in (250, 251):
            raise _Refused(
                _refusal(code, errors.SMTP_RECIPIENT_REFUSED),
                f"the server refused the recipient {address} ({code})",
            )


def _data_command(server: smtplib.SMTP) -> None:
    """DATA, up to the server's go-ahead (354): nothing of the message is sent yet."""
    server.putcmd("data")
    code, _ = server.getreply()
    if code != 354:
        raise _Refused(_refusal(code, errors.SMTP_REFUSED), f"the server refused DATA ({code})")


def _send_data(server: smtplib.SMTP, message: bytes) -> int:
    """The message itself and the final dot; the server's reply code."""
    quoted = re.sub(rb"(?m)^\.", b"..", message)
    if not quoted.endswith(b"\r\n"):
        quoted += b"\r\n"
    server.send(quoted + b".\r\n")
    code, _ = server.getreply()
    return code


def _finish(
    store: Store, attempt: str, state: AttemptState, code: str | None, clock: Clock | None
) -> None:
    with store.write(clock=clock) as tx:
        apply_attempts.finish_attempt(tx, attempt, state, error_code=code)


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
    password = env.get(account.password_env, "") if account.password_env else ""
    if account.username and not password:
        raise JobctrlError(
            f"the SMTP password is not set: put it in the environment variable "
            f"{account.password_env or '(smtp.password_env is empty)'}",
            code=errors.SMTP_PASSWORD_MISSING,
        )
    digest = current_digest(row, account.sender)
    message = build_message(store, row, account.sender, (clock or utcnow)())
    _pause("before_intent")
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

    _pause("after_intent")
    server: smtplib.SMTP | None = None
    try:
        server = _connect(account, password)
        _envelope(server, account.sender, list(row["email_to"] or []), len(message))
        with store.write(clock=clock) as tx:
            apply_attempts.mark_data_sent(tx, attempt)
        _pause("before_data")
        _data_command(server)
    except _Refused as exc:
        _finish(store, attempt, AttemptState.FAILED, exc.code, clock)
        _quit(server)
        return result("failed", exc.code, exc.message + "; nothing was sent")
    except (OSError, smtplib.SMTPException) as exc:
        code = errors.SMTP_UNREACHABLE
        _finish(store, attempt, AttemptState.FAILED, code, clock)
        _quit(server)
        return result(
            "failed", code, f"the connection failed ({type(exc).__name__}); nothing was sent"
        )
    try:
        reply = _send_data(server, message)
    except (OSError, smtplib.SMTPException):
        _finish(store, attempt, AttemptState.UNKNOWN, errors.SEND_CONNECTION_LOST, clock)
        _quit(server)
        return result("unknown", errors.SEND_CONNECTION_LOST, UNKNOWN_HINT)
    _pause("after_data")
    if reply == 250:
        _finish(store, attempt, AttemptState.SENT, None, clock)
        _quit(server)
        return result("sent", None, "sent")
    code = _refusal(reply, errors.SMTP_REFUSED)
    _finish(store, attempt, AttemptState.FAILED, code, clock)
    _quit(server)
    return result("failed", code, f"the server refused the message ({reply}); nothing was sent")


UNKNOWN_HINT = (
    "the connection ended after the message was sent and before the server answered: it "
    "may or may not have gone out. Check your mail account's Sent folder, then run "
    "`jobctrl apply resolve JOB sent` or `jobctrl apply resolve JOB not-sent`"
)


def _quit(server: smtplib.SMTP | None) -> None:
    if server is None:
        return
    try:
        server.quit()
    except (OSError, smtplib.SMTPException):
        server.close()
