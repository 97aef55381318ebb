"""`jobctrl mcp`: the MCP server for a person's own AI assistant (issue 35) — over stdio
as the tenant of ``JOBCTRL_TENANT``, or with ``--http`` over streamable HTTP on loopback,
each request acting for its API token's tenant; `jobctrl mcp config` prints what an MCP
client needs to start it. The assistant can search, explain and prepare; approving,
sending and submitting stay with the person."""

from __future__ import annotations

import json

import click

from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.mcp.clients import client_config

__all__ = ["mcp_group"]


@click.group("mcp", invoke_without_command=True)
@click.option(
    "--http", "over_http", is_flag=True, help="Serve streamable HTTP on 127.0.0.1, not stdio."
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8766, show_default=True, help="With --http."
)
@click.pass_context
@handle_errors
def mcp_group(ctx: click.Context, over_http: bool, port: int) -> None:
    """Run the MCP server for your AI assistant (stdio, or --http with a token); `jobctrl
    mcp config` prints the client snippet.

    Over stdio (what `jobctrl mcp config` tells a client to start) it serves
    JOBCTRL_TENANT's tenant; with --http it serves
    http://127.0.0.1:PORT/mcp, where every request sends a tenant's API token
    (Authorization: Bearer, see `jobctrl tenants token`) and acts for that tenant only.
    The assistant can search, explain and prepare; approving, sending and submitting
    stay with you."""
    if ctx.invoked_subcommand is not None:
        return
    where = home()
    if over_http:
        # Imported here: the HTTP transport loads uvicorn and the API's security.
        from jobctrl.mcp.http import serve_http

        serve_http(where, port)
        return
    # Imported here: `jobctrl mcp config` needs none of the server.
    from jobctrl.mcp.server import build_server

    build_server(where).run("stdio")


@mcp_group.command("config")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def config_cmd(as_json: bool) -> None:
    """Print the snippet that starts `jobctrl mcp` for this home and tenant in Claude
    Desktop (claude_desktop_config.json), Cursor (.cursor/mcp.json) and Claude Code."""
    snippet = client_config(home())
    if as_json:
        echo_json(snippet)
        return
    click.echo("Claude Desktop (claude_desktop_config.json) and Cursor (.cursor/mcp.json):")
    click.echo(json.dumps(snippet.claude_desktop, indent=2))
    click.echo("")
    click.echo("Claude Code:")
    click.echo(f"  {snippet.claude_code}")
