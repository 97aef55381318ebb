"""Automatic preparation recovery, one step per heartbeat (``recovery.enabled``).

Each beat:

1. Open cohorts first. A cohort saved ``reserved`` but not known to be started (the
   worker died between the reservation and the start, or the start's answer was lost) is
   started again under its saved id and its saved worker count: ``USE_EXISTING``/
   ``REJECT_DUPLICATE`` join the execution if there is one, never a second. Before that,
   its Tailor/Cover members whose application the person abandoned since are released
   (``store.recovery_admission.release_declined``); a cohort left with none is closed.
   A ``started`` cohort whose exact execution Temporal describes as closed without its
   finish is settled (its unclaimed members released); one Temporal cannot find keeps
   its rows (missing history is no proof).
2. At most one new cohort, and only while ``pipeline_internal_concurrency`` has room:
   every open cohort holds the smaller of its worker count and its unfinished members,
   and the new one gets what is left as its worker count (saved with it, never
   rewritten). It takes the stage of the oldest eligible row whose lane may run now (not
   paused by stop-loss; Score/Tailor/Cover only when the spend preflight passes), at
   most 25 of that stage's eligible jobs, reserved in one transaction
   (``store.recovery.reserve_cohort``), then started.

The rules (eligibility, backoff, cap) are in ``domain/recovery.py``. Tests and benchmarks
shrink the backoff base (production: 60 s, so min(1800, 60 * 2**n) s) and the pending
grace (30 s) with their hooks (``jobctrl.testing.hooks``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus

from jobctrl.domain import recovery as rules
from jobctrl.domain.errors import BudgetExceededError
from jobctrl.stages.context import StageContext
from jobctrl.store import recovery, recovery_admission, stop_loss
from jobctrl.testing import hooks
from jobctrl.workflows import starts
from jobctrl.workflows.models import RecoveryInput

log = logging.getLogger(__name__)

LANE = "lane"  # stop-loss kind of the stage lanes


def backoff_base() -> float:
    return hooks.seconds(hooks.RECOVERY_BACKOFF_BASE_SECONDS, rules.BACKOFF_BASE_SECONDS)


def pending_grace() -> float:
    return hooks.seconds(hooks.RECOVERY_PENDING_GRACE_SECONDS, rules.PENDING_GRACE_SECONDS)


async def recover_preparations(client: Client, ctx: StageContext, values: dict[str, Any]) -> int:
    """Dispatch at most one frozen cohort of retryable stage rows; returns its size."""
    if not values["recovery.enabled"]:
        return 0
    await _tend_open_cohorts(client, ctx, values)
    concurrency = int(values["pipeline_internal_concurrency"])
    in_use = await asyncio.to_thread(recovery_admission.in_use, ctx.store)
    if rules.remaining_workers(concurrency, [in_use]) <= 0:  # no dispatch this beat
        return 0
    stage_limit = int(values["retry.max_attempts"])
    found = await asyncio.to_thread(
        recovery.eligible,
        ctx.store,
        ctx.now(),
        stage_limit=stage_limit,
        base=backoff_base(),
        grace=pending_grace(),
    )
    if not found:
        return 0
    stage, closed = None, set()
    for candidate in found:  # the oldest eligible row whose lane may run now
        if candidate.stage in closed:
            continue
        if await asyncio.to_thread(_lane_open, ctx, candidate.stage):
            stage = candidate.stage
            break
        closed.add(candidate.stage)
    if stage is None:
        return 0
    among = [c.job_id for c in found if c.stage == stage][: rules.COHORT_SIZE]
    cohort = await asyncio.to_thread(
        recovery.reserve_cohort,
        ctx.store,
        stage_limit=stage_limit,
        stages=[stage],
        among=among,
        base=backoff_base(),
        grace=pending_grace(),
        concurrency=concurrency,  # what is left, read again under the write lock
        clock=ctx.clock,
    )
    if cohort is None:
        return 0
    if hooks.hook(hooks.EXIT_AFTER_RECOVERY_RESERVE):  # the restart test's fault
        os._exit(137)
    await _start(client, ctx, cohort, values)
    log.info(
        "automatic recovery: %s for %d job(s) (%s)",
        cohort.stage,
        len(cohort.job_ids),
        cohort.workflow_id,
    )
    return len(cohort.job_ids)


def _lane_open(ctx: StageContext, stage: str) -> bool:
    """May the stage's lane run now: not paused by stop-loss, and (for the stages that
    call a provider) today's budget admits it."""
    if stop_loss.is_paused(ctx.store, LANE, stage) is not None:
        return False
    if stage in rules.PAID_STAGES:
        try:
            ctx.spend.preflight(stage)
        except BudgetExceededError:
            return False
    return True


async def _start(
    client: Client, ctx: StageContext, cohort: recovery.Cohort, values: dict[str, Any]
) -> starts.Started:
    defaults = await asyncio.to_thread(starts.prep_defaults, ctx.home, ctx.store)
    inp = RecoveryInput(
        stage=cohort.stage,
        job_ids=list(cohort.job_ids),
        retry=starts.retry_settings(values),
        profile_version=defaults.profile_version,
        materials=defaults.materials,
        concurrency=rules.LEGACY_WORKERS if cohort.workers is None else cohort.workers,
        tenant_id=ctx.store.tenant,
    )
    return await starts.start_recovery(client, ctx.store, cohort.workflow_id, inp, clock=ctx.clock)


async def _release_declined(client: Client, ctx: StageContext, cohort: recovery.Cohort) -> bool:
    """Release the declined members of a reserved cohort before it is started again; a
    cohort left holding nothing is closed (it must not block other work), unless its
    execution runs after all (the answer to its start was lost, and the members it claimed
    hold no reservation any more): closing it would free its share of the concurrency
    while it still works. False when it was closed."""
    released, held = await asyncio.to_thread(
        recovery_admission.release_declined, ctx.store, cohort.workflow_id, clock=ctx.clock
    )
    if released:
        log.info(
            "automatic recovery: released %d declined member(s) of %s",
            len(released),
            cohort.workflow_id,
        )
    if held or await starts.running_run(client, cohort.workflow_id) is not None:
        return True  # started again below: the running execution is the one recorded
    await asyncio.to_thread(recovery.close_cohort, ctx.store, cohort.workflow_id, clock=ctx.clock)
    log.info("automatic recovery: %s holds no member any more; closed", cohort.workflow_id)
    return False


# A started cohort whose exact run Temporal cannot find (its history lost: the dev
# server's file reset, say) is closed after this long, releasing the members it never
# claimed; otherwise it would hold its jobs and one of the open-cohort places for good.
# A late claim by that run, should it reappear, is refused (its cohort is closed).
MISSING_GRACE_SECONDS = 600
_missing_since: dict[tuple[str, str], float] = {}


def _missing_too_long(cohort: recovery.Cohort, missing: bool) -> bool:
    key = (cohort.workflow_id, cohort.run_id or "")
    if not missing:
        _missing_since.pop(key, None)
        return False
    since = _missing_since.setdefault(key, time.monotonic())
    if time.monotonic() - since < MISSING_GRACE_SECONDS:
        return False
    del _missing_since[key]
    return True


async def _tend_open_cohorts(client: Client, ctx: StageContext, values: dict[str, Any]) -> int:
    """Start the reserved cohorts, settle the started ones whose execution closed without
    its finish; how many stay open."""
    still_open = 0
    for cohort in await asyncio.to_thread(recovery.open_cohorts, ctx.store):
        if cohort.state == recovery.RESERVED:
            if not await _release_declined(client, ctx, cohort):
                continue
            started = await _start(client, ctx, cohort, values)
            log.warning(
                "automatic recovery: started reserved cohort %s again (%s)",
                cohort.workflow_id,
                started.run_id,
            )
            saved = await asyncio.to_thread(recovery.cohort, ctx.store, cohort.workflow_id)
            if saved is None or saved.state == recovery.CLOSED:
                continue
            cohort = saved
        if cohort.run_id:
            described = await starts.describe_run(client, cohort.workflow_id, cohort.run_id)
            if _missing_too_long(cohort, described is None):
                released = await asyncio.to_thread(
                    recovery.close_cohort, ctx.store, cohort.workflow_id, clock=ctx.clock
                )
                log.warning(
                    "automatic recovery: %s has not been found for %d s; released %d job(s)",
                    cohort.workflow_id,
                    MISSING_GRACE_SECONDS,
                    len(released),
                )
                continue
            if described is not None and described.status != WorkflowExecutionStatus.RUNNING:
                released = await asyncio.to_thread(
                    recovery.close_cohort, ctx.store, cohort.workflow_id, clock=ctx.clock
                )
                log.warning(
                    "automatic recovery: %s closed without its finish; released %d job(s)",
                    cohort.workflow_id,
                    len(released),
                )
                continue
        still_open += 1
    return still_open
