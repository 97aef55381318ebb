"""`jobctrl apply`: the Apply queue, and an email application's prepare, approve, send and
resolve. `jobctrl apply JOB ...` (a job, not a subcommand) goes to the hidden ``job``
subcommand when one is registered (the browser prefill's form)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from jobctrl.app import apply as app_apply
from jobctrl.app import apply_browser, apply_views
from jobctrl.app.apply_browser import FormResult
from jobctrl.app.apply_views import ApplicationDetail, NoApplication
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.cli.sends import print_send
from jobctrl.domain.clock import iso
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError, status_of

__all__ = ["apply_group"]


class ApplyGroup(click.Group):
    """A group whose first argument may be a job instead of a subcommand: that form is
    handled by the subcommand named ``job`` (hidden), if one is registered."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else None
        if name is not None and name not in self.commands and "job" in self.commands:
            return "job", self.commands["job"], args
        return super().resolve_command(ctx, args)


@click.group("apply", cls=ApplyGroup)
def apply_group() -> None:
    """Apply to prepared jobs: list the queue, prepare an email with the approved PDFs,
    approve exactly it, send it once, and resolve what happened.

    `jobctrl apply list`; `jobctrl apply prepare JOB --to ADDRESS`; `jobctrl apply approve
    JOB`; `jobctrl apply send JOB`; `jobctrl apply resolve JOB sent|not-sent|submitted|
    abandoned`. An approval lasts 15 minutes; any change needs a new one.

    `jobctrl apply JOB --browser [--url FORM_URL] [--dry-run] [--json]`: open the job's
    application form in a browser window with the fields filled from your profile and the
    PDFs attached, and stop: you check it and submit it yourself (`--dry-run`: headless,
    a screenshot, nothing submitted).
    """


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KB" if n >= 1024 else f"{n} B"


def _print_application(app: ApplicationDetail | NoApplication) -> None:
    if isinstance(app, NoApplication):
        click.echo(f"job {app.job_id} has no application yet")
        return
    click.echo(f"application {app.application_id}  job {app.job_id}")
    click.echo(f"channel: {app.channel or 'not chosen yet'}   status: {app.status}")
    if app.error_code:
        click.echo(f"error: {app.error_code}")
    if app.channel == "browser":
        click.echo(f"form: {app.form_url}")
    elif app.channel is not None:  # none after `apply reset`: no message to show yet
        click.echo(f"To: {', '.join(app.to)}")
        click.echo(f"Subject: {app.subject}")
        for a in app.attachments:
            click.echo(f"Attachment: {a.name} ({_size(a.size)})")
        click.echo("")
        click.echo(app.body or "")
    if app.approval_valid:
        click.echo(f"approved until {iso(app.approved_until)}")
    if app.next_step:
        click.echo(f"next: {app.next_step}")


@apply_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the queue as JSON.")
@handle_errors
def list_cmd(as_json: bool) -> None:
    """Prepared jobs, best fit first: channel, PDFs and what is still missing."""
    queue = apply_views.apply_queue(home())
    if as_json:
        echo_json(queue)
        return
    if not queue:
        click.echo("nothing to apply to yet (jobs appear once their materials are written)")
    for q in queue:
        score = "-" if q.score is None else str(q.score)
        what = "ready" if q.ready else "missing: " + ", ".join(q.missing)
        if q.target == "apply_on_site":
            what = "apply on the site"
        status = q.status or "not prepared"
        click.echo(
            f"{q.job_id}  {score:>3}  {q.channel:<7} {status:<12} "
            f"{q.title or ''} — {q.company or ''}  ({what})"
        )


@apply_group.command("show")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the application as JSON.")
@handle_errors
def show_cmd(job: str, as_json: bool) -> None:
    """A job's application with its exact message."""
    app = apply_views.show_application(home(), job)
    if as_json:
        echo_json(app)
    else:
        _print_application(app)


def _body_from(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise JobctrlError(
            f"cannot read the body file {path}: {type(exc).__name__}", code=INVALID_INPUT
        ) from None


@apply_group.command("prepare")
@click.argument("job")
@click.option("--channel", type=click.Choice(["email", "browser"]), help="How to apply.")
@click.option("--to", "to", multiple=True, help="A recipient (repeat, or comma-separate).")
@click.option("--subject", help="The email's subject.")
@click.option("--body-file", help="A file holding the email's body ('-': stdin).")
@click.option("--url", "form_url", help="The application form (browser channel).")
@click.option("--json", "as_json", is_flag=True, help="Print the application as JSON.")
@handle_errors
def prepare_cmd(
    job: str,
    channel: str | None,
    to: tuple[str, ...],
    subject: str | None,
    body_file: str | None,
    form_url: str | None,
    as_json: bool,
) -> None:
    """Prepare (or edit) a job's application: for email, the exact message with the
    approved PDFs attached. Any change after an approval needs a new approval."""
    app = app_apply.prepare_application(
        home(),
        job,
        channel=channel,
        to=list(to) or None,
        subject=subject,
        body=_body_from(body_file),
        form_url=form_url,
    )
    if as_json:
        echo_json(app)
    else:
        _print_application(app)


@apply_group.command("approve")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the application as JSON.")
@handle_errors
def approve_cmd(job: str, as_json: bool) -> None:
    """Approve exactly the prepared message (recipients, subject, body, attachments,
    sender) for 15 minutes."""
    app = app_apply.approve_application(home(), job)
    if as_json:
        echo_json(app)
    else:
        click.echo(f"approved application {app.application_id} until {iso(app.approved_until)}")


@apply_group.command("send")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def send_cmd(job: str, as_json: bool) -> None:
    """Send the approved email once. Exit 0 when sent; 3 when its outcome is unknown
    (check your Sent folder, then `apply resolve`); 1 with the code when refused (nothing
    was sent)."""
    result = app_apply.send_application(home(), job)
    print_send(result, as_json, f"sent job {result.job_id}'s application ({result.message_id})")


@apply_group.command("resolve")
@click.argument("job")
@click.argument("resolution", type=click.Choice(["sent", "not-sent", "submitted", "abandoned"]))
@click.option("--json", "as_json", is_flag=True, help="Print the application as JSON.")
@handle_errors
def resolve_cmd(job: str, resolution: str, as_json: bool) -> None:
    """Say what happened: an unknown send was sent or not-sent, a form was submitted, or
    the application is abandoned."""
    app = app_apply.resolve_application(home(), job, resolution)
    if as_json:
        echo_json(app)
    else:
        click.echo(f"application {app.application_id}: {app.status}")


@apply_group.command("reset")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the application as JSON.")
@handle_errors
def reset_cmd(job: str, as_json: bool) -> None:
    """Take back an abandoned application: it is an unprepared draft again, so the apply
    loop may prepare the job once more (and its letter or resume may be written again
    automatically). Any other status is refused."""
    app = app_apply.reset_application(home(), job)
    if as_json:
        echo_json(app)
    else:
        click.echo(f"application {app.application_id}: {app.status} again (not prepared)")


def _print_prefill(result: FormResult, job_id: str, out: Any) -> None:
    def echo(text: str) -> None:
        click.echo(text, file=out)

    echo(f"{result.handed_over or result.status}: {result.url} (job {job_id})")
    for f in result.filled:
        echo(f"  filled    {f.field}: {f.value}")
    for a in result.files:
        echo(f"  attached  {a.field}: {a.file} ({_size(a.size)})")
    for u in result.left:
        echo(f"  left      {u.field} ({u.reason.replace('_', ' ')})")
    if result.code:
        echo(f"  code      {result.code}")
    if result.challenge == "invisible":
        echo("  captcha   invisible: it runs when you press submit yourself")


class _JobForm(click.Command):
    """Reached as `jobctrl apply JOB ...` (ApplyGroup): its usage says so."""

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(
            "jobctrl apply", "JOB --browser [--url FORM_URL] [--dry-run] [--json]"
        )


@apply_group.command("job", cls=_JobForm, hidden=True)
@click.argument("job")
@click.option("--browser", is_flag=True, help="Prefill the job's application form.")
@click.option("--url", "form_url", help="The application form, when the posting's is not it.")
@click.option("--dry-run", is_flag=True, help="Headless: fill, screenshot, close; no window.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def job_cmd(job: str, browser: bool, form_url: str | None, dry_run: bool, as_json: bool) -> None:
    """`jobctrl apply JOB --browser`: open the application form in a browser window, filled
    from the profile with the approved PDFs attached, scrolled to what still needs you, and
    stop. You submit it; jobctrl notices and records the submission (closing the window
    records nothing: `jobctrl apply resolve JOB submitted|abandoned`). A CAPTCHA you must
    solve stops the filling (APPLY_CAPTCHA): it is yours to answer; an invisible one does
    not (your own submit click runs it). `--dry-run` fills it headless, keeps a
    screenshot artifact and closes; nothing is submitted."""
    if not browser:
        raise JobctrlError(
            "say how: `jobctrl apply JOB --browser` (email: `jobctrl apply prepare JOB "
            "--channel email --to ADDRESS`)",
            code=INVALID_INPUT,
        )
    progress = sys.stderr if as_json else sys.stdout

    def handed_over(result: FormResult, page: Any) -> None:
        _print_prefill(result, job, progress)
        click.echo(
            "The form is yours in the browser window: check it, complete what is left and "
            "submit it yourself. jobctrl records the submission when it sees it; close the "
            "window to stop.",
            file=progress,
        )

    result = apply_browser.prefill(
        home(), job, url=form_url, dry_run=dry_run, on_handover=handed_over
    )
    if as_json:
        echo_json(result)
    elif dry_run or result.status == "form_unavailable":
        _print_prefill(result, result.job_id, sys.stdout)
        if result.screenshot:
            click.echo(f"screenshot (PNG): {result.screenshot.path}")
    elif result.status == "submitted":
        click.echo(f"submitted: recorded on application {result.application_id}")
    else:
        click.echo(
            "the window closed without a submission: nothing recorded (if you did submit: "
            "`jobctrl apply resolve JOB submitted`)"
        )
    if result.status == "form_unavailable":
        if not as_json:
            click.echo(f"error: {result.code}: the application form could not be used", err=True)
        sys.exit(status_of(result.code or "").exit)
