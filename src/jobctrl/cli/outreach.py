"""`jobctrl outreach`: a message to a contact about a job — draft, show, edit, approve,
send (an email, once, within the day's cap) and resolve; a note is copied, never sent."""

from __future__ import annotations

from pathlib import Path

import click

from jobctrl.app import outreach as app_outreach
from jobctrl.app.outbound import MessageView
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.cli.followups import print_message, print_sent, read_body
from jobctrl.domain.clock import iso

__all__ = ["outreach_group"]

_JOB = click.option("--job", "job", required=True, help="The job the message is about.")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print the message as JSON.")


@click.group("outreach")
def outreach_group() -> None:
    """A message to a contact about a job: draft, approve and send an email once, or copy a note.

    It is grounded in the posting and your profile.
    `outreach draft CONTACT --job JOB [--channel email|note]` writes it (truth-checked: no
    claim your profile does not support, no connection or referral); `outreach show`,
    `outreach edit` (--subject, --body FILE, --to), `outreach approve` (exactly it, 15
    minutes), `outreach send` (an email, once; at most outreach.max_per_day a day),
    `outreach resolve CONTACT --job JOB sent|not-sent`. A note is never sent by jobctrl:
    copy it from `outreach show`.
    """


def _show(view: MessageView, as_json: bool) -> None:
    if as_json:
        echo_json(view)
    else:
        print_message(view, f"outreach to contact {view.contact_id} about job {view.job_id}")


_BODY = click.option(
    "--body",
    "body_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A file with the text to send instead of the one jobctrl writes.",
)


@outreach_group.command("draft")
@click.argument("contact")
@_JOB
@click.option("--channel", type=click.Choice(["email", "note"]), help="Email (default) or note.")
@click.option("--to", "to", multiple=True, help="A recipient (default: the contact's email).")
@_BODY
@_JSON
@handle_errors
def draft_cmd(
    contact: str,
    job: str,
    channel: str | None,
    to: tuple[str, ...],
    body_file: Path | None,
    as_json: bool,
) -> None:
    """Write the message to CONTACT about JOB (or rewrite the open draft)."""
    view = app_outreach.draft_outreach(
        home(), contact, job, channel=channel, to=list(to) or None, body=read_body(body_file)
    )
    _show(view, as_json)


@outreach_group.command("edit")
@click.argument("contact")
@_JOB
@click.option("--subject", help="The email's subject.")
@click.option("--to", "to", multiple=True, help="A recipient (replaces them).")
@_BODY
@_JSON
@handle_errors
def edit_cmd(
    contact: str,
    job: str,
    subject: str | None,
    to: tuple[str, ...],
    body_file: Path | None,
    as_json: bool,
) -> None:
    """Change the open draft's subject, text or recipients (checked again; any change
    needs a new approval)."""
    view = app_outreach.draft_outreach(
        home(), contact, job, to=list(to) or None, subject=subject, body=read_body(body_file)
    )
    _show(view, as_json)


@outreach_group.command("show")
@click.argument("contact")
@_JOB
@_JSON
@handle_errors
def show_cmd(contact: str, job: str, as_json: bool) -> None:
    """The message to CONTACT about JOB, with its exact text (a note: the text to copy)."""
    _show(app_outreach.show_outreach(home(), contact, job), as_json)


@outreach_group.command("approve")
@click.argument("contact")
@_JOB
@_JSON
@handle_errors
def approve_cmd(contact: str, job: str, as_json: bool) -> None:
    """Approve exactly the email as it is now, for 15 minutes."""
    view = app_outreach.approve_outreach(home(), contact, job)
    if as_json:
        echo_json(view)
    else:
        click.echo(f"approved message {view.outbound_id} until {iso(view.approved_until)}")


@outreach_group.command("send")
@click.argument("contact")
@_JOB
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def send_cmd(contact: str, job: str, as_json: bool) -> None:
    """Send the approved email once. Exit 0 when sent; 3 when its outcome is unknown
    (check your Sent folder, then `outreach resolve`); 1 with the code when refused
    (today's outreach.max_per_day reached, among others)."""
    print_sent(app_outreach.send_outreach(home(), contact, job), as_json)


@outreach_group.command("resolve")
@click.argument("contact")
@click.argument("resolution", type=click.Choice(["sent", "not-sent"]))
@_JOB
@_JSON
@handle_errors
def resolve_cmd(contact: str, resolution: str, job: str, as_json: bool) -> None:
    """Say what happened to an email whose send is in doubt: sent or not-sent."""
    view = app_outreach.resolve_outreach(home(), contact, job, resolution)
    if as_json:
        echo_json(view)
    else:
        click.echo(f"message {view.outbound_id}: {view.status}")
