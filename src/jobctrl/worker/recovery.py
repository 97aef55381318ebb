"""Budget recovery: jobs stopped by a spent budget resume on their own once the UTC day
has rolled over and the budget admits their lane again.

Observed state (a stage row failed with ``budget_exceeded`` on an earlier UTC day, and a
preflight that now passes) drives the action; the action is idempotent: one recovery
execution per job and day, with a deterministic id
(``prepare-auto-local-<stage>-<24 hex>``) and a conflict policy that never starts a second.
Stages that already succeeded are not run again (their rows say so).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from sqlalchemy import select
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from jobctrl.domain import ids
from jobctrl.domain.errors import BUDGET_EXCEEDED, BudgetExceededError
from jobctrl.llm.spend import SpendAuthority, utc_day
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, schema

log = logging.getLogger(__name__)
S = schema.job_stage_states


async def _exists(client: Client, workflow_id: str) -> bool:
    try:
        await client.get_workflow_handle(workflow_id).describe()
        return True
    except RPCError as exc:
        if exc.status == RPCStatusCode.NOT_FOUND:
            return False
        raise


async def resume_budget_stopped(
    client: Client, ctx: StageContext, *, now: datetime | None = None, limit: int = 25
) -> int:
    """Start recovery for budget-stopped jobs whose budget day has passed; returns how many."""
    from jobctrl.services import start_preparation

    now = now or datetime.now(UTC)
    today = utc_day(now)
    with ctx.store.read() as conn:
        rows = conn.execute(
            select(S.c.job_id, S.c.stage, S.c.finished_at)
            .where(S.c.state == "failed", S.c.error_code == BUDGET_EXCEEDED)
            .order_by(S.c.finished_at)
        ).all()
    authority = SpendAuthority(ctx.store, ctx.settings, clock=lambda: now)
    started = 0
    for job_id, stage, finished_at in rows:
        if started >= limit:
            break
        if finished_at is None:
            continue
        if finished_at.strftime("%Y-%m-%d") >= today:
            continue  # stopped today: today's budget is still spent
        try:
            authority.preflight(stage)
        except BudgetExceededError:
            continue
        key = jobs.job_row(ctx.store, job_id)["idempotency_key"]
        workflow_id = ids.stage_workflow_id("auto-local", stage, job_id, today)
        if await _exists(client, workflow_id):
            continue  # today's recovery for this job is running or ran
        await start_preparation(client, ctx.home, ctx.store, job_id, key, workflow_id=workflow_id)
        started += 1
    if started:
        log.warning("resumed %d budget-stopped job(s)", started)
    return started
