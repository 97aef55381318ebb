"""Finding the Temporal server: ``JOBCTRL_TEMPORAL_ADDRESS``, else the one a worker started."""

from __future__ import annotations

import asyncio
import os
import weakref

from temporalio.client import Client

from jobctrl.domain.errors import ServerUnavailableError
from jobctrl.home import Home
from jobctrl.worker.devserver import NAMESPACE, RuntimeRecord
from jobctrl.workflows.converter import DATA_CONVERTER


def default_task_queue() -> str:
    """The task queue of this home's workers (``JOBCTRL_TASK_QUEUE``, default ``jobctrl``)."""
    return os.environ.get("JOBCTRL_TASK_QUEUE", "jobctrl")


def configured_address(home: Home) -> tuple[str | None, str]:
    """(address, where it came from) without contacting it."""
    env = os.environ.get("JOBCTRL_TEMPORAL_ADDRESS")
    if env:
        return env, "JOBCTRL_TEMPORAL_ADDRESS"
    record = RuntimeRecord.load(home.temporal_runtime_file)
    if record:
        return record.address, str(home.temporal_runtime_file)
    return None, ""


# Clients are bound to the event loop that made them.
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Client]] = (
    weakref.WeakKeyDictionary()
)


async def connect(home: Home, timeout: float = 5.0) -> Client:
    """A client for this home's server; one per address and event loop in a process."""
    address, origin = configured_address(home)
    if address is None:
        raise ServerUnavailableError(
            "no Temporal server is running for this home: start one with `jobctrl worker` "
            "(or set JOBCTRL_TEMPORAL_ADDRESS)"
        )
    loop_clients = _clients.setdefault(asyncio.get_running_loop(), {})
    if address in loop_clients:
        return loop_clients[address]
    try:
        # Client.connect makes a real call, so a listening port alone does not pass.
        client = await asyncio.wait_for(
            Client.connect(address, namespace=NAMESPACE, data_converter=DATA_CONVERTER), timeout
        )
    except Exception:
        raise ServerUnavailableError(
            f"the Temporal server at {address} (from {origin}) does not answer: "
            "start one with `jobctrl worker` (or fix JOBCTRL_TEMPORAL_ADDRESS)"
        ) from None
    loop_clients[address] = client
    return client
