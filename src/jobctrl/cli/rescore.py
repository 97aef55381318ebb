"""`jobctrl rescore`: score jobs again on the current profile, with live progress (the
command's work is ``app.rescore``)."""

from __future__ import annotations

import asyncio

import click

from jobctrl.app import jobs as app_jobs
from jobctrl.app import rescore as app_rescore
from jobctrl.app.rescore import RescoreJob, RescoreResult, Scope
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.cli.progress import Snapshot, watch
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError

SKIPPED = {
    app_rescore.NOT_SCORED: "not scored yet (its preparation scores it on your profile)",
    app_rescore.BUSY: "being worked on now; try again when it has finished",
    app_rescore.NO_DESCRIPTION: "no posting text to score",
}


@click.command()
@click.argument("refs", metavar="[JOB]...", nargs=-1)
@click.option("--stale", "scope", flag_value="stale", help="Every stale job (the default).")
@click.option("--all", "scope", flag_value="all", help="Every scored job.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Change nothing: per job the old score and the new one by the free offline scorer, "
    "and what a paid score model would cost at most against today's remaining budget.",
)
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Wait for the new scores, showing each job's progress.",
)
@click.option(
    "--paid",
    is_flag=True,
    help="Ask the paid score model even for jobs the free offline scorer places far below "
    "min_fit_score (setting score.offline_margin).",
)
@click.option("--timeout", default=600.0, show_default=True, help="Seconds to wait.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@handle_errors
def rescore(
    refs: tuple[str, ...],
    scope: str | None,
    dry_run: bool,
    wait: bool,
    paid: bool,
    timeout: float,
    as_json: bool,
) -> None:
    """Score jobs again on the current profile (the stale ones by default), and write
    materials again where allowed.

    The JOBs named, every stale job (scored or written for with another profile
    version: `--stale`, the default) or `--all` scored jobs. Tailor, Cover and PDF run
    again for a job that newly reaches min_fit_score, or whose materials were written
    for another profile and are not approved yet; approved materials are never
    replaced. A posting already scored against this profile is not paid for twice. A
    worker must be running (`jobctrl up`), except for --dry-run.
    """
    if refs and scope:
        raise JobctrlError("name jobs, or say --stale or --all, not both", code=INVALID_INPUT)
    chosen: Scope = "jobs" if refs else "all" if scope == "all" else "stale"
    if dry_run:
        result = app_rescore.plan_rescore(home(), list(refs), chosen, paid_score=paid)
    else:
        result = asyncio.run(_run(list(refs), chosen, wait, timeout, as_json, paid=paid))
    if as_json:
        echo_json(result)
        return
    _print(result)


async def _run(
    refs: list[str], scope: Scope, wait: bool, timeout: float, as_json: bool, *, paid: bool
) -> RescoreResult:
    result = await app_rescore.rescore(home(), refs, scope, paid=paid)
    job_ids = [j.job_id for j in result.jobs if j.workflow_id]
    if not wait or not job_ids:
        return result

    def snapshot() -> Snapshot:
        rows = app_jobs.job_progress(home(), job_ids)
        done = sum(1 for r in rows if r.finished)
        lines = [f"{done}/{len(rows)} jobs rescored"]
        lines += [f"{r.job_id}  {r.status}  score={r.stages.get('score', '?')}" for r in rows]
        return Snapshot(lines, (done, len(rows)))

    work = app_rescore.wait_for_rescore(home(), result, timeout)
    return await watch(work, snapshot, to_stderr=as_json)


def _score(value: int | None) -> str:
    return "–" if value is None else str(value)


def _line(job: RescoreJob, dry_run: bool) -> str:
    name = (job.title or "?")[:36] + (f" at {job.company}" if job.company else "")
    head = f"{job.job_id:<12}  {_score(job.old_score):>3} → {_score(job.new_score):>3}  {name}"
    if job.skipped:
        return f"{head}\n    skipped: {SKIPPED.get(job.skipped, job.skipped)}"
    notes = []
    if job.regenerate_materials:
        notes.append("materials written again" if not dry_run else "materials would be rewritten")
    if job.approved_materials_kept:
        notes.append("approved materials kept (regenerate them yourself to use your new profile)")
    if job.estimated_cost_usd is not None:
        notes.append(f"at most ${job.estimated_cost_usd:.4f}")
    return head + "".join(f"\n    {n}" for n in notes)


def _print(result: RescoreResult) -> None:
    if not result.jobs:
        click.echo("nothing to rescore: no job was made with another profile version")
        return
    what = "would rescore" if result.dry_run else "rescoring"
    click.echo(
        f"{what} {result.rescoring} job(s) on profile version {result.profile_version} "
        f"with {result.provider} {result.model}"
        + (f"; {result.skipped} skipped" if result.skipped else "")
    )
    if result.dry_run:
        click.echo("new scores below are the free offline scorer's")
    for job in result.jobs:
        click.echo(_line(job, result.dry_run))
    if result.dry_run and result.paid:
        budget = (
            "no daily budget set"
            if result.remaining_budget_usd is None
            else f"${result.remaining_budget_usd:.4f} of today's budget left"
        )
        click.echo(
            f"scoring them for real: at most ${result.estimated_cost_usd or 0:.4f}; {budget}"
        )
