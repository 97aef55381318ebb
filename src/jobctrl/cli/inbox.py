"""Commands that keep the inbox tidy and honest: hide a job you are not interested in
(and bring it back), delete a job with its files, and check now whether a posting is
still online."""

from __future__ import annotations

import click

from jobctrl.app import job_removal
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError


@click.command()
@click.argument("job")
@click.option("--reason", default=None, help="Why (optional; only you see it).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@handle_errors
def hide(job: str, reason: str | None, as_json: bool) -> None:
    """Hide a job you are not interested in: out of the inbox, never prepared, checked or
    applied to.

    It stays hidden when discovery finds the posting again; `jobctrl unhide JOB` brings
    it back."""
    view = job_removal.hide_job(home(), job, reason)
    if as_json:
        echo_json(view)
    elif view.changed:
        click.echo(f"{view.job_id}  hidden (`jobctrl unhide {view.job_id}` brings it back)")
    else:
        click.echo(f"{view.job_id}  was already hidden")


@click.command()
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@handle_errors
def unhide(job: str, as_json: bool) -> None:
    """Bring a hidden job back into the inbox."""
    view = job_removal.unhide_job(home(), job)
    if as_json:
        echo_json(view)
    elif not view.changed:
        click.echo(f"{view.job_id}  was not hidden")
    elif view.reset_stages:
        click.echo(
            f"{view.job_id}  back in the inbox; its {', '.join(view.reset_stages)} stage(s) "
            f"wait: `jobctrl retry {view.job_id}` prepares it"
        )
    else:
        click.echo(f"{view.job_id}  back in the inbox")


@click.command()
@click.argument("job")
@click.option("--yes", is_flag=True, help="Really delete it (required: nothing asks again).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@handle_errors
def delete(job: str, yes: bool, as_json: bool) -> None:
    """Delete a job with its materials and files (needs --yes).

    The stored files no other job uses go with it; an event without content records the
    delete. A hidden job's posting stays hidden if discovery finds it again; any other
    comes back as a new job."""
    if not yes:
        raise JobctrlError(
            f"deleting job {job} removes its materials and files for good: "
            f"run `jobctrl delete {job} --yes` to do it",
            code=INVALID_INPUT,
        )
    view = job_removal.delete_job(home(), job)
    if as_json:
        echo_json(view)
        return
    files = f", {view.artifacts} stored file(s)" if view.artifacts else ""
    stays = " (its posting stays hidden if found again)" if view.stays_hidden else ""
    click.echo(f"{view.job_id}  deleted: {view.rows} row(s){files}{stays}")


@click.command()
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@handle_errors
def check(job: str, as_json: bool) -> None:
    """Check now whether a job's posting is still online.

    The wait between scheduled checks is skipped; robots.txt and the pause between
    requests to a site still apply. What was found is recorded."""
    import asyncio  # only this command runs a check (the others stay quick to load)

    from jobctrl.app.availability import check_now  # the fetcher: only for this command

    view = asyncio.run(check_now(home(), job))
    if as_json:
        echo_json(view)
        return
    a = view.availability
    next_check = f" Next check {a.next_check_at:%Y-%m-%d %H:%M} UTC." if a.next_check_at else ""
    click.echo(f"{view.job_id}  {a.state}: {a.sentence}{next_check}")
