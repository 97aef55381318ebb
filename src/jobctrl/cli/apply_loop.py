"""`jobctrl apply loop`: the standing apply loop (`apply-auto-local`) — its status, stop
and start — and `jobctrl apply loop once JOB`, one job's application prepared in the
worker by the same workflow. Neither ever sends or submits."""

from __future__ import annotations

import asyncio

import click

from jobctrl.app import apply_loop
from jobctrl.app.apply_loop import ApplyLoopStatus
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.plain_words import sentence

__all__ = ["loop_group"]


def _print(status: ApplyLoopStatus) -> None:
    # ``absent``: the loop never ran (the JSON keeps the code; a person reads words)
    state = "not started yet" if status.status == "absent" else status.status
    click.echo(
        f"{status.label} ({status.workflow_id}): {state}; auto_apply "
        f"{'on' if status.enabled else 'off'}"
    )
    if status.halted:
        click.echo(
            "halted: today's budget is spent (budget_exceeded); it starts again when the UTC "
            "day rolls over"
        )
    elif status.error_code:
        click.echo(f"error: {status.error_code}")
    click.echo(
        f"prepared {status.prepared}, in progress {status.in_progress}, failed "
        f"{status.failed}, queued {status.queued}"
    )
    for code, count in sorted(status.passed_over.items()):
        click.echo(f"waiting: {count} job(s): {sentence(code)} ({code})")


@click.group("loop", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the loop's status as JSON.")
@click.pass_context
@handle_errors
def loop_group(ctx: click.Context, as_json: bool) -> None:
    """The standing apply loop: its status (on or off, its latest run, what it prepared,
    what it passes over and why). `jobctrl apply loop stop|start`; it prepares
    applications of approved jobs and never sends or submits."""
    if ctx.invoked_subcommand is not None:
        return
    status = apply_loop.apply_loop_status(home())
    if as_json:
        echo_json(status)
    else:
        _print(status)


@loop_group.command("stop")
@click.option("--json", "as_json", is_flag=True, help="Print the loop's status as JSON.")
@handle_errors
def stop_cmd(as_json: bool) -> None:
    """Turn auto_apply off and cancel the running loop (what it prepared stays)."""
    status = asyncio.run(apply_loop.set_apply_loop(home(), enabled=False))
    if as_json:
        echo_json(status)
    else:
        said = "cancel requested" if status.cancel_requested else "the worker stops it"
        click.echo(f"auto_apply off: {said}")


@loop_group.command("start")
@click.option("--json", "as_json", is_flag=True, help="Print the loop's status as JSON.")
@handle_errors
def start_cmd(as_json: bool) -> None:
    """Turn auto_apply on: the worker's next heartbeat starts the loop."""
    status = asyncio.run(apply_loop.set_apply_loop(home(), enabled=True))
    if as_json:
        echo_json(status)
    else:
        click.echo("auto_apply on: the worker starts the loop at its next heartbeat")


@loop_group.command("once")
@click.argument("job")
@click.option("--wait", is_flag=True, help="Wait until the workflow has ended.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def once_cmd(job: str, wait: bool, as_json: bool) -> None:
    """Prepare JOB's application now through the apply workflow, as the loop would (a
    draft waiting for you; nothing is sent)."""
    result = asyncio.run(apply_loop.apply_in_worker(home(), job, wait=wait))
    if as_json:
        echo_json(result)
        return
    click.echo(f"{result.workflow_id}: {result.status}")
    if result.error_code:
        click.echo(f"error: {result.error_code}")
