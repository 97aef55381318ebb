"""`jobctrl executions [--json]`: executions Temporal runs that the store does not expect
(orphans) and the runs it holds open; `jobctrl executions stop WORKFLOW_ID [--run RUN]`
asks the worker to stop one (its heartbeat cancels it, again while it still runs, then
terminates it)."""

from __future__ import annotations

import asyncio

import click

from jobctrl.app import executions
from jobctrl.cli.base import echo_json, handle_errors, home

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
    if not view["orphans"]:
        click.echo("no orphan executions")
    for o in view["orphans"]:
        click.echo(
            f"orphan {o['workflowId']} (run {o['runId']}, {o['workflowType']}), "
            f"started {o['startedAt']}; stop it: jobctrl executions stop {o['workflowId']}"
        )
    for r in view["openRuns"]:
        job = f" job {r['jobId']}" if r["jobId"] else ""
        click.echo(f"{r['status']:<20} {r['workflowId']} (run {r['runId']}){job}")
    for s in view["stopRequests"]:
        outcome = s["outcome"]
        state = outcome.replace("_", " ") if outcome else f"issued {s['issued']}x"
        click.echo(f"stop {s['workflowId']} (run {s['runId']}): {state}")


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
            f"stop requested for {request['workflowId']} (run {request['runId']}); "
            "the worker cancels it at its next heartbeat"
        )
