"""`jobctrl cancel`, `jobctrl reset`, `jobctrl resume`: the person's stop controls."""

from __future__ import annotations

import asyncio

import click

from jobctrl.app import control
from jobctrl.cli.base import echo_json, handle_errors, home


@click.command("cancel")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def cancel(job: str, as_json: bool) -> None:
    """Cancel one job's preparation (what it finished stays; `jobctrl retry` starts it
    again)."""
    result = asyncio.run(control.cancel_job(home(), job))
    if as_json:
        echo_json(result)
        return
    runs = ", ".join(result.canceled) or "none running"
    stages = ", ".join(result.stages) or "none unfinished"
    click.echo(f"job {result.job_id}: asked to cancel {runs}; stages canceled: {stages}")


@click.command("reset")
@click.argument("job")
@click.option("--stage", required=True, help="The stage to put back to pending.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def reset(job: str, stage: str, as_json: bool) -> None:
    """Put one stage of a job (and the later ones not running) back to pending without
    cancelling or starting anything now (`jobctrl retry` runs it at once; with
    recovery.enabled, the worker's automatic recovery may pick it up later)."""
    result = control.reset_stage(home(), job, stage)
    if as_json:
        echo_json(result)
        return
    click.echo(
        f"job {result.job_id}: reset {', '.join(result.reset) or 'nothing'} to pending "
        "(nothing was started: `jobctrl retry` runs it now; automatic recovery may later)"
    )


@click.command("resume")
@click.argument("lane_or_source")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def resume(lane_or_source: str, as_json: bool) -> None:
    """Resume the automation stop-loss paused for a lane (enrich, score, tailor, cover,
    pdf) or a source (its name; `lane:NAME` or `source:NAME` when both exist)."""
    result = control.resume(home(), lane_or_source)
    if as_json:
        echo_json(result)
        return
    if result.resumed:
        click.echo(f"{result.kind} {result.name} resumed (it was paused by {result.code})")
    else:
        click.echo(f"{result.kind} {result.name} was not paused")
