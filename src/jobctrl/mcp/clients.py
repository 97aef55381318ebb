"""`jobctrl mcp config`: what an MCP client's configuration needs to start `jobctrl mcp`
for this home and tenant — Claude Desktop's and Cursor's ``mcpServers`` JSON, and Claude
Code's `claude mcp add` command line."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from jobctrl.app.models import View
from jobctrl.home import Home

__all__ = ["ClientConfig", "client_config"]


class ClientConfig(View):
    """How a client starts the stdio server, and the snippets that say so."""

    command: str
    args: list[str]
    env: dict[str, str]
    claude_desktop: dict[str, Any]
    cursor: dict[str, Any]
    claude_code: str


def jobctrl_command() -> str:
    """The installed `jobctrl`, by its absolute path (a client does not share our PATH)."""
    beside = Path(sys.executable).with_name("jobctrl")
    if beside.exists():
        return str(beside)
    return shutil.which("jobctrl") or "jobctrl"


def client_config(home: Home, *, command: str | None = None) -> ClientConfig:
    """The snippets for ``home``'s tenant."""
    command = command or jobctrl_command()
    env = {"JOBCTRL_HOME": str(home.root), "JOBCTRL_TENANT": home.tenant}
    server = {"command": command, "args": ["mcp"], "env": env}
    flags = " ".join(f"-e {key}={shlex.quote(value)}" for key, value in env.items())
    return ClientConfig(
        command=command,
        args=["mcp"],
        env=env,
        claude_desktop={"mcpServers": {"jobctrl": server}},
        cursor={"mcpServers": {"jobctrl": server}},
        claude_code=f"claude mcp add jobctrl {flags} -- {shlex.quote(command)} mcp",
    )
