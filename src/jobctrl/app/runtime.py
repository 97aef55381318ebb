"""What commands need from the runtime: a Temporal client, and a worker that polls."""

from __future__ import annotations

from temporalio.client import Client

from jobctrl.domain.errors import (
    NO_WORKER,
    WORKER_RUNTIME_UNAVAILABLE,
    JobctrlError,
    UnavailableError,
)
from jobctrl.home import Home
from jobctrl.workflows.client import connect, default_task_queue
from jobctrl.workflows.starts import worker_polling

__all__ = ["client_for", "ensure_worker_polls", "ready_client"]


async def client_for(home: Home) -> Client:
    """A client for this home's Temporal server (``temporal_unavailable`` if none)."""
    return await connect(home)


async def ready_client(home: Home, patience: float = 2.0) -> Client:
    """A client whose task queue some worker polls right now; otherwise
    ``worker_runtime_unavailable`` (exit 2, HTTP 503) and the command changes nothing."""
    try:
        client = await connect(home)
    except UnavailableError as exc:
        raise UnavailableError(exc.message, code=WORKER_RUNTIME_UNAVAILABLE) from None
    if not await worker_polling(client, patience=patience):
        raise UnavailableError(
            f"no worker serves task queue {default_task_queue()!r}: start one with `jobctrl up`",
            code=WORKER_RUNTIME_UNAVAILABLE,
        )
    return client


async def ensure_worker_polls(client: Client, what: str) -> None:
    """Before waiting on queued work: some worker must be there to do it (``no_worker``)."""
    if not await worker_polling(client):
        raise JobctrlError(
            f"{what} is queued, but no worker serves task queue {default_task_queue()!r}: "
            "start one with `jobctrl worker`",
            code=NO_WORKER,
        )
