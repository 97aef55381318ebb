"""Commands on jobs: add, retry, list, show, and the event log.

The reads (`jobctrl jobs`, `jobctrl show`) load this module too: what only adding,
retrying or the event log need (asyncio, app.jobs, the progress display, app.activity)
is imported inside those commands, so a read answers sooner (issue 26).
"""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING

import click

from jobctrl.app import configuration, queries
from jobctrl.app.queries import Salary, StageView
from jobctrl.app.truth import TruthCheckView
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.errors import MIN_SCORE
from jobctrl.domain.events import summary_fields
from jobctrl.domain.inbox import TITLES, NextAction
from jobctrl.domain.stages import JobStatus, StageState

if TYPE_CHECKING:
    from jobctrl.app.jobs import AddedJob, JobProgress


def _profile_hint() -> None:
    """Say so when scores mean little because the profile is still empty."""
    if configuration.profile_is_empty(home()):
        click.echo(
            "note: the profile in config.yaml has no skills or experience yet, so fit "
            "scores are low; fill it in before adding jobs",
            err=True,
        )


def _stage_summary(stages: list[StageView]) -> str:
    parts = []
    for st in stages:
        text = f"{st.stage}={st.state}"
        if st.error_code:
            text += f"({st.error_code})"
        parts.append(text)
    return " ".join(parts)


@click.command()
@click.argument("urls", metavar="URL [URL...]", nargs=-1, required=True)
@click.option(
    "--wait",
    is_flag=True,
    help="Wait until the jobs are prepared (with several, each job's stages as they go).",
)
@click.option("--timeout", default=300.0, show_default=True, help="Seconds to wait with --wait.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (jobId, stages, …); a list of them for several URLs.",
)
@handle_errors
def add(urls: tuple[str, ...], wait: bool, timeout: float, as_json: bool) -> None:
    """Add posting URLs and start preparing each (Enrich, then Score).

    Each URL must be an http(s) address with a host (a bare `www.host/path` is read as
    https://); anything else is refused before anything is stored. With --wait the exit
    status is 0 only when every job ended prepared or skipped for its fit score, else 1.
    The same posting added twice (also with tracking parameters or a trailing slash) is
    one job with one workflow. If the worker is still starting, `add` waits for it
    briefly.
    """
    # Only to add (see the module's docstring)
    import asyncio

    from jobctrl.app import jobs as app_jobs  # only to add, as asyncio

    if len(urls) == 1:
        view = asyncio.run(app_jobs.add_job(home(), urls[0], wait=wait, wait_timeout=timeout))
        views = [view]
        if as_json:
            echo_json(view)
        else:
            _print_added(view)
    else:
        views = asyncio.run(_add_many(list(urls), wait, timeout, as_json))
        if as_json:
            echo_json(views)
        else:
            for view in views:
                _print_added(view)
    if wait:
        _exit_unless_prepared(views)


def _exit_unless_prepared(views: list[AddedJob]) -> None:
    """``--wait``: exit 1 (a line on stderr per job) unless every job ended prepared or
    skipped for its score; a script can then trust exit 0 (issue 30)."""
    unready = []
    for view in views:
        if view.status == JobStatus.PREPARED:
            continue
        if view.status == JobStatus.SKIPPED and any(
            st.error_code == MIN_SCORE for st in view.stages
        ):
            continue
        failed = next((st for st in view.stages if st.state == StageState.FAILED), None)
        if failed is not None:
            why = f"failed at {failed.stage}: {failed.error_code}: {failed.error_message}"
        else:
            why = f"ended {view.status}, not prepared"
        unready.append(f"error: job {view.job_id} {why}")
    if unready:
        click.echo("\n".join(unready), err=True)
        sys.exit(1)


async def _add_many(urls: list[str], wait: bool, timeout: float, as_json: bool) -> list[AddedJob]:
    # Only to add (see the module's docstring)
    from jobctrl.app import jobs as app_jobs
    from jobctrl.cli.progress import Snapshot, watch

    views = await app_jobs.add_jobs(home(), urls)
    if not wait:
        return views
    job_ids = list(dict.fromkeys(v.job_id for v in views))

    def snapshot() -> Snapshot:
        rows = app_jobs.job_progress(home(), job_ids)
        done = sum(1 for r in rows if r.finished)
        lines = [f"{done}/{len(rows)} jobs finished"]
        lines += [f"{r.job_id}  {_progress_summary(r)}" for r in rows]
        return Snapshot(lines, (done, len(rows)))

    work = app_jobs.wait_for_jobs(home(), views, timeout)
    return await watch(work, snapshot, to_stderr=as_json)


def _progress_summary(row: JobProgress) -> str:
    parts = []
    for stage, state in row.stages.items():
        code = row.error_codes.get(stage)
        parts.append(f"{stage}={state}" + (f"({code})" if code else ""))
    return " ".join(parts)


def _print_added(view: AddedJob) -> None:
    state = "added" if view.created else "already known"
    click.echo(f"{view.job_id}  {state}: {view.url}")
    click.echo(f"  stages: {_stage_summary(view.stages)}")
    if view.title or view.score is not None:
        click.echo(f"  {view.title or '?'} at {view.company or '?'}; score {view.score}")
    for st in view.stages:
        if st.error_message:
            click.echo(f"  {st.stage} failed: {st.error_code}: {st.error_message}")


@click.command()
@click.argument("job")
@click.option("--stage", default=None, help="The failed stage to run again (default: the first).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@handle_errors
def retry(job: str, stage: str | None, as_json: bool) -> None:
    """Run a job's failed stage again, and the stages after it.

    A worker must be running (`jobctrl up`); without one nothing is changed (exit 2).
    """
    # Only to retry (see the module's docstring)
    import asyncio

    from jobctrl.app import jobs as app_jobs  # only to retry, as asyncio

    result = asyncio.run(app_jobs.retry_stage(home(), job, stage))
    if as_json:
        echo_json(result)
    else:
        click.echo(f"{result.job_id}: retrying {result.stage} ({result.workflow_id})")


@click.command("jobs")
@click.option("--json", "as_json", is_flag=True, help="Print the jobs as a JSON array.")
@handle_errors
def jobs_cmd(as_json: bool) -> None:
    """List jobs, best fit first."""
    rows = queries.list_jobs(home())
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no jobs yet; add one with `jobctrl add URL`")
        return
    _profile_hint()
    click.echo(f"{'JOB':<12}  {'SCORE':>5}  {'NEXT':<20}  {'TITLE':<38}  COMPANY")
    for r in rows:
        score = "" if r.score is None else str(r.score)
        # What to do next, in words (the codes are in --json and `jobctrl show`)
        then = TITLES.get(NextAction(r.next_action), r.status) if r.next_action else r.status
        then += " (stale)" if r.stale else ""  # made with another profile version
        title = (r.title or r.url)[:38]
        click.echo(f"{r.job_id:<12}  {score:>5}  {then:<20}  {title:<38}  {r.company or ''}")


def _salary_text(salary: Salary) -> str:
    amounts = [f"{v:,.0f}" for v in (salary.min, salary.max) if v is not None]
    span = amounts[0] if len(set(amounts)) == 1 else "–".join(amounts)
    period = {"YEAR": "a year", "MONTH": "a month", "HOUR": "an hour"}.get(
        (salary.period or "").upper(), salary.period or ""
    )
    return " ".join(part for part in (span, salary.currency or "", period) if part)


def _truth_check(check: TruthCheckView) -> None:
    """The latest truth check: passed (with what it removed), or each unsupported claim
    and its sentence."""
    document = {"tailor": "resume", "cover": "letter"}.get(check.stage, check.stage)
    head = f"  truth check: {document} generation {check.generation}"
    asked = " after one repair request to the model" if check.repair_requested else ""
    if check.passed:
        click.echo(f"{head} passed{asked} ({check.checked} lines checked against their facts)")
    else:
        count = check.finding_count
        click.echo(
            f"{head} refused{asked}: {count} unsupported claim{'s' if count != 1 else ''} "
            f"in {check.checked} lines, too many to remove; nothing of it was saved or rendered"
        )
        for finding in check.findings:
            click.echo(f"    ✗ [{finding.kind}] {finding.claim}")
            click.echo(f"        in {finding.where}: {finding.sentence}")
        if count > len(check.findings):
            click.echo(f"    … and {count - len(check.findings)} more")
    removed = len(check.dropped)
    if removed:
        lines = f"{removed} sentence{'s' if removed != 1 else ''}"
        click.echo(f"    {lines} removed: not supported by your profile")
    for change in [*check.dropped, *check.restored]:
        what = {"removed": "removed", "replaced": "replaced", "restored": "corrected"}
        click.echo(f"    − {change.document} {change.where} {what.get(change.action, '')}: "
                   f"{change.sentence}")  # fmt: skip
        if change.replacement:
            click.echo(f"        now: {change.replacement}")
        click.echo(f"        why: {'; '.join(change.reasons)}")


@click.command()
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the job as JSON.")
@handle_errors
def show(job: str, as_json: bool) -> None:
    """Show one job: posting fields, stages (with errors), the latest truth check of its
    resume or letter (each unsupported claim and its sentence) and the fit report."""
    view = queries.show_job(home(), job)
    if as_json:
        echo_json(view)
        return
    click.echo(f"{view.job_id}  {view.title or '(no title yet)'}")
    for label, value in (
        ("company", view.company),
        ("location", view.location),
        ("url", view.url),
        ("apply", view.apply_url),
        ("posted", view.date_posted),
        ("valid through", view.valid_through),
    ):
        if value:
            click.echo(f"  {label:<14}{value}")
    if view.remote is not None:
        click.echo(f"  {'remote':<14}{'yes' if view.remote else 'no'}")
    if view.salary:
        click.echo(f"  {'salary':<14}{_salary_text(view.salary)}")
    click.echo(f"  {'status':<14}{view.status}")
    if view.next_action_reason:
        click.echo(f"  {'next':<14}{view.next_action_reason}")
    if view.hidden:
        why = f" ({view.hidden_reason})" if view.hidden_reason else ""
        click.echo(f"  {'hidden':<14}not interested{why}: `jobctrl unhide {view.job_id}`")
    if view.availability:
        a = view.availability
        due = f" Next check {a.next_check_at:%Y-%m-%d %H:%M} UTC." if a.next_check_at else ""
        click.echo(f"  {'posting':<14}{a.state}: {a.sentence}{due}")
    if view.stale:  # a job below min_fit_score has no materials: no version to name
        made = ", ".join(
            f"{what} on profile version {version}"
            for what, version in (
                ("scored", view.scored_profile_version),
                ("materials", view.materials_profile_version),
            )
            if version is not None
        )
        click.echo(f"  {'stale':<14}{made}: `jobctrl rescore {view.job_id}`")
    click.echo("  stages:")
    for st in view.stages:
        line = f"    {st.stage:<7} {st.state:<10} attempts={st.attempts}"
        if st.error_code:
            line += f"  {st.error_code}"
            if st.error_message:
                line += f": {st.error_message}"
            if st.retryable is not None and st.state == StageState.FAILED:
                line += " (retryable)" if st.retryable else " (not retryable)"
        click.echo(line)
    if view.missing_pdf:
        click.echo(f"  {'no PDF':<14}{view.missing_pdf.sentence}")
    if view.letter_failure:
        click.echo(f"  {'no letter':<14}{view.letter_failure}")
    application = view.application
    if application:
        line = f"  {'application':<14}{application.status} by {application.channel}"
        if application.error_code:
            line += f"  {application.error_code}"
        if application.to:
            line += f"  to {', '.join(application.to)}"
        click.echo(line)
        if application.next_step:
            click.echo(f"  {'':<14}next: {application.next_step}")
    if view.truth_check:
        _truth_check(view.truth_check)
    report = view.score_report
    if report:
        _profile_hint()
        click.echo(
            f"  fit: {report['score']}/100 — {report['verdict']}. {report.get('summary', '')}"
        )
        if view.fit_summary:
            click.echo(f"  why: {view.fit_summary}")
        for item in report["requirements"]:
            mark = "✓" if item["matched"] else "✗"
            click.echo(f"    {mark} [{item['kind']}] {item['requirement']}")
            for ev in item["evidence"][:2]:
                click.echo(f"        ↳ {ev['source']}: {ev['text'][:90]}")


@click.command()
@click.option("--follow", "-f", is_flag=True, help="Keep printing new events as they happen.")
@click.option("--after", default=0, show_default=True, help="Only events after this sequence.")
@click.option("--job", "job_ref", default=None, help="Only events of this job.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per line.")
@handle_errors
def events(follow: bool, after: int, job_ref: str | None, as_json: bool) -> None:
    """Print the event log (append-only), oldest first."""
    # Only for the event log (see the module's docstring)
    from jobctrl.app import activity

    here = home()
    job_id = queries.resolve_job(here, job_ref) if job_ref else None
    position = after
    try:
        while True:
            batch = activity.event_log(here, position)
            for e in batch:
                position = e.seq
                if job_id and e.job_id != job_id:
                    continue
                if as_json:  # one line per event; its id is the stream's, not the log's
                    click.echo(json.dumps(e.model_dump(mode="json", exclude={"event_id"})))
                else:
                    brief = " ".join(f"{k}={v}" for k, v in summary_fields(e.payload).items())
                    when = e.occurred_at.strftime("%H:%M:%S")
                    click.echo(f"{e.seq:>6} {when} {e.type:<18} {e.job_id or '':<12} {brief}")
            if not batch:
                if not follow:
                    break  # the whole log, read a batch at a time
                time.sleep(0.5)
    except KeyboardInterrupt:
        pass
