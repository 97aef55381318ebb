"""The demo's mail sink: a real SMTP server (aiosmtpd) on 127.0.0.1 that keeps what it is
sent, so the demo ends with an application sent the way a person's is — through
`apply send` and an SMTP conversation — and nothing leaves the machine.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from types import TracebackType
from typing import Any, Self

from aiosmtpd.controller import Controller

__all__ = ["MailSink", "SentMail"]

HOST = "127.0.0.1"


@dataclass(frozen=True)
class SentMail:
    """One message the sink accepted: envelope, subject and attachment names."""

    sender: str
    recipients: list[str]
    subject: str
    attachments: list[str]


@dataclass
class _Keep:
    received: list[SentMail] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = message_from_bytes(
            envelope.original_content or envelope.content, policy=policy.default
        )
        names = [part.get_filename() or "" for part in message.iter_attachments()]
        self.received.append(
            SentMail(envelope.mail_from, list(envelope.rcpt_tos), str(message["subject"]), names)
        )
        return "250 2.0.0 kept by the jobctrl demo's mail sink"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class MailSink:
    """An SMTP server on a free loopback port (no TLS, no login: loopback only); use it as
    a context manager. ``settings()`` are the jobctrl settings that send to it."""

    def __init__(self) -> None:
        self._keep = _Keep()
        self.port = _free_port()
        self._controller = Controller(self._keep, hostname=HOST, port=self.port)

    @property
    def received(self) -> list[SentMail]:
        return self._keep.received

    def settings(self, sender: str) -> dict[str, Any]:
        """Send from ``sender`` through this sink (``smtp.security none`` is allowed for a
        loopback host only)."""
        return {
            "smtp.host": HOST,
            "smtp.port": self.port,
            "smtp.security": "none",
            "smtp.username": "",
            "smtp.from": sender,
        }

    def __enter__(self) -> Self:
        self._controller.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._controller.stop()
