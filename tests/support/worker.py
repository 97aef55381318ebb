"""An in-process Temporal worker for a test, stopped within a bound.

``temporalio``'s ``Worker.shutdown`` waits, without a limit, for its pollers to end and for
every activity it started to complete and be reported to the server. Twice under load a
teardown waited so until pytest-timeout ended it (300 s), every activity thread idle and
the event loop with no timer: a call into the SDK's core that never returned, just after
an activity of a cancelled workflow finished (the fixture site closing ended its fetch)
and its completion was refused (``Activity not found on completion``) while the shutdown
began. ``running`` first lets completions already under way be reported (an activity
whose function returned), then shuts the worker down within ``timeout`` seconds or fails
the test naming what is still open: the activities the worker tracks and what each
pending task of the loop awaits. One wait is not ours: with every activity reported and
the pollers ended, the core's ``finalize_shutdown`` itself has twice never answered (in
~8 full runs); that worker is left behind, as the product's own ``serving`` does. Its
activity thread pool is shut down either way (the worker does not own it:
``build_worker`` made it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from temporalio.worker import Worker

log = logging.getLogger(__name__)
SHUTDOWN_TIMEOUT = 30.0  # seconds: a clean shutdown takes well under one
SETTLE_TIMEOUT = 5.0  # seconds for completions under way before the shutdown starts


@contextlib.asynccontextmanager
async def running(worker: Worker, *, timeout: float = SHUTDOWN_TIMEOUT) -> AsyncIterator[Worker]:
    """Run ``worker`` for the block; then shut it down within ``timeout`` s or fail."""
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(_shutdown_executor, worker)
        run = asyncio.create_task(worker.run())
        try:
            yield worker
        finally:
            await _stop(worker, run, timeout)


async def _stop(worker: Worker, run: asyncio.Task[None], timeout: float) -> None:
    deadline = asyncio.get_running_loop().time() + SETTLE_TIMEOUT
    while _reporting(worker) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
    shutdown = asyncio.ensure_future(worker.shutdown())
    done, _ = await asyncio.wait({shutdown}, timeout=timeout)
    if not done:
        open_now = describe_open(worker)
        log.error("worker shutdown still waiting after %.0f s: %s", timeout, open_now)
        if _only_core_finalizing(open_now):
            # Nothing of ours is open: the pollers ended, no activity runs, and only the
            # SDK core's last step has not answered. The product leaves such a worker
            # behind (worker/run.py ``serving``); the test does the same.
            shutdown.cancel()
            run.cancel()
            await asyncio.gather(shutdown, run, return_exceptions=True)
            return
        pytest.fail(f"the in-process worker did not shut down in {timeout:.0f} s: {open_now}")
    await run  # done with the shutdown: raises what stopped the worker, if anything did


def _only_core_finalizing(open_now: dict[str, Any]) -> bool:
    """Whether a shutdown waits on nothing but the SDK core finalizing (every activity
    reported, the run past its pollers)."""
    runs = [a for a in open_now.get("awaiting", []) if a.startswith("Worker.run")]
    return (
        open_now.get("activities") == []
        and bool(runs)
        and all(a.endswith("Worker.finalize_shutdown > FutureIter") for a in runs)
    )


def _shutdown_executor(worker: Worker) -> None:
    executor = worker.config().get("activity_executor")
    if executor is not None:
        executor.shutdown(wait=False, cancel_futures=True)


def _running_activities(worker: Worker) -> dict[Any, Any] | None:
    found = getattr(getattr(worker, "_activity_worker", None), "_running_activities", None)
    return found if isinstance(found, dict) else None


def _reporting(worker: Worker) -> bool:
    """Whether an activity's function returned and its completion is still being sent
    (SDK internals: when they are not there, nothing is waited for)."""
    running = _running_activities(worker) or {}
    return any(getattr(a, "done", False) for a in list(running.values()))


def describe_open(worker: Worker) -> dict[str, Any]:
    """What a worker's shutdown still waits on (SDK internals, read for a diagnosis only:
    whatever is missing reads as unknown)."""
    found: dict[str, Any] = {}
    running = _running_activities(worker)
    found["activities"] = "unknown" if running is None else [_activity(a) for a in running.values()]
    cached = getattr(getattr(worker, "_workflow_worker", None), "_running_workflows", None)
    if isinstance(cached, dict):
        found["cached_workflow_runs"] = len(cached)
    found["awaiting"] = sorted({_awaits(t) for t in asyncio.all_tasks() if not t.done()})
    return found


def _awaits(task: asyncio.Task[Any]) -> str:
    """A pending task's chain of awaits, outermost first (function names only)."""
    names = []
    awaitable: Any = task.get_coro()
    while awaitable is not None and len(names) < 12:
        code = getattr(awaitable, "cr_code", None) or getattr(awaitable, "gi_code", None)
        if code is None:
            names.append(type(awaitable).__name__)  # a future: what the core answers
            break
        names.append(code.co_qualname)
        awaitable = getattr(awaitable, "cr_await", None) or getattr(awaitable, "gi_yieldfrom", None)
    return " > ".join(names)


def _activity(running: Any) -> dict[str, Any]:
    info = getattr(running, "info", None)
    task = getattr(running, "task", None)
    return {
        "type": getattr(info, "activity_type", "?"),
        "workflow_id": getattr(info, "workflow_id", "?"),
        "function_returned": bool(getattr(running, "done", False)),
        "cancel_requested": bool(getattr(running, "cancelled_by_request", False)),
        "task_done": task.done() if isinstance(task, asyncio.Task) else None,
    }
