"""`jobctrl doctor [--json]`: the health check, one line per check with the command that
fixes it; exit 1 when any check fails."""

from __future__ import annotations

import asyncio
import sys

import click

from jobctrl.app import health
from jobctrl.cli.base import echo_json, handle_errors, home

__all__ = ["doctor"]

MARKS = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@handle_errors
def doctor(as_json: bool) -> None:
    """Check the Temporal server, workers, database, disk and open runs; each problem
    with the command that fixes it (exit 1 when a check fails).

    Nine checks, each ok, warn or fail: the Temporal server answers, how long it keeps a
    finished run's history (temporal.retention_days), a worker polls and its heartbeat is
    fresh, the database is sound and migrated, disk space in the home, artifact files the
    jobs refer to, runs held open near the retention, jobs scored with an older profile,
    and paused lanes or sources."""
    report = asyncio.run(health.doctor(home()))
    if as_json:
        echo_json(report)
    else:
        for check in report.checks:
            click.echo(f"{MARKS[check.status]}  {check.name:<17} {check.summary}")
            if check.fix:
                click.echo(f"{'':<25}fix: {check.fix}")
        click.echo(f"overall: {report.status}")
    if report.status == "fail":
        sys.exit(1)
