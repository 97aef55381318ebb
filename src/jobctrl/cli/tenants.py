"""Operator commands for the deployment's tenants: ``jobctrl tenants add NAME``,
``jobctrl tenants list`` and ``jobctrl tenants token NAME [--rotate]`` (``app.tenants``).
They have no HTTP route: whoever runs them has the database, so is the operator."""

from __future__ import annotations

import click

from jobctrl.app import tenants as app_tenants
from jobctrl.cli.base import echo_json, handle_errors, home_of_deployment
from jobctrl.domain.clock import iso

__all__ = ["tenants_group"]


@click.group("tenants")
def tenants_group() -> None:
    """Add and list tenants (each has its own profile, settings, budget and API token), and
    rotate their tokens."""


@tenants_group.command("add")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def add(name: str, as_json: bool) -> None:
    """Add the tenant NAME and print its API token's path (a tenant that exists is left
    as it is: the same path, exit 0). Then `JOBCTRL_TENANT=NAME jobctrl …` acts for it."""
    added = app_tenants.add_tenant(home_of_deployment(), name)
    if as_json:
        echo_json(added)
    else:
        click.echo(
            added.token_path
            or f"tenant {name} exists; its API token file is on the host that added it"
        )


@tenants_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def list_cmd(as_json: bool) -> None:
    """Every tenant, `local` first; `*` marks the one JOBCTRL_TENANT selects."""
    listed = app_tenants.list_tenants(home_of_deployment())
    if as_json:
        echo_json(listed)
        return
    for item in listed.items:
        mark = "*" if item.current else " "
        created = iso(item.created_at) or "-"
        click.echo(f"{mark} {item.tenant:<32} {created:<32} {item.token_path or '-'}")


@tenants_group.command("token")
@click.argument("name")
@click.option(
    "--rotate", is_flag=True, help="Replace the token with a new one (the old one stops working)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def token(name: str, rotate: bool, as_json: bool) -> None:
    """Print the path of tenant NAME's API token file; with --rotate, replace the token
    first. Running API servers accept the old token for up to 30 s more; restart
    `jobctrl up` after rotating `local`'s."""
    found = app_tenants.tenant_token(home_of_deployment(), name, rotate=rotate)
    if as_json:
        echo_json(found)
    else:
        click.echo(
            found.token_path
            or f"tenant {name}'s API token file is on the host that added it (--rotate "
            "makes a new one here)"
        )
