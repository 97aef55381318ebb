"""What a send command prints and exits with, the same for `apply send`, `followups send`
and `outreach send`: the result (``--json``) or a line when sent; a refusal or an outcome
in doubt as ``error: CODE: message`` on stderr, exiting 3 when the outcome is unknown (it
may have gone out) and the code's status when refused (nothing was sent)."""

from __future__ import annotations

import sys

import click

from jobctrl.app.apply import SendView
from jobctrl.app.outbound import OutboundSendView
from jobctrl.cli.base import echo_json
from jobctrl.domain.errors import status_of

__all__ = ["EXIT_UNKNOWN", "print_send"]

EXIT_UNKNOWN = 3  # the outcome of a send is unknown: it may have gone out


def print_send(result: SendView | OutboundSendView, as_json: bool, sent: str) -> None:
    """Print what the send came to (``sent``: the line when it was sent), and exit with
    its status unless it was sent."""
    if as_json:
        echo_json(result)
    if result.status == "sent":
        if not as_json:
            click.echo(sent)
        return
    click.echo(f"error: {result.error_code}: {result.message}", err=True)
    sys.exit(
        EXIT_UNKNOWN if result.status == "unknown" else status_of(result.error_code or "").exit
    )
