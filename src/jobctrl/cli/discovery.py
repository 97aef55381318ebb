"""Commands on discovery: run it, list runs, manage sources."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click

from jobctrl.app import activity, configuration, discovery_plan
from jobctrl.app import discovery as app_discovery
from jobctrl.app import sources as app_sources
from jobctrl.app.activity import DiscoveryRunView
from jobctrl.app.discovery import DiscoveryStarting
from jobctrl.app.discovery_plan import RunPlan
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.cli.progress import Snapshot, watch
from jobctrl.domain.clock import as_utc
from jobctrl.domain.discovery import RunStatus
from jobctrl.domain.plain_words import sentence


def _run_line(run: DiscoveryRunView | DiscoveryStarting) -> str:
    if isinstance(run, DiscoveryStarting):  # no plan recorded yet: no steps, no counts
        return f"{run.run_id}  {run.status:<9} (its steps are not planned yet)"
    if run.status == RunStatus.REFUSED:  # not a failure: it let another run finish
        return f"{run.run_id}  skipped   another search was still running (run {run.yielded_to})"
    progress = run.progress
    text = f"{run.run_id}  {run.status:<9} {progress.done}/{progress.total} steps"
    counts = run.counts
    for key in (
        "found",
        "accepted",
        "jobs_created",
        "duplicates",
        "preparations_started",
        "backlog_swept",
    ):
        if counts.get(key):
            text += f"  {key.replace('_', ' ')}={counts[key]}"
    if run.error_code:
        text += f"  {sentence(run.error_code)} ({run.error_code})"
    return text


@click.command()
@click.option(
    "--wait",
    is_flag=True,
    help="Wait until the run has finished, showing its steps and counts as it goes.",
)
@click.option(
    "--cancel",
    is_flag=True,
    help="Stop the run in progress from finding jobs (results so far stay).",
)
@click.option(
    "--with-preparations/--without-preparations",
    "with_preparations",
    default=None,
    help="With --cancel: also cancel the preparations that run started (finished work "
    "stays; their model spend stops). Default: the discovery.cancel_preparations setting.",
)
@click.option("--timeout", default=1800.0, show_default=True, help="Seconds to wait with --wait.")
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON.")
@handle_errors
def discover(
    wait: bool, cancel: bool, with_preparations: bool | None, timeout: float, as_json: bool
) -> None:
    """Discover postings from the configured sources (`discover-local`).

    Each accepted new job starts its preparation at once. Starting a run while one is
    still finding jobs or preparing the jobs it found is refused (exit 1) with that run's
    id: wait for it, or stop it with --cancel [--with-preparations].
    """
    if with_preparations is not None and not cancel:
        raise click.UsageError("--with-preparations goes with --cancel")
    if cancel:
        result = asyncio.run(
            app_discovery.cancel_discovery(home(), with_preparations=with_preparations)
        )
        if as_json:
            echo_json(result)
            return
        if result.cancel_requested:
            click.echo(f"cancel requested for discovery run {result.run_id}")
        if result.with_preparations:
            n = len(result.preparations_canceled)
            click.echo(f"cancelled {n} preparation{'' if n == 1 else 's'} of run {result.run_id}")
        return
    work = app_discovery.start_discovery(home(), wait=wait, wait_timeout=timeout)
    if wait:
        # Progress on stderr when stdout holds the JSON; on a terminal a live display.
        run = asyncio.run(watch(work, _discovery_snapshot(), to_stderr=as_json))
    else:
        run = asyncio.run(work)
    if as_json:
        echo_json(run)
        return
    click.echo(f"discovery {_run_line(run)}")


def _discovery_snapshot() -> Callable[[], Snapshot | None]:
    """The run this command started or joined: the newest one still running or begun
    since the command did (a run's row appears once it has planned)."""
    begun = datetime.now(UTC) - timedelta(seconds=5)

    def snapshot() -> Snapshot | None:
        for run in activity.discovery_runs(home(), limit=3):
            if run.status == RunStatus.REFUSED:  # a scheduled run that let this one be
                continue
            if run.status == "running" or as_utc(run.started_at) >= begun:
                progress = run.progress
                return Snapshot([f"discovery {_run_line(run)}"], (progress.done, progress.total))
        return Snapshot(["discovery starting"])

    return snapshot


@click.command()
@click.option(
    "--plan",
    "plan_of",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[RUN_ID]",
    help="Show one run's plan instead (the newest run's without RUN_ID): each job's state "
    "and why the ones left out were.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
@handle_errors
def runs(plan_of: str | None, as_json: bool) -> None:
    """List recent discovery runs with their progress and counts. A run the store holds
    as running is first checked with Temporal (it may have ended since the worker's last
    beat)."""
    if plan_of is not None:
        _show_plan(discovery_plan.run_plan(home(), plan_of or None), as_json)
        return
    rows, checked = asyncio.run(app_discovery.observed_runs(home()))
    if not checked:
        click.echo(
            "note: no Temporal server answered; open runs are shown as last recorded",
            err=True,
        )
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no discovery runs yet; start one with `jobctrl discover`")
    for run in rows:
        click.echo(_run_line(run))


def _show_plan(plan: RunPlan, as_json: bool) -> None:
    if as_json:
        echo_json(plan)
        return
    counts = "  ".join(f"{state}={n}" for state, n in plan.counts.items() if n)
    click.echo(f"{plan.run_id}  {plan.status}  {counts or 'no members'}")
    titles = {m.job_id: " at ".join(t for t in (m.title, m.company) if t) for m in plan.members}
    for group in plan.not_eligible:
        n = group.postings + len(group.job_ids)
        click.echo(f"left out ({n}): {group.sentence} ({group.reason})")
        for job_id in group.job_ids:
            click.echo(f"  {job_id}  {titles.get(job_id) or '-'}")
    for member in plan.members:
        if member.state != "not_eligible":
            title = titles[member.job_id] or "-"
            code = member.error_code
            problem = f"  {sentence(code)} ({code})" if code else ""
            click.echo(f"{member.job_id}  {member.state:<8} {title}{problem}")


@click.group()
def sources() -> None:
    """Manage where discovery looks (the `sources:` list in config.yaml)."""


@sources.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the sources as JSON.")
@handle_errors
def sources_list(as_json: bool) -> None:
    """List the configured sources."""
    rows = configuration.list_sources(home())
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no sources yet; add one with `jobctrl sources add greenhouse TOKEN`")
    for s in rows:
        extra = f"  ({s.base_url})" if s.base_url else ""
        off = "" if s.enabled else "  [disabled]"
        click.echo(f"{s.kind:<16} {s.name}{extra}{off}")


@sources.command("add")
@click.argument("kind")
@click.argument("name")
@click.option("--base-url", default=None, help="A mirror or test server with the provider's paths.")
@handle_errors
def sources_add(kind: str, name: str, base_url: str | None) -> None:
    """Add a source. KIND: greenhouse, lever, ashby, workable, smartrecruiters, recruitee,
    feed (NAME = feed URL) or careers-page (NAME = page URL)."""
    entry = app_sources.add_source(home(), kind, name, base_url)
    click.echo(f"added {entry.kind} source {entry.name}")


@sources.command("remove")
@click.argument("name")
@handle_errors
def sources_remove(name: str) -> None:
    """Remove every source with this NAME."""
    app_sources.remove_source(home(), name)
    click.echo(f"removed {name}")


@sources.command("import-career-ops")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what was imported as JSON.")
@handle_errors
def sources_import_career_ops(directory: Path, as_json: bool) -> None:
    """Bring a career-ops setup over: portals.yml companies become sources and the URL
    inbox in data/pipeline.md is added as jobs (when a worker is running)."""
    result = asyncio.run(app_sources.import_career_ops(home(), directory))
    if as_json:
        echo_json(result)
        return
    click.echo(
        f"imported {len(result.sources_added)} sources "
        f"({result.sources_skipped} already configured) and {len(result.jobs_added)} URLs"
    )
