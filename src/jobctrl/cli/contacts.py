"""``jobctrl contacts``: the people behind a posting (issue 33) — research a job's
contacts over the sources you allow, confirm or dismiss the candidates, and keep, show,
add, remove and export contacts (``app.contact_research``, ``app.contacts``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from jobctrl.app import contact_research, contacts
from jobctrl.app.contact_research import CandidateView, ResearchTask
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.contacts import PASTE_LIMIT, ContactRole
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError

__all__ = ["contacts_group"]

ROLES = [r.value for r in ContactRole]


@click.group("contacts", invoke_without_command=True)
@click.option("--company", default=None, help="Only the contacts of this company.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
@handle_errors
def contacts_group(ctx: click.Context, company: str | None, as_json: bool) -> None:
    """The people behind a posting: research a job's contacts over the sources you allow,
    confirm what was found, and keep, show, add, remove and export contacts.

    `jobctrl contacts [--company C]` lists the contacts you keep. Contacts stay in your
    own store: never in an event, a log line or a workflow's history."""
    if ctx.invoked_subcommand is not None:
        return
    listed = contacts.list_contacts(home(), company)
    if as_json:
        echo_json(listed)
        return
    if not listed.items:
        click.echo("No contacts yet (`jobctrl contacts research JOB`, or `contacts add`).")
    for c in listed.items:
        click.echo(f"{c.contact_id}  {c.name:<28} {c.role:<15} {c.company:<24} {c.email or ''}")


def _print_candidates(items: list[CandidateView]) -> None:
    for c in items:
        mark = {"confirmed": "✓", "dismissed": "✗"}.get(c.status, " ")
        email = f" <{c.email}>" if c.email else ""
        click.echo(f"{mark} {c.candidate_id}  {c.name}{email} — {c.role} ({c.confidence:.2f})")
        click.echo(f"    “{c.evidence}” — {c.source}")


def _print_task(task: ResearchTask) -> None:
    click.echo(f"research {task.task_id} of job {task.job_id}: {task.status}")
    for a in task.attempts:
        code = f" ({a.code})" if a.code else ""
        click.echo(f"  {a.source}: {a.outcome}{code}, {a.candidates} found")
    if task.status in ("queued", "running"):
        click.echo("  still running: `jobctrl contacts candidates JOB` shows what it found")
    _print_candidates(task.candidates)
    if any(c.status == "new" for c in task.candidates):
        click.echo(
            "Confirm with `jobctrl contacts confirm ID…`, dismiss with `contacts dismiss ID…`."
        )


@contacts_group.command("research")
@click.argument("job")
@click.option(
    "--source", "sources", multiple=True, metavar="URL",
    help="A page to read (repeatable): the company's team or about page; a page on "
    "another site only when contacts.sources allows any_pages.",
)  # fmt: skip
@click.option(
    "--paste", "paste", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None, help="A text file to read (e.g. names you copied from a people search; "
    "'-' is not read: save it to a file first).",
)  # fmt: skip
@click.option("--wait", is_flag=True, help="Wait until the run has ended and list what it found.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def research(
    job: str, sources: tuple[str, ...], paste: Path | None, wait: bool, as_json: bool
) -> None:
    """Find the people behind JOB's posting: the posting itself, the pages you name and
    text you paste (what your contacts.sources setting allows). Runs in the worker."""
    text = None
    if paste is not None:
        text = paste.read_text(encoding="utf-8", errors="replace")[:PASTE_LIMIT]
    task = asyncio.run(
        contact_research.research(home(), job, urls=list(sources), paste=text, wait=wait)
    )
    if as_json:
        echo_json(task)
        return
    _print_task(task)


@contacts_group.command("candidates")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def candidates(job: str, as_json: bool) -> None:
    """The people research found for JOB, with the sentence and source each came from."""
    found = contact_research.job_candidates(home(), job)
    if as_json:
        echo_json(found)
        return
    if not found.items:
        click.echo("Research found nobody for this job yet (`jobctrl contacts research JOB`).")
    _print_candidates(found.items)


@contacts_group.command("confirm")
@click.argument("candidate_ids", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def confirm(candidate_ids: tuple[str, ...], as_json: bool) -> None:
    """Keep the candidates as contacts of their job's company."""
    done = contact_research.confirm(home(), list(candidate_ids))
    if as_json:
        echo_json(done)
        return
    for c in done.items:
        click.echo(f"confirmed {c.name}: contact {c.contact_id}")


@contacts_group.command("dismiss")
@click.argument("candidate_ids", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def dismiss(candidate_ids: tuple[str, ...], as_json: bool) -> None:
    """Dismiss the candidates (a confirmed one stays a contact: remove it instead)."""
    done = contact_research.dismiss(home(), list(candidate_ids))
    if as_json:
        echo_json(done)
        return
    click.echo(f"dismissed {len(done.candidate_ids)}")


@contacts_group.command("show")
@click.argument("contact_id")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def show(contact_id: str, as_json: bool) -> None:
    """One contact: name, role, company, email, jobs, and where it came from."""
    c = contacts.show_contact(home(), contact_id)
    if as_json:
        echo_json(c)
        return
    click.echo(f"{c.name} — {c.role} at {c.company}")
    click.echo(f"email: {c.email or '(none)'}")
    click.echo(f"jobs: {' '.join(c.jobs) or '(none)'}")
    for line in c.evidence:
        click.echo(f"evidence: “{line}”")
    for source in c.sources:
        click.echo(f"source: {source}")
    for note in c.notes:
        click.echo(f"note: {note}")


@contacts_group.command("add")
@click.option("--name", required=True, help="Their full name.")
@click.option("--company", default=None, help="Their company (default: the job's).")
@click.option("--job", default=None, help="A job they are a contact for.")
@click.option(
    "--role", type=click.Choice(ROLES), default="team_member", show_default=True,
    help="What they do at the company.",
)  # fmt: skip
@click.option("--email", default=None, help="Their email address.")
@click.option("--note", default=None, help="A note for yourself (how you know them).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def add(
    name: str,
    company: str | None,
    job: str | None,
    role: str,
    email: str | None,
    note: str | None,
    as_json: bool,
) -> None:
    """Keep someone you know as a contact of a company (or of a job's company)."""
    c = contacts.add_contact(
        home(), name=name, company=company, role=role, email=email, job=job, note=note
    )
    if as_json:
        echo_json(c)
        return
    click.echo(f"contact {c.contact_id}: {c.name} at {c.company}")


@contacts_group.command("remove")
@click.argument("contact_id")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def remove(contact_id: str, as_json: bool) -> None:
    """Delete a contact with everything kept about them (attributes, candidates)."""
    done = contacts.remove_contact(home(), contact_id)
    if as_json:
        echo_json(done)
        return
    click.echo(f"removed {done.contact_id}")


@contacts_group.command("export")
@click.option(
    "--format", "fmt", type=click.Choice(["csv"]), default="csv", show_default=True,
    help="The file format (CSV, for a spreadsheet).",
)  # fmt: skip
@click.option("--company", default=None, help="Only the contacts of this company.")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file (default: print).")  # fmt: skip
@handle_errors
def export(fmt: str, company: str | None, output: Path | None) -> None:
    """Export your contacts (CSV: id, name, role, company, email, jobs, origin, added)."""
    if fmt != "csv":
        raise JobctrlError("only csv is supported", code=INVALID_INPUT)
    text = contacts.export_csv(home(), company)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}")
