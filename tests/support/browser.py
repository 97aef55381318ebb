"""Browser test helpers: the app served for real by uvicorn on a loopback port (in its own
thread), and a headless Chromium page (Playwright) that records console errors."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import uvicorn
from playwright.async_api import Page, async_playwright

from jobctrl.api.app import create_app
from jobctrl.home import Home

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


@contextmanager
def live_server(home: Home) -> Iterator[str]:
    """Serve ``create_app(home)`` on a free loopback port; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(home, port=port),
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


@asynccontextmanager
async def chromium_page() -> AsyncIterator[tuple[Page, list[str]]]:
    """A fresh headless Chromium page and the list its console errors are added to."""
    errors: list[str] = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            yield page, errors
        finally:
            await browser.close()


async def screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path
