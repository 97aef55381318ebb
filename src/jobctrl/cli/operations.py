"""`jobctrl ops`: the pipeline operations snapshot, once, as JSON, or followed live."""

from __future__ import annotations

import json
import math
import sys
import time

import click

from jobctrl.app import operations as app_ops
from jobctrl.app.operations import OperationsSnapshot, RuntimeItemView, RuntimeSnapshot
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.clock import iso

STAGES = ("enrich", "score", "tailor", "cover", "pdf")


def _item_line(item: RuntimeItemView) -> str:
    what = item.label or item.kind or "?"
    if item.job_title:
        at = f" at {item.company}" if item.company else ""
        what += f" · {item.job_title}{at} (job {item.job_id})"
    elif item.job_id:
        what += f" · job {item.job_id}"
    return f"    {what} · since {item.started_at}"


def _runtime_lines(rt: RuntimeSnapshot) -> list[str]:
    if rt.state != "fresh":
        why = "stale report" if rt.state == "stale" else "no worker reporting"
        return [f"Runtime: {rt.state} ({why}; slots and work unknown)"]
    lines = [
        f"Runtime: fresh · {rt.active_slots}/{rt.capacity} slots in use · {rt.workers} worker(s)"
    ]
    if rt.items:
        lines.append(f"  oldest active ({rt.items_total} in all):")
        lines += [_item_line(item) for item in rt.items[:5]]
        if rt.truncated:
            lines.append("    … more than the report lists (truncated)")
    queue = rt.queue
    if queue:
        lines.append(
            f"  task queue (approximate): backlog {queue.get('backlog')}, pollers "
            f"{queue.get('workflowPollers')} workflow / {queue.get('activityPollers')} activity"
        )
    return lines


def _attempt_lines(snap: OperationsSnapshot) -> list[str]:
    lines = ["Attempts today (UTC):"]
    for stage, a in snap.attempts_today.items():
        if not a.attempts:
            continue
        took = f"p50 {a.p50:g} s, p90 {a.p90:g} s" if a.p50 is not None else "none ended"
        codes = ", ".join(f"{f.code} x{f.count}" for f in a.top_failures)
        cut = f"{a.interrupted} interrupted, " if a.interrupted else ""
        lines.append(
            f"  {stage:<8} {a.attempts} ({a.succeeded} ok, {a.failed} failed, {cut}"
            f"{a.running} running) · {took}" + (f" · failures: {codes}" if codes else "")
        )
    return lines if len(lines) > 1 else ["Attempts today (UTC): none"]


def render(snap: OperationsSnapshot) -> list[str]:
    """The snapshot as lines for a person."""
    lines = [f"Phase: {app_ops.phase_text(snap)}"]
    run = snap.execution
    if run:
        ended = f", finished {iso(run.finished_at)}" if run.finished_at else ""
        lines.append(
            f"Discovery run {run.run_id} ({run.workflow_id}): {run.status}, "
            f"started {iso(run.started_at)}{ended}"
        )
    header = f"  {'scope':<26}{'jobs':>6}" + "".join(f"{s:>8}" for s in STAGES)
    lines += ["Remaining work:", header + f"{'failed':>8}{'blocked':>9}"]
    for name, scope in snap.scopes.items():
        cells = "".join(f"{scope.remaining[s]:>8}" for s in STAGES)
        lines.append(f"  {name:<26}{scope.jobs:>6}{cells}{scope.failed:>8}{scope.blocked:>9}")
    lines += _runtime_lines(snap.runtime)
    lines += _attempt_lines(snap)
    lines.append(f"ETA: {app_ops.eta_text(snap.eta)}")
    if snap.source_eta is not None:
        lines.append(f"Finding jobs: {app_ops.source_eta_text(snap.source_eta)}")
    for p in snap.stop_loss:
        lines.append(
            f"Stop-loss: {p.kind} {p.name} paused ({p.code}, {p.streak} in a row)"
            f" — resume: jobctrl resume {p.name}"
        )
    for o in snap.orphans:
        lines.append(
            f"Orphan execution: {o.workflow_id} ({o.workflow_type}) — "
            f"stop: jobctrl executions stop {o.workflow_id}"
        )
    rec = snap.recovery
    lines.append(
        f"Automatic recovery: {'on' if rec.enabled else 'off'} · due {rec.due} · "
        f"waiting on backoff {rec.waiting}"
    )
    return lines


def summary_line(snap: OperationsSnapshot) -> str:
    """One line per refresh when stdout is not a terminal."""
    left = sum(sum(s.remaining.values()) for s in snap.scopes.values())
    rt = snap.runtime
    slots = f"{rt.active_slots}/{rt.capacity}" if rt.state == "fresh" else rt.state
    return (
        f"{iso(snap.generated_at)} phase={snap.phase} remaining={left} slots={slots} "
        f"eta={app_ops.eta_text(snap.eta)}"
    )


def _finite(value: float) -> float:
    """FloatRange lets NaN through (no comparison with it is true)."""
    if math.isnan(value):
        raise click.BadParameter("must be a number from 0.2 to 3600")
    return value


def _follow(interval: float, as_json: bool) -> None:
    if sys.stdout.isatty() and not as_json:
        # rich is imported only when a terminal will show it (piped output needs none).
        from rich.live import Live
        from rich.text import Text

        with Live(auto_refresh=False) as live:
            while True:
                text = "\n".join(render(app_ops.operations_snapshot(home())))
                live.update(Text(text), refresh=True)
                time.sleep(interval)
    while True:
        snap = app_ops.operations_snapshot(home())
        click.echo(json.dumps(snap.to_json()) if as_json else summary_line(snap))
        sys.stdout.flush()
        time.sleep(interval)


@click.command("ops")
@click.option("--json", "as_json", is_flag=True, help="Print the snapshot as JSON.")
@click.option(
    "--follow",
    is_flag=True,
    help="Keep it up to date until Ctrl-C (live on a terminal; a line per refresh when "
    "piped, a JSON object per line with --json).",
)
@click.option(
    "--interval",
    default=2.0,
    show_default=True,
    type=click.FloatRange(0.2, 3600.0),
    callback=lambda _ctx, _param, value: _finite(value),
    help="Seconds between refreshes (0.2 to 3600).",
)
@handle_errors
def ops(as_json: bool, follow: bool, interval: float) -> None:
    """What the worker executes now, what remains, the phase and an honest ETA."""
    if follow:
        try:
            _follow(max(0.2, interval), as_json)
        except KeyboardInterrupt:
            return  # Ctrl-C ends following: not an error
    snap = app_ops.operations_snapshot(home())
    if as_json:
        echo_json(snap)
        return
    click.echo("\n".join(render(snap)))
