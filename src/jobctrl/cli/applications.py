"""`jobctrl applications`: the application tracker — list, set an outcome, export to
career-ops ``applications.md`` or CSV, import from career-ops."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from jobctrl.app import applications as app_applications
from jobctrl.app.applications import TrackedApplication
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.clock import iso
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError

__all__ = ["applications_group"]


def _short(text: str | None, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _line(item: TrackedApplication) -> str:
    ref = item.job_id or item.application_id
    applied = (iso(item.applied_at) or "")[:10]
    score = "" if item.score is None else str(item.score)
    return (
        f"{ref:<16} {_short(item.company, 20):<20} {_short(item.role, 28):<28} "
        f"{item.status:<10} {item.outcome or '':<10} {applied:<10} "
        f"{iso(item.follow_up) or '':<10} {score:>5}  {_short(item.notes, 40)}"
    )


@click.group("applications", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the applications as JSON.")
@click.pass_context
@handle_errors
def applications_group(ctx: click.Context, as_json: bool) -> None:
    """The application tracker: every application with its status and outcome.

    With no subcommand, lists them (most recently changed first): job (or application id
    for an imported row without a job), company, role, status, outcome, applied date,
    follow-up date, score and notes.
    """
    if ctx.invoked_subcommand is not None:
        return
    items = app_applications.list_applications(home())
    if as_json:
        echo_json(items)
        return
    if not items:
        click.echo("no applications yet (`jobctrl applications set JOB --outcome applied`)")
        return
    head = (
        f"{'JOB':<16} {'COMPANY':<20} {'ROLE':<28} {'STATUS':<10} {'OUTCOME':<10} "
        f"{'APPLIED':<10} {'FOLLOW-UP':<10} {'SCORE':>5}  NOTES"
    )
    click.echo(head)
    for item in items:
        click.echo(_line(item))


@applications_group.command("set")
@click.argument("job")
@click.option(
    "--outcome",
    help=f"What came of the application: {', '.join(app_applications.OUTCOMES)}.",
)
@click.option("--note", help="A note on the application (replaces the one it has).")
@click.option("--follow-up", "follow_up", help="When to follow up, as YYYY-MM-DD.")
@click.option("--json", "as_json", is_flag=True, help="Print the application as JSON.")
@handle_errors
def applications_set(
    job: str, outcome: str | None, note: str | None, follow_up: str | None, as_json: bool
) -> None:
    """Record the outcome of JOB's application (JOB: a job id or prefix, or an `app-…`
    id). Any outcome means it went out: a job never sent or submitted through jobctrl is
    marked applied, so jobctrl does not apply for it again."""
    if outcome is None:
        raise JobctrlError("--outcome is required", code=INVALID_INPUT)
    item = app_applications.set_application_outcome(
        home(), job, outcome, note=note, follow_up=follow_up
    )
    if as_json:
        echo_json(item)
    else:
        click.echo(f"{item.job_id or item.application_id}: {item.status}, {outcome}")


def _write_atomically(target: Path, text: str) -> None:
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@applications_group.command("export")
@click.option(
    "--format",
    "fmt",
    help="career-ops (its data/applications.md table) or csv (one row per application).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file (replaced whole) instead of printing.",
)
@handle_errors
def applications_export(fmt: str | None, out: Path | None) -> None:
    """Export the tracker as career-ops `applications.md` or as CSV."""
    if fmt is None:
        raise JobctrlError("--format career-ops|csv is required", code=INVALID_INPUT)
    text = app_applications.export_applications(home(), fmt)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        _write_atomically(out, text)
    except OSError as exc:
        raise JobctrlError(
            f"cannot write {out}: {exc.strerror or type(exc).__name__}", code=INVALID_INPUT
        ) from None
    click.echo(str(out))


@applications_group.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@handle_errors
def applications_import(file: Path, as_json: bool) -> None:
    """Bring a career-ops `data/applications.md` in. A row becomes the application of the
    job jobctrl knows with its posting URL (or company and role), else a tracker row of
    its own; importing the same file again adds nothing."""
    result = app_applications.import_applications(home(), file)
    if as_json:
        echo_json(result)
        return
    click.echo(
        f"added {result.added}, matched to jobs {result.matched}, "
        f"updated {result.updated}, unchanged {result.unchanged}"
    )
    for why in result.skipped:
        click.echo(f"skipped {why}")
