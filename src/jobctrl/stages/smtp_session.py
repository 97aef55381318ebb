"""The SMTP conversation of one send, step by step, through the person's own account
(smtplib: STARTTLS, TLS from the first byte, or none on a loopback host only).

Each step before the message data raises ``Refused`` with a stable code when the server
(or the connection) says no: nothing was sent. ``data_command`` ends at the server's
go-ahead (354), so the caller can record that the data is about to go out;
``send_data`` sends the message and returns the server's reply code. What an exception
there means (the outcome is unknown) is for the caller to record.
"""

from __future__ import annotations

import re
import smtplib
import socket
import ssl
from dataclasses import dataclass
from typing import Any

from jobctrl.domain import errors
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.mail import SmtpSecurity, check_security_for_host, is_loopback_host
from jobctrl.domain.tenants import LOCAL
from jobctrl.fetch.addresses import is_public_address, normalize_host
from jobctrl.store.settings import Settings

__all__ = [
    "SMTP_TIMEOUT",
    "Refused",
    "SmtpAccount",
    "connect",
    "data_command",
    "envelope",
    "quit_quietly",
    "refusal_code",
    "send_data",
    "smtp_account",
]

SMTP_TIMEOUT = 30.0


@dataclass(frozen=True)
class SmtpAccount:
    host: str
    port: int
    security: str
    username: str
    password_env: str
    sender: str
    # Whether the server may be on a private network: the operator's own tenant's may; any
    # other tenant's only when the operator said so (its operator-only smtp.security=none,
    # loopback only, or the host in its operator-only fetch.allow_hosts).
    private_ok: bool = True


def smtp_account(settings: Settings) -> SmtpAccount:
    """The person's SMTP account from the settings; ``SMTP_NOT_CONFIGURED`` if unusable."""
    values = settings.all()
    host, security = str(values["smtp.host"]), str(values["smtp.security"])
    allowed = {normalize_host(h) for h in values["fetch.allow_hosts"] or ()}
    account = SmtpAccount(
        host=host,
        port=int(values["smtp.port"]),
        security=security,
        username=str(values["smtp.username"]),
        password_env=str(values["smtp.password_env"]),
        sender=str(values["smtp.from"]),
        private_ok=settings.store.tenant == LOCAL
        or security == SmtpSecurity.NONE
        or normalize_host(host) in allowed,
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


class Refused(Exception):
    """The server refused before the message data went out: nothing was sent."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def refusal_code(reply: int, default: str) -> str:
    if reply == 552:
        return errors.SMTP_MESSAGE_TOO_LARGE
    if 400 <= reply < 500:
        return errors.SMTP_TEMPORARY
    return default


class _Pinned:
    """Connects to an address checked beforehand, not to whatever the name resolves to
    next (a name that answered public once could answer private the second time); the
    name is still the one TLS verifies. Mixed into smtplib's SMTP and SMTP_SSL."""

    def __init__(self, host: str, port: int, *, address: str, **kwargs: Any) -> None:
        self._address = address  # read by _get_socket, which smtplib's __init__ calls
        super().__init__(host, port, **kwargs)  # type: ignore[call-arg]

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        return super()._get_socket(self._address, port, timeout)  # type: ignore[misc]


class _PinnedSMTP(_Pinned, smtplib.SMTP):
    pass


class _PinnedSMTPSSL(_Pinned, smtplib.SMTP_SSL):
    pass


def _public_address(account: SmtpAccount) -> str:
    """The one address to connect to for a server that must be public (a tenant's other
    than the operator's own: its smtp.host must not reach the deployment's network)."""
    try:
        found = [str(a[4][0]) for a in socket.getaddrinfo(account.host, account.port)]
    except (OSError, UnicodeError):
        found = []
    if not found:
        raise Refused(errors.SMTP_UNREACHABLE, f"could not resolve {account.host}")
    if not all(is_public_address(ip) for ip in found):
        raise Refused(
            errors.SMTP_NOT_CONFIGURED,
            f"smtp.host {account.host} is not a public address: only the operator's own "
            "tenant may send through a server on a private network",
        )
    return found[0]


def connect(account: SmtpAccount, password: str) -> smtplib.SMTP:
    """An SMTP session, logged in when the account has a user. A server that must be
    public (``account.private_ok`` false) is checked once and connected to by that address."""
    context = ssl.create_default_context()
    try:
        if account.security == SmtpSecurity.NONE:  # the name must reach loopback only
            found = socket.getaddrinfo(account.host, account.port, type=socket.SOCK_STREAM)
            if any(not is_loopback_host(str(a[4][0])) for a in found):
                raise Refused(errors.SMTP_TLS_FAILED, f"{account.host} is not a loopback host")
        server: smtplib.SMTP
        address = None if account.private_ok else _public_address(account)
        if account.security == SmtpSecurity.TLS:
            if address is None:
                server = smtplib.SMTP_SSL(
                    account.host, account.port, timeout=SMTP_TIMEOUT, context=context
                )
            else:
                server = _PinnedSMTPSSL(
                    account.host,
                    account.port,
                    address=address,
                    timeout=SMTP_TIMEOUT,
                    context=context,
                )
        elif address is None:
            server = smtplib.SMTP(account.host, account.port, timeout=SMTP_TIMEOUT)
        else:
            server = _PinnedSMTP(account.host, account.port, address=address, timeout=SMTP_TIMEOUT)
        server.ehlo()
        if account.security == SmtpSecurity.STARTTLS:
            if not server.has_extn("starttls"):
                server.close()
                raise Refused(errors.SMTP_TLS_FAILED, "the server does not offer STARTTLS")
            server.starttls(context=context)
            server.ehlo()
    except ssl.SSLError as exc:
        raise Refused(
            errors.SMTP_TLS_FAILED, f"TLS with the server failed ({exc.reason})"
        ) from None
    except (OSError, smtplib.SMTPException) as exc:
        raise Refused(
            errors.SMTP_UNREACHABLE,
            f"could not reach {account.host}:{account.port} ({type(exc).__name__})",
        ) from None
    if account.username:
        try:
            server.login(account.username, password)
        except smtplib.SMTPAuthenticationError as exc:
            server.close()
            raise Refused(
                errors.SMTP_AUTH_FAILED, f"the server refused the login ({exc.smtp_code})"
            ) from None
        except smtplib.SMTPNotSupportedError:
            server.close()
            raise Refused(errors.SMTP_AUTH_FAILED, "the server offers no login") from None
    return server


def envelope(server: smtplib.SMTP, sender: str, to: list[str], size: int) -> None:
    """MAIL FROM and RCPT TO: any refusal is raised as ``Refused`` (nothing sent)."""
    limit = int(server.esmtp_features.get("size", "0") or 0) if server.has_extn("size") else 0
    if limit and size > limit:
        raise Refused(
            errors.SMTP_MESSAGE_TOO_LARGE,
            f"the message is {size} bytes; the server takes at most {limit}",
        )
    code, _ = server.mail(sender, [f"SIZE={size}"] if server.has_extn("size") else [])
    if code != 250:
        raise Refused(
            refusal_code(code, errors.SMTP_SENDER_REFUSED),
            f"the server refused the sender ({code})",
        )
    for address in to:
        code, _ = server.rcpt(address)
        if code not in (250, 251):
            raise Refused(
                refusal_code(code, errors.SMTP_RECIPIENT_REFUSED),
                f"the server refused the recipient {address} ({code})",
            )


def data_command(server: smtplib.SMTP) -> None:
    """DATA, up to the server's go-ahead (354): nothing of the message is sent yet."""
    server.putcmd("data")
    code, _ = server.getreply()
    if code != 354:
        raise Refused(refusal_code(code, errors.SMTP_REFUSED), f"the server refused DATA ({code})")


def send_data(server: smtplib.SMTP, message: bytes) -> int:
    """The message itself and the final dot; the server's reply code."""
    quoted = re.sub(rb"(?m)^\.", b"..", message)
    if not quoted.endswith(b"\r\n"):
        quoted += b"\r\n"
    server.send(quoted + b".\r\n")
    code, _ = server.getreply()
    return code


def quit_quietly(server: smtplib.SMTP | None) -> None:
    if server is None:
        return
    try:
        server.quit()
    except (OSError, smtplib.SMTPException):
        server.close()
