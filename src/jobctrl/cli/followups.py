"""`jobctrl followups`: applications due a follow-up, and a follow-up's draft, approval,
send and resolve (the application's own at-most-once send)."""

from __future__ import annotations

from pathlib import Path

import click

from jobctrl.app import followups as app_followups
from jobctrl.app.outbound import MessageView, OutboundSendView
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.cli.sends import print_send
from jobctrl.domain.clock import iso
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError

__all__ = ["followups_group", "print_message", "print_sent", "read_body"]


@click.group("followups", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the follow-ups due as JSON.")
@click.pass_context
@handle_errors
def followups_group(ctx: click.Context, as_json: bool) -> None:
    """Follow-ups due for applications with no answer; draft, approve and send one once.

    An application with no answer is due `followup.after_days` after it went out (then as
    long after each follow-up, at most `followup.max_count`).

    With no subcommand, lists those due now: job, application, due since, follow-ups sent.
    `followups draft JOB` writes one (in the application email's thread); `followups show
    JOB`, `followups approve JOB` (exactly it, 15 minutes), `followups send JOB` (once),
    `followups resolve JOB sent|not-sent`. Recording an outcome (`applications set JOB
    --outcome interview`) stops them.
    """
    if ctx.invoked_subcommand is not None:
        return
    items = app_followups.list_followups(home())
    if as_json:
        echo_json(items)
        return
    if not items:
        click.echo("no follow-ups due")
        return
    click.echo(f"{'JOB':<16} {'APPLICATION':<18} {'DUE SINCE':<12} SENT")
    for item in items:
        click.echo(
            f"{item.job_id:<16} {item.application_id:<18} "
            f"{(iso(item.due_at) or '')[:10]:<12} {item.count}"
        )


def read_body(path: Path | None) -> str | None:
    """The text of a ``--body FILE`` (None without one); a file it cannot read, refused."""
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise JobctrlError(f"cannot read {path}: {exc}", code=INVALID_INPUT) from None


def print_message(view: MessageView, title: str) -> None:
    """A follow-up or outreach message as a person reads it."""
    click.echo(f"{title}: {view.status}")
    if view.channel == "note":
        click.echo("a note to copy and send yourself (jobctrl never sends it):")
    else:
        click.echo(f"to           {', '.join(view.to)}")
        click.echo(f"subject      {view.subject}")
    if view.in_reply_to:
        click.echo(f"in reply to  {view.in_reply_to}")
    if view.approval_valid:
        click.echo(f"approved     until {iso(view.approved_until)}")
    if view.error_code:
        click.echo(f"error        {view.error_code}")
    click.echo("")
    click.echo(view.body.rstrip())
    click.echo("")
    click.echo(f"next: {view.next_step}")


def _show(view: MessageView, as_json: bool) -> None:
    if as_json:
        echo_json(view)
    else:
        print_message(view, f"follow-up {view.sequence} of job {view.job_id}")


@followups_group.command("draft")
@click.argument("job")
@click.option("--to", "to", multiple=True, help="A recipient (repeat; default: the application's).")
@click.option(
    "--body",
    "body_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A file with the text to send instead of the one jobctrl writes.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the follow-up as JSON.")
@handle_errors
def draft_cmd(job: str, to: tuple[str, ...], body_file: Path | None, as_json: bool) -> None:
    """Write the follow-up due for JOB's application (or rewrite the open one): short,
    truth-checked against your profile, replying in the application email's thread."""
    view = app_followups.draft_followup(home(), job, to=list(to) or None, body=read_body(body_file))
    _show(view, as_json)


@followups_group.command("show")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the follow-up as JSON.")
@handle_errors
def show_cmd(job: str, as_json: bool) -> None:
    """The newest follow-up of JOB's application, with its exact email."""
    _show(app_followups.show_followup(home(), job), as_json)


@followups_group.command("approve")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the follow-up as JSON.")
@handle_errors
def approve_cmd(job: str, as_json: bool) -> None:
    """Approve exactly the follow-up as it is now, for 15 minutes."""
    view = app_followups.approve_followup(home(), job)
    if as_json:
        echo_json(view)
    else:
        click.echo(f"approved follow-up {view.outbound_id} until {iso(view.approved_until)}")


def print_sent(result: OutboundSendView, as_json: bool) -> None:
    """What a message's send came to (``cli.sends``)."""
    print_send(result, as_json, f"sent message {result.outbound_id} ({result.message_id})")


@followups_group.command("send")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def send_cmd(job: str, as_json: bool) -> None:
    """Send the approved follow-up once. Exit 0 when sent; 3 when its outcome is unknown
    (check your Sent folder, then `followups resolve`); 1 with the code when refused."""
    print_sent(app_followups.send_followup(home(), job), as_json)


@followups_group.command("resolve")
@click.argument("job")
@click.argument("resolution", type=click.Choice(["sent", "not-sent"]))
@click.option("--json", "as_json", is_flag=True, help="Print the follow-up as JSON.")
@handle_errors
def resolve_cmd(job: str, resolution: str, as_json: bool) -> None:
    """Say what happened to a follow-up whose send is in doubt: sent or not-sent."""
    view = app_followups.resolve_followup(home(), job, resolution)
    if as_json:
        echo_json(view)
    else:
        click.echo(f"follow-up {view.outbound_id}: {view.status}")
