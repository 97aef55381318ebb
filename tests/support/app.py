"""The real app served by uvicorn on a free loopback port, in a thread (the Playwright
sync-free tests, the event stream tests and the benchmarks use it)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import httpx
import uvicorn
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts

from jobctrl.api.app import create_app
from jobctrl.api.events import KEEPALIVE_SECONDS
from jobctrl.api.server import bind
from jobctrl.home import Home

# What a page of the app itself sends with a request (the Origin/Fetch-Metadata defences).
SAME_ORIGIN = {"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}


@asynccontextmanager
async def app_client(home: Home) -> AsyncIterator[httpx.AsyncClient]:
    """The app in process (no server, no port): a client that calls it as its own pages
    do, at the default ``jobctrl up`` address."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(home, port=8765)),
        base_url="http://127.0.0.1:8765",
        headers=SAME_ORIGIN,
        timeout=60,
    ) as client:
        yield client


@contextmanager
def live_server(home: Home, *, keepalive_seconds: float = KEEPALIVE_SECONDS) -> Iterator[str]:
    """Serve ``create_app(home)`` on a free loopback port; yields its base URL."""
    sock = bind("127.0.0.1", 0)  # the socket `jobctrl up` makes
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(home, port=port, keepalive_seconds=keepalive_seconds),
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the app server did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
    if thread.is_alive():
        raise RuntimeError("the app server did not stop")


def closed_port_address() -> str:
    """A loopback ``host:port`` that nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def api_routes(app: FastAPI) -> list[APIRoute]:
    """Every ``APIRoute`` of ``app``, those of its included routers too (FastAPI keeps an
    included router as one entry of ``app.routes``). The routers have no prefix, so each
    route's ``path`` is the path it is served at."""
    return [
        ctx.original_route
        for ctx in iter_route_contexts(app.routes)
        if isinstance(ctx.original_route, APIRoute)
    ]
