"""Automatic preparation recovery (issue 13, being built). Stub until its helper lands."""

from __future__ import annotations

from typing import Any

from temporalio.client import Client

from jobctrl.stages.context import StageContext


async def recover_preparations(client: Client, ctx: StageContext, values: dict[str, Any]) -> int:
    """Dispatch at most one frozen cohort of retryable stage rows; returns its size."""
    return 0
