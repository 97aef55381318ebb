"""A real SMTP server on loopback for the email channel's tests (aiosmtpd).

``SmtpServer`` listens on 127.0.0.1 with STARTTLS (a throwaway self-signed certificate
made with the ``openssl`` CLI for this server only) and AUTH (``USER`` / ``PASSWORD``,
only after STARTTLS), and keeps every message it accepted in ``delivered`` (sender,
recipients, raw bytes). Misbehaviour on demand: ``refuse`` (recipients answered 550),
``size_limit`` (advertised with SIZE), ``drop_after_data`` (the connection is cut once the
message data has arrived, before any reply), ``tls=False`` (no STARTTLS, no AUTH),
``implicit_tls=True`` (TLS from the first byte, as on port 465, with AUTH).

The client (the jobctrl process) trusts the certificate through ``SSL_CERT_FILE``:
``server.client_env()`` gives the variables a command needs.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

HOST = "127.0.0.1"
USER = "jane@example.org"
PASSWORD = "correct horse battery staple"
PASSWORD_ENV = "JOBCTRL_TEST_SMTP_PASSWORD"


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (and localhost): (cert, key) paths."""
    cert, key = directory / "smtp-cert.pem", directory / "smtp-key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-addext", "basicConstraints=critical,CA:TRUE"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


@dataclass
class Delivered:
    sender: str
    recipients: list[str]
    data: bytes


@dataclass
class _Handler:
    refuse: set[str]
    drop_after_data: bool
    delivered: list[Delivered] = field(default_factory=list)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:
        if address in self.refuse:
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        data = envelope.original_content or envelope.content
        self.delivered.append(Delivered(envelope.mail_from, list(envelope.rcpt_tos), bytes(data)))
        if self.drop_after_data:
            server.transport.abort()  # the data arrived; the reply never leaves
        return "250 2.0.0 queued"


def _authenticate(server, session, envelope, mechanism, auth_data) -> AuthResult:
    ok = (
        isinstance(auth_data, LoginPassword)
        and auth_data.login.decode() == USER
        and auth_data.password.decode() == PASSWORD
    )
    return AuthResult(success=ok, handled=False)  # False: the server answers 535


class SmtpServer:
    def __init__(
        self,
        directory: Path,
        *,
        tls: bool = True,
        implicit_tls: bool = False,
        refuse: set[str] | None = None,
        size_limit: int = 10 * 1024 * 1024,
        drop_after_data: bool = False,
    ) -> None:
        self.handler = _Handler(refuse or set(), drop_after_data)
        self.port = free_port()
        self.cert: Path | None = None
        params: dict[str, Any] = {"data_size_limit": size_limit}
        self.implicit_tls = implicit_tls
        if tls or implicit_tls:
            self.cert, key = make_certificate(directory)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.cert, key)
            params.update(authenticator=_authenticate, auth_require_tls=True)
            if implicit_tls:  # aiosmtpd does not count this as TLS for AUTH: it is, though
                params.update(ssl_context=context, auth_require_tls=False)
            else:
                params.update(tls_context=context, require_starttls=True)
        else:
            params.update(auth_require_tls=False)
        self.controller = Controller(self.handler, hostname=HOST, port=self.port, **params)

    @property
    def delivered(self) -> list[Delivered]:
        return self.handler.delivered

    def settings(self) -> dict[str, Any]:
        """The jobctrl settings that point at this server."""
        return {
            "smtp.host": HOST,
            "smtp.port": self.port,
            "smtp.security": ("tls" if self.implicit_tls else "starttls" if self.cert else "none"),
            "smtp.username": USER if self.cert else "",
            "smtp.password_env": PASSWORD_ENV,
            "smtp.from": USER,
        }

    def client_env(self) -> dict[str, str]:
        env = {PASSWORD_ENV: PASSWORD}
        if self.cert:
            env["SSL_CERT_FILE"] = str(self.cert)
        return env

    def __enter__(self) -> Self:
        self.controller.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.controller.stop()
