"""The worker's runtime inventory (issue 13, being built). Stub until its helper lands."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.worker import Interceptor

from jobctrl.stages.context import StageContext


class RuntimeInventory:
    """What this worker process executes now, published to the store on each heartbeat."""

    def __init__(self, *, capacity: int, task_queue: str) -> None:
        self.capacity = capacity
        self.task_queue = task_queue

    def interceptors(self) -> list[Interceptor]:
        return []

    async def publish(self, client: Client, ctx: StageContext) -> None:
        """Write this worker's runtime heartbeat row."""
