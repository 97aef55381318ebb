"""`jobctrl cancel`, `jobctrl reset`, `jobctrl resume` (issue 13, being built)."""

from __future__ import annotations

import click

from jobctrl.cli.base import handle_errors


@click.command("cancel")
@click.argument("job")
@handle_errors
def cancel(job: str) -> None:
    """Cancel one job's preparation (what it finished stays)."""
    raise click.ClickException("not built yet")


@click.command("reset")
@click.argument("job")
@click.option("--stage", required=True, help="The stage to put back to pending.")
@handle_errors
def reset(job: str, stage: str) -> None:
    """Put one stage of a job back to pending without cancelling anything."""
    raise click.ClickException("not built yet")


@click.command("resume")
@click.argument("lane_or_source")
@handle_errors
def resume(lane_or_source: str) -> None:
    """Resume the automation stop-loss paused for a lane or a source."""
    raise click.ClickException("not built yet")
