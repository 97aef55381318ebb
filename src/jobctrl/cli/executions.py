"""`jobctrl executions [--json]`: executions Temporal runs that the store does not expect
(orphans) and the runs it holds open; `jobctrl executions stop WORKFLOW_ID [--run RUN]`
asks the worker to stop one (its heartbeat cancels it, again while it still runs, then
terminates it)."""

from __future__ import annotations

import asyncio

import click

from jobctrl.app import executions
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.clock import iso

__all__ = ["executions_group"]


@click.group("executions", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print orphans, open runs and stops as JSON.")
@click.pass_context
@handle_errors
def executions_group(ctx: click.Context, as_json: bool) -> None:
    """Executions Temporal runs that the store does not expect (orphans), the runs the
    store holds open (with their reconciled status), and stopping one."""
    if ctx.invoked_subcommand is not None:
        return
    view = executions.list_executions(home())
    if as_json:
        echo_json(view)
        return
    if not view.orphans:
        click.echo("no orphan executions")
    for o in view.orphans:
        click.echo(
            f"orphan {o.workflow_id} (run {o.run_id}, {o.workflow_type}), "
            f"started {iso(o.started_at)}; stop it: jobctrl executions stop {o.workflow_id}"
        )
    for r in view.open_runs:
        job = f" job {r.job_id}" if r.job_id else ""
        click.echo(f"{r.status:<20} {r.workflow_id} (run {r.run_id}){job}")
    for s in view.stop_requests:
        state = s.outcome.replace("_", " ") if s.outcome else f"issued {s.issued}x"
        click.echo(f"stop {s.workflow_id} (run {s.run_id}): {state}")


@executions_group.command("stop")
@click.argument("workflow_id")
@click.option("--run", "run_id", help="The exact run to stop (needed when several are known).")
@click.option("--json", "as_json", is_flag=True, help="Print the stop request as JSON.")
@handle_errors
def stop_cmd(workflow_id: str, run_id: str | None, as_json: bool) -> None:
    """Ask the worker to stop WORKFLOW_ID: its heartbeat cancels the execution and asks
    again while Temporal still reports it running (at most 5 times), then terminates it.
    An execution Temporal does not have is refused."""
    request = asyncio.run(executions.stop_execution(home(), workflow_id, run_id))
    if as_json:
        echo_json(request)
    else:
        click.echo(
            f"stop requested for {request.workflow_id} (run {request.run_id}); "
            "the worker cancels it at its next heartbeat"
        )
