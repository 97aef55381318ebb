"""Running the worker process (``jobctrl worker`` / ``jobctrl up`` / ``jobctrl demo``).

Importing this loads every stage and provider SDK the worker runs: the CLI imports it
only in the commands that start a worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from jobctrl.domain.errors import UnavailableError
from jobctrl.home import Home
from jobctrl.worker import run

__all__ = ["run_worker"]


async def run_worker(
    home: Home,
    *,
    on_ready: Callable[[str], None] | None = None,
    alongside: Callable[[asyncio.Event], Awaitable[None]] | None = None,
    on_server_lost: Callable[[UnavailableError], None] | None = None,
) -> None:
    """Run the worker (and the embedded Temporal server unless one is configured) until
    SIGINT/SIGTERM; ``alongside`` (the web app, the demo) runs once it is ready."""
    await run.run_worker(
        home, on_ready=on_ready, alongside=alongside, on_server_lost=on_server_lost
    )
