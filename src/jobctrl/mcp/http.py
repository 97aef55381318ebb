"""`jobctrl mcp --http`: the MCP server over streamable HTTP, on loopback only, every
request acting for the tenant whose API token it carries.

The token check is the API's own (``api.security.LocalSecurity`` with ``require_token``):
no token is 401, a token no tenant has is 403, a Host that is not this loopback address
is 403 (DNS rebinding), and an extension's capture token opens nothing here. The MCP
transport is stateless (each request stands alone, JSON answers), so a request's tenant
is the only state: ``base.JobctrlMCP.home_for`` reads it from the request.
"""

from __future__ import annotations

import asyncio
import socket
import sys

import uvicorn
from starlette.types import ASGIApp

from jobctrl.api.security import LocalSecurity
from jobctrl.api.server import bind, url_for
from jobctrl.app import tenants as app_tenants
from jobctrl.home import Home
from jobctrl.mcp.server import build_server

__all__ = ["LOOPBACK", "MCP_PATH", "http_app", "serve_http"]

LOOPBACK = "127.0.0.1"
MCP_PATH = "/mcp"


def http_app(home: Home, *, port: int) -> ASGIApp:
    """The ASGI app of ``home``'s MCP server on ``127.0.0.1:port``."""
    app_tenants.require_tenant(home)
    app_tenants.ensure_token(home)  # the server tenant's own token resolves too
    server = build_server(home, per_request=True)
    inner = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=LOOPBACK
    )
    hosts = frozenset({f"{LOOPBACK}:{port}", f"localhost:{port}"})
    return LocalSecurity(
        inner,
        hosts=hosts,
        resolve_token=app_tenants.TokenResolver(home),
        default_tenant=home.tenant,
        require_token=True,
    )


def serve_http(home: Home, port: int) -> None:
    """Serve until interrupted; the URL goes to stderr once the socket listens."""
    sock = bind(LOOPBACK, port)
    app = http_app(home, port=sock.getsockname()[1])
    print(f"jobctrl MCP server on {url_for(sock)}{MCP_PATH}", file=sys.stderr, flush=True)
    asyncio.run(_serve(app, sock))


async def _serve(app: ASGIApp, sock: socket.socket) -> None:
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, proxy_headers=False, lifespan="on"
    )
    await uvicorn.Server(config).serve(sockets=[sock])
