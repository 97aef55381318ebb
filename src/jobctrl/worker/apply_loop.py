"""The standing apply loop's reconciler, run by the worker's heartbeat (and so at startup).

Desired state is the ``auto_apply`` setting; observed state is what Temporal describes
under ``apply-auto-<tenant>`` (the context's tenant's). On: a loop that is absent or
closed is started (no restart of the worker needed). Off: a running loop is asked to
cancel (it lets its claims go and ends as canceled). A loop that failed with
``budget_exceeded`` is halted, not restarted, while that failure is from today (UTC) and
today's budget is still spent; any other failure is started again after a minute, so a
persistent fault never spins.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus

from jobctrl.domain import ids
from jobctrl.domain.apply_loop import APPLY_LANE
from jobctrl.domain.clock import as_utc
from jobctrl.domain.errors import (
    BUDGET_EXCEEDED,
    NOT_RUNNING,
    BudgetExceededError,
    JobctrlError,
)
from jobctrl.llm.spend import utc_day
from jobctrl.stages.context import StageContext
from jobctrl.store import workflow_runs
from jobctrl.workflows import starts
from jobctrl.workflows.client import default_task_queue

log = logging.getLogger(__name__)
RESTART_AFTER_FAILURE = timedelta(minutes=1)


async def reconcile_apply_loop(
    client: Client, ctx: StageContext, values: dict[str, Any], *, now: datetime | None = None
) -> str:
    """Bring the tenant's ``apply-auto-<tenant>`` in line with its ``auto_apply``; what
    was found or done: off, cancel_requested, running, started, waiting (after a
    failure). While a spent budget halts it, a ``budget_exceeded`` error says so (the
    heartbeat, once)."""
    now = now or ctx.now()
    loop_id = ids.apply_loop_id(ctx.store.tenant)
    observed = await starts.describe(client, loop_id)
    running = observed is not None and observed.status == WorkflowExecutionStatus.RUNNING
    if not values["auto_apply"]:
        if running and await starts.cancel_running(client, loop_id) is not None:
            log.warning("auto_apply is off: the standing apply loop was asked to stop")
            return "cancel_requested"
        return "off"
    if running and observed is not None and observed.task_queue != default_task_queue():
        raise JobctrlError(
            f"{loop_id} runs for task queue {observed.task_queue!r}, another home "
            "sharing this Temporal server: this home's loop waits until it ends",
            code=NOT_RUNNING,
        )
    if running:
        return "running"
    if observed is not None and observed.status == WorkflowExecutionStatus.FAILED:
        closed = as_utc(observed.close_time or now)
        record = await asyncio.to_thread(workflow_runs.run_row, ctx.store, loop_id, observed.run_id)
        if record is not None and record["error_code"] == BUDGET_EXCEEDED:
            if utc_day(closed) == utc_day(now) and await _budget_spent(ctx):
                raise JobctrlError(
                    "halted: today's budget is spent (budget_exceeded); it starts again when "
                    "the UTC day rolls over, or once the budget allows",
                    code=BUDGET_EXCEEDED,
                )
        elif now - closed < RESTART_AFTER_FAILURE:
            return "waiting"
    await starts.start_apply(client, ctx.store, None, "")
    log.warning("auto_apply is on: the standing apply loop (%s) started", loop_id)
    return "started"


async def _budget_spent(ctx: StageContext) -> bool:
    try:
        await asyncio.to_thread(ctx.spend.preflight, APPLY_LANE)
    except BudgetExceededError:
        return True
    return False
