"""What commands need from the runtime: a Temporal client, and a worker that polls.

A command issued while this home's worker is still starting (``jobctrl worker``, ``up``
or ``demo`` launched a moment ago, its embedded Temporal server not answering yet) can
wait for it briefly instead of saying no server runs: ``client_for(home,
starting_patience=…)``. Whether such a worker exists is read from the process table (a
live ``jobctrl worker|up|demo`` process whose ``JOBCTRL_HOME`` resolves to this home),
so it holds from the worker's first instant, before it has written anything.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import platformdirs
import psutil
from temporalio.client import Client

from jobctrl.domain.errors import (
    NO_WORKER,
    WORKER_RUNTIME_UNAVAILABLE,
    JobctrlError,
    UnavailableError,
)
from jobctrl.home import Home
from jobctrl.workflows.client import configured_address, connect, default_task_queue
from jobctrl.workflows.starts import worker_polling

__all__ = [
    "WORKER_START_PATIENCE",
    "Client",
    "client_for",
    "ensure_worker_polls",
    "ready_client",
    "worker_polling",
    "worker_started_at",
    "worker_starting",
]

WORKER_START_PATIENCE = 15.0  # seconds a command waits for a worker that is starting
# ...or longer while that worker's process is younger than this (a loaded machine starts
# Python and the embedded server slowly); never past it.
WORKER_START_LIMIT = 60.0
WORKER_COMMANDS = frozenset({"worker", "up", "demo"})


async def client_for(home: Home, *, starting_patience: float = 0.0) -> Client:
    """A client for this home's Temporal server (``temporal_unavailable`` if none).

    With ``starting_patience``, a server that does not answer while a worker process of
    this home is starting (younger than ``WORKER_START_LIMIT``) is waited for that long,
    or until that process is ``WORKER_START_LIMIT`` seconds old if that is later; with no
    such process the error comes at once, as before."""
    try:
        return await connect(home)
    except UnavailableError:
        if starting_patience <= 0 or configured_address(home)[1] == "JOBCTRL_TEMPORAL_ADDRESS":
            raise
        since = await asyncio.to_thread(worker_started_at, home)
        if since is None or time.time() - since > WORKER_START_LIMIT:
            raise  # no worker, or one long past starting: its server is not coming
    deadline = max(time.time() + starting_patience, since + WORKER_START_LIMIT)
    while True:
        await asyncio.sleep(0.25)
        try:
            return await connect(home, timeout=2.0)
        except UnavailableError:
            if time.time() >= deadline or await asyncio.to_thread(worker_started_at, home) is None:
                raise


def worker_starting(home: Home) -> bool:
    """True while some live ``jobctrl worker|up|demo`` process serves this home."""
    return worker_started_at(home) is not None


def worker_started_at(home: Home) -> float | None:
    """When the youngest live ``jobctrl worker|up|demo`` process of this home started
    (epoch seconds), or None when there is none."""
    me = os.getpid()
    youngest: float | None = None
    for proc in psutil.process_iter(["pid", "cmdline", "create_time"]):
        try:
            if proc.info["pid"] == me or not _is_worker(proc.info["cmdline"] or []):
                continue
            if _home_of(proc) == home.root:
                created = float(proc.info["create_time"])
                youngest = created if youngest is None else max(youngest, created)
        except (psutil.Error, OSError):
            continue
    return youngest


def _is_worker(cmdline: list[str]) -> bool:
    """``…/jobctrl worker`` (or ``python -m jobctrl worker``), options aside."""
    for i, arg in enumerate(cmdline):
        if Path(arg).name == "jobctrl":
            rest = [a for a in cmdline[i + 1 :] if not a.startswith("-")]
            return bool(rest) and rest[0] in WORKER_COMMANDS
    return False


def _home_of(proc: psutil.Process) -> Path:
    """The home another process uses, resolved as ``Home.resolve`` would there."""
    env = proc.environ()
    raw = env.get("JOBCTRL_HOME")
    if raw:
        path = Path(raw).expanduser()
        return (path if path.is_absolute() else Path(proc.cwd()) / path).resolve()
    data = env.get("XDG_DATA_HOME")
    if data:
        return (Path(data) / "jobctrl").resolve()
    if env.get("HOME") and env.get("HOME") != os.environ.get("HOME"):
        return (Path(env["HOME"]) / ".local" / "share" / "jobctrl").resolve()
    return Path(platformdirs.user_data_dir("jobctrl", appauthor=False)).expanduser().resolve()


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


async def ensure_worker_polls(client: Client, what: str, patience: float = 5.0) -> None:
    """Before waiting on queued work: some worker must be there to do it (``no_worker``)."""
    if not await worker_polling(client, patience=patience):
        raise JobctrlError(
            f"{what} is queued, but no worker serves task queue {default_task_queue()!r}: "
            "start one with `jobctrl up`",
            code=NO_WORKER,
        )
