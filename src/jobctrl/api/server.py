"""Serve the web app and API with uvicorn inside a process that already runs a worker.

The socket is bound before anything else starts, so a taken port is a one-line error, not
a half-started worker. The caller owns the signals (the worker's stop event ends both).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Callable, Iterator

import uvicorn

from jobctrl.api.app import create_app
from jobctrl.api.security import PublicOrigin
from jobctrl.domain.errors import PORT_UNAVAILABLE, JobctrlError
from jobctrl.home import Home

DEFAULT_PORT = 8765


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0 picks a free one)."""
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        family = socket.AF_INET
    # IPPROTO_TCP named explicitly: asyncio turns Nagle off only for sockets that say TCP,
    # and uvicorn writes headers and body separately (else +40 ms per response).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise JobctrlError(
            f"cannot listen on {host}:{port} ({exc.strerror}): pass another --port",
            code=PORT_UNAVAILABLE,
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_for(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # the worker's signal handlers end the process; see serve_app's stop


async def serve_app(
    home: Home,
    sock: socket.socket,
    stop: asyncio.Event,
    *,
    on_ready: Callable[[str], None] | None = None,
    public: tuple[PublicOrigin, ...] = (),
) -> None:
    """Serve the app on ``sock`` until ``stop`` is set; ``public``: the URLs a reverse proxy
    serves it as (``JOBCTRL_PUBLIC_URL``)."""
    host, port = sock.getsockname()[:2]
    app = create_app(home, port=port, host=host, public=public)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        # Never take the client's address or scheme from X-Forwarded-* (uvicorn would, from
        # FORWARDED_ALLOW_IPS, 127.0.0.1 by default): nothing here needs them, and a public
        # host's scheme comes from JOBCTRL_PUBLIC_URL (api/security.py).
        proxy_headers=False,
        timeout_graceful_shutdown=2,
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if task.done():
        task.result()
        return
    if on_ready:
        on_ready(url_for(sock))
    waiter = asyncio.create_task(stop.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    app.state.stopping.set()  # event streams end first: a clean shutdown
    server.should_exit = True
    waiter.cancel()
    await task
