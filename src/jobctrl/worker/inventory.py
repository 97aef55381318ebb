"""The worker's runtime inventory: what this worker process executes now, published to
the store (``worker_runtime_heartbeats``) on each heartbeat.

A Temporal activity interceptor records every activity execution of this process: when
it started and finished, its activity type (detail only for allowlisted kinds, see
domain/runtime.py; any other counts in the slots as ``other``), its workflow and run ids
(kept only when they have a safe shape) and an opaque digest of workflow id, activity id
and attempt. It never reads the activity's arguments, result or exception: no URL,
payload, prompt, provider output, artifact path or error text can reach the row.
Successful durations per kind stay in memory (the last 200) and are published as
``{count, p50, p90, max}`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from temporalio import activity
from temporalio.client import Client
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

from jobctrl.domain import runtime as rules
from jobctrl.domain.processes import host_name, pid_space
from jobctrl.stages.context import StageContext
from jobctrl.store import runtime as store_runtime
from jobctrl.store.store import Store
from jobctrl.workflows.starts import observe_task_queue

log = logging.getLogger(__name__)
QUEUE_TIMEOUT_SECONDS = 5.0  # a task-queue observation that takes longer is left out


@dataclass(frozen=True)
class _Running:
    kind: str  # allowlisted kind, or "other"
    detail: dict[str, str] | None  # {kind, workflowId, runId, key, startedAt} or None
    started: float  # monotonic
    local: bool  # a local activity (a short lifecycle write): not one of the ``capacity`` slots


def worker_identity() -> str:
    """``host~space:pid:token``: which process of which host a worker is (the lease reads
    it). ``space`` tells apart PID spaces that share a host name (containers with the same
    hostname, a host name reused after a reboot): a pid is only comparable within one."""
    return f"{host_name()}~{pid_space()}:{os.getpid()}:{secrets.token_hex(4)}"


class RuntimeInventory:
    """What this worker process executes now, published to the store on each heartbeat."""

    def __init__(self, *, capacity: int, task_queue: str) -> None:
        self.capacity = capacity
        self.task_queue = task_queue
        self.worker_id = worker_identity()
        self.started_at = datetime.now(UTC)
        self._lock = threading.Lock()
        self._running: dict[int, _Running] = {}
        self._next = 0
        self._durations: dict[str, deque[float]] = {}

    def interceptors(self) -> list[Interceptor]:
        return [_InventoryInterceptor(self)]

    # -- what the interceptor records -----------------------------------------------------

    def started(self, info: activity.Info) -> int:
        kind = rules.activity_kind(info.activity_type)
        detail = None
        wid, rid = info.workflow_id, info.workflow_run_id
        if kind != rules.OTHER and rules.safe_workflow_id(wid) and rules.safe_run_id(rid):
            assert wid is not None and rid is not None
            detail = {
                "kind": kind,
                "workflowId": wid,
                "runId": rid,
                "key": rules.item_key(wid, info.activity_id, info.attempt),
                "startedAt": datetime.now(UTC).isoformat(timespec="milliseconds"),
            }
        with self._lock:
            self._next += 1
            self._running[self._next] = _Running(
                kind, detail, time.monotonic(), bool(info.is_local)
            )
            return self._next

    def finished(self, token: int, *, succeeded: bool) -> None:
        with self._lock:
            running = self._running.pop(token, None)
            if running is None or not succeeded or running.kind == rules.OTHER:
                return
            samples = self._durations.setdefault(running.kind, deque(maxlen=rules.DURATION_SAMPLES))
            samples.append(time.monotonic() - running.started)

    def snapshot(self) -> dict[str, Any]:
        """Slots, allowlisted items (the 20 oldest) and duration summaries, now."""
        with self._lock:
            running = list(self._running.values())
            durations = {k: rules.summarize(v) for k, v in self._durations.items() if v}
        # Local activities have their own limit (the worker's short lifecycle writes): the
        # slots and items are the activities that count against ``capacity``.
        running = [r for r in running if not r.local]
        detailed = sorted((r for r in running if r.detail is not None), key=lambda r: r.started)
        return {
            "active_slots": len(running),
            "capacity": self.capacity,
            "items_total": len(detailed),
            "items": [r.detail for r in detailed[: rules.MAX_ITEMS]],
            "durations": durations,
        }

    # -- the heartbeat ----------------------------------------------------------------------

    async def _queue(self, client: Client) -> dict[str, Any] | None:
        try:
            seen = await asyncio.wait_for(observe_task_queue(client), QUEUE_TIMEOUT_SECONDS)
        except Exception:  # an observation, not a duty: absent this beat
            log.debug("task-queue observation failed", exc_info=True)
            return None
        return {
            "approximate": True,
            "workflowPollers": int(seen.workflow_pollers),
            "activityPollers": int(seen.activity_pollers),
            "backlog": seen.activity_backlog,
            "backlogAgeSeconds": seen.activity_backlog_age_seconds,
        }

    async def publish(self, client: Client, ctx: StageContext) -> None:
        """Write this worker's runtime heartbeat row."""
        queue = await self._queue(client)
        interval = float(await asyncio.to_thread(ctx.settings.get, "worker.heartbeat_seconds"))
        row = {
            "worker_id": self.worker_id,
            "home_id": rules.home_identity(ctx.home),
            "task_queue": self.task_queue,
            "started_at": self.started_at,
            "beat_at": ctx.now(),
            "interval_seconds": interval,
            **self.snapshot(),
            "queue": queue,
        }
        await asyncio.to_thread(store_runtime.publish, ctx.store, row)

    def withdraw(self, store: Store) -> None:
        """Remove this worker's row (a clean stop): readers then say unavailable."""
        store_runtime.withdraw(store, self.worker_id)


class _InventoryInterceptor(Interceptor):
    def __init__(self, inventory: RuntimeInventory) -> None:
        self.inventory = inventory

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _InventoryInbound(next, self.inventory)


class _InventoryInbound(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, inventory: RuntimeInventory) -> None:
        super().__init__(next)
        self.inventory = inventory

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        # Only activity.info() is read: never input.args, the result or an exception.
        try:
            token: int | None = self.inventory.started(activity.info())
        except Exception:  # the inventory never fails an activity
            log.exception("runtime inventory: recording an activity failed")
            token = None
        succeeded = False
        try:
            result = await self.next.execute_activity(input)
            succeeded = True
            return result
        finally:
            if token is not None:
                self.inventory.finished(token, succeeded=succeeded)
