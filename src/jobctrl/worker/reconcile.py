"""The run reconciler (issue 13, being built): every run the store believes open is
checked against its exact Temporal execution. Stub until its helper lands."""

from __future__ import annotations

from temporalio.client import Client

from jobctrl.stages.context import StageContext


async def reconcile_on_start(client: Client, ctx: StageContext) -> None:
    """Before the worker accepts activities: rebuild missing workflow-run rows, reconcile."""


async def reconcile_runs(client: Client, ctx: StageContext) -> None:
    """On each heartbeat: open runs against Temporal, orphans, stop requests."""
