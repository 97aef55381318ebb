"""``jobctrl extension path|pair|list|revoke|tasks``: the browser extension that saves
postings from the person's own browser (issue 32; ``app.extension``, ``app.captures``)."""

from __future__ import annotations

import click

from jobctrl.app import captures
from jobctrl.app import extension as app_extension
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.clock import iso

__all__ = ["extension_group"]


@click.group("extension")
def extension_group() -> None:
    """The browser extension: load it, pair it, list and revoke its tokens, and see the
    jobs waiting for your browser."""


@extension_group.command("path")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def path(as_json: bool) -> None:
    """Print the folder of the extension shipped with jobctrl, and how to load it in
    Chrome, Chromium, Edge or Brave."""
    folder = app_extension.extension_folder()
    if as_json:
        echo_json(folder)
        return
    click.echo(folder.path)
    for n, step in enumerate(folder.steps, 1):
        click.echo(f"  {n}. {step}")
    click.echo("Then click the jobctrl button and pair it: `jobctrl extension pair`.")


@extension_group.command("pair")
@click.option("--name", default=None, help="A name for the extension (default: extension).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def pair(name: str | None, as_json: bool) -> None:
    """Show a one-time pairing code (valid 10 minutes): type it in the extension with
    this app's address, and it gets its own token (captures and status only)."""
    made = app_extension.make_code(home(), name)
    if as_json:
        echo_json(made)
        return
    click.echo(made.code)
    until = made.expires_at.strftime("%H:%M UTC")
    click.echo(f"Type this code in the jobctrl extension; it works once, until {until}.")


@extension_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def list_cmd(as_json: bool) -> None:
    """The paired extensions: name, where from, when paired and last heard from."""
    listed = app_extension.list_extensions(home())
    if as_json:
        echo_json(listed)
        return
    if not listed.items:
        click.echo("No extension is paired (jobctrl extension pair).")
    for item in listed.items:
        seen = iso(item.last_used_at) or "never used"
        click.echo(f"{item.name:<24} {iso(item.created_at):<34} {seen}  {item.origin or ''}")


@extension_group.command("revoke")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def revoke(name: str, as_json: bool) -> None:
    """Revoke the extension NAME's token: its requests are refused from now on."""
    done = app_extension.revoke(home(), name)
    if as_json:
        echo_json(done)
    else:
        click.echo(f"revoked {done.name}")


@extension_group.command("tasks")
@click.option("--stop", "stop", flag_value=True, default=None, help="Stop offering them.")
@click.option("--resume", "stop", flag_value=False, help="Offer them again.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def tasks(stop: bool | None, as_json: bool) -> None:
    """The jobs waiting for your browser (their site refused a robot), which a paired
    extension opens at human pace; --stop and --resume switch that off and on."""
    found = (
        captures.browser_tasks(home())
        if stop is None
        else captures.set_tasks(home(), enabled=not stop)
    )
    if as_json:
        echo_json(found)
        return
    if not found.enabled:
        click.echo("Stopped: no job is offered to the extension (--resume offers them).")
        return
    if not found.items:
        click.echo("No job is waiting for your browser.")
    for task in found.items:
        click.echo(f"{task.job_id}  {task.error_code:<26} {task.url}")
