"""``build_server``: the MCP server of one home with every tool and resource registered."""

from __future__ import annotations

from jobctrl.home import Home
from jobctrl.mcp import resources, tools_act, tools_people, tools_read
from jobctrl.mcp.base import JobctrlMCP

__all__ = ["build_server"]


def build_server(home: Home, *, per_request: bool = False) -> JobctrlMCP:
    """The server of ``home``: stdio acts for its tenant; ``per_request`` (HTTP) acts
    for each request's token's tenant."""
    server = JobctrlMCP(home, per_request=per_request)
    for module in (tools_read, tools_act, tools_people, resources):
        module.register(server)
    return server
