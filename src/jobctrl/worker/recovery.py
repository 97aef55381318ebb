"""Recovery the worker's heartbeat runs: what was meant to run, runs.

- Start intents: a preparation `jobctrl add` recorded with its job but did not start
  (it failed after its commit) is started.
- Budget recovery: jobs stopped by a spent budget resume on their own once the UTC day
  has rolled over and the budget admits their lane again.
- Config recovery: stages stopped because config.yaml could not be read resume once it
  can be.

Observed state (a stage row failed with ``budget_exceeded`` on an earlier UTC day, and a
preflight that now passes) drives the action; the action is idempotent: one recovery
execution per job and day, with a deterministic id
(``prepare-auto-<tenant>-<stage>-<24 hex>``) and a conflict policy that never starts a
second. Stages that already succeeded are not run again (their rows say so).

Each pass acts for the context's tenant (the heartbeat runs one per tenant): its rows,
its budget, its config.yaml, and ids that name it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from datetime import datetime, timedelta

from temporalio.client import Client
from temporalio.service import RPCError

from jobctrl.config import load_config
from jobctrl.domain import ids
from jobctrl.domain.errors import (
    BUDGET_EXCEEDED,
    CONFIG_INVALID,
    BudgetExceededError,
    ConfigError,
    DatabaseBusyError,
    JobctrlError,
    UnavailableError,
)
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority, utc_day
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, stage_lookups, start_intents
from jobctrl.workflows import starts

log = logging.getLogger(__name__)


async def resume_budget_stopped(
    client: Client, ctx: StageContext, *, now: datetime | None = None, limit: int = 25
) -> int:
    """Start recovery for budget-stopped jobs whose budget day has passed; returns how many."""
    now = now or ctx.now()
    today = utc_day(now)
    stopped = await asyncio.to_thread(stage_lookups.failed_stages_with, ctx.store, BUDGET_EXCEEDED)
    authority = SpendAuthority(ctx.store, ctx.settings, clock=lambda: now)
    started = 0
    for job_id, stage, finished_at in stopped:
        if started >= limit:
            break
        if finished_at is None or finished_at.strftime("%Y-%m-%d") >= today:
            continue  # stopped today: today's budget is still spent
        try:
            await asyncio.to_thread(authority.preflight, stage)
        except BudgetExceededError:
            continue
        workflow_id = ids.stage_workflow_id(ids.AUTO_KIND, stage, job_id, today, ctx.store.tenant)
        if await starts.describe(client, workflow_id) is not None:
            continue  # today's recovery for this job is running or ran
        key = (await asyncio.to_thread(jobs.job_row, ctx.store, job_id))["idempotency_key"]
        await starts.start_preparation(
            client, ctx.home, ctx.store, job_id, key, workflow_id=workflow_id, clock=ctx.clock
        )
        started += 1
    if started:
        log.warning("resumed %d budget-stopped job(s)", started)
    return started


# An intent younger than this may still be started by the command that recorded it.
INTENT_GRACE = timedelta(seconds=10)


async def start_intended(
    client: Client, ctx: StageContext, *, limit: int = 25, failed: dict[str, str] | None = None
) -> int:
    """Start the preparations commands recorded but did not start (their process died or
    failed after its commit); returns how many. Each keeps its deterministic workflow id,
    so a command that did start one meanwhile is joined, never doubled.

    An intent that cannot be started (its job is gone, Temporal refuses the start) is
    logged with its code, once per code (``failed`` remembers them across passes), and
    the pass goes on to the next; a condition every start would meet (no server, a
    broken config.yaml, a busy database) ends the pass for the caller to report."""
    failed = {} if failed is None else failed
    pending = await asyncio.to_thread(
        start_intents.unstarted, ctx.store, ctx.now() - INTENT_GRACE, limit + len(failed)
    )
    # Intents that failed before go last, so a pile of them never starves the new ones.
    pending.sort(key=lambda intent: intent[0] in failed)
    started = 0
    for workflow_id, job_id in pending[:limit]:
        bug: Exception | None = None
        try:
            key = (await asyncio.to_thread(jobs.job_row, ctx.store, job_id))["idempotency_key"]
            await starts.start_preparation(
                client, ctx.home, ctx.store, job_id, key, workflow_id=workflow_id, clock=ctx.clock
            )
        except (ConfigError, DatabaseBusyError, UnavailableError):
            raise
        except RPCError as exc:
            if exc.status in starts.SERVER_AWAY:
                raise
            code = exc.status.name
        except JobctrlError as exc:
            code = exc.code
        except Exception as exc:  # a bug: logged with its traceback
            code, bug = type(exc).__name__, exc
        else:
            failed.pop(workflow_id, None)
            started += 1
            continue
        if failed.get(workflow_id) != code:
            log.warning(
                "could not start %s for job %s: %s", workflow_id, job_id, code, exc_info=bug
            )
            failed[workflow_id] = code
    if started:
        log.warning("started %d preparation(s) a command had left unstarted", started)
    return started


def config_version(home: Home) -> str:
    """A short digest of config.yaml as it is now (a resume is once per version)."""
    try:
        return hashlib.sha256(home.config_path.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


async def resume_config_stopped(client: Client, ctx: StageContext, *, limit: int = 25) -> int:
    """Start again the stages that stopped because config.yaml could not be read, once it
    can be (once per job, stage and version of config.yaml); returns how many."""
    await asyncio.to_thread(load_config, ctx.home)  # still broken: nothing to do yet
    stopped = await asyncio.to_thread(stage_lookups.failed_stages_with, ctx.store, CONFIG_INVALID)
    version = await asyncio.to_thread(config_version, ctx.home)
    started = 0
    for job_id, stage, _ in stopped[:limit]:
        workflow_id = ids.stage_workflow_id(
            ids.CONFIG_KIND, stage, job_id, version, ctx.store.tenant
        )
        if await starts.describe(client, workflow_id) is not None:
            continue  # this version of config.yaml was tried for this job already
        key = (await asyncio.to_thread(jobs.job_row, ctx.store, job_id))["idempotency_key"]
        await starts.start_preparation(
            client, ctx.home, ctx.store, job_id, key, workflow_id=workflow_id, clock=ctx.clock
        )
        started += 1
    if started:
        log.warning("config.yaml can be read again: resumed %d job(s)", started)
    return started
