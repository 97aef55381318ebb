"""`jobctrl ops` (issue 13, being built)."""

from __future__ import annotations

import click

from jobctrl.cli.base import handle_errors


@click.command("ops")
@click.option("--json", "as_json", is_flag=True, help="Print the snapshot as JSON.")
@handle_errors
def ops(as_json: bool) -> None:
    """What the worker executes now, what remains, the phase and an honest ETA."""
    raise click.ClickException("not built yet")
