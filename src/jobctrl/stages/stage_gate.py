"""The gate a preparation stage attempt passes before any provider call or fetch, and the
stop-loss note it leaves after (``PreparationActivities._run``).

Before: an execution the person asked to stop (``jobctrl cancel``) starts no stage
(``canceled``); a lane stop-loss paused refuses at once (``automation_paused``: the row
ends failed, retryable, no attempt used; Temporal does not retry it in this execution).

The canary: a lane that has not proven itself in this worker (no success since the
worker started, or a failure streak now) runs its attempts one at a time. So a broken
key or provider sees exactly ``stop_loss.threshold`` requests before the lane pauses,
not one per free activity slot; once one attempt succeeds the others go at full width.

After: the outcome is noted in the lane's window (``store.stop_loss``; the rules are
``domain.stop_loss``); a note the database cannot take is logged and dropped.

Temporal stays in the activity: it turns a refusal into a final failure
(``workflows.activities``) and names the exceptions that mean the attempt was cancelled
(``cancellations``), which are no failure of the lane.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

from jobctrl.domain.errors import (
    AUTOMATION_PAUSED,
    CANCELED,
    STAGE_INTERNAL_ERROR,
    JobctrlError,
    StageError,
)
from jobctrl.domain.stages import Stage, StageState
from jobctrl.domain.stop_loss import HOST_FAULTS, LANE, counts, paused_message, streak_item
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, stage_control, stage_states, stop_loss

log = logging.getLogger(__name__)
T = TypeVar("T")

# Per (tenant, lane): each tenant's lanes have their own stop-loss windows.
_turns: dict[tuple[str, str], threading.Lock] = {}
_proven: set[tuple[str, str]] = set()  # lanes with a success in this worker, no streak since
_guard = threading.Lock()


def is_refusal(error: StageError) -> bool:
    """The gate's own refusals, which no retry in this execution changes: a paused lane
    waits for the person (recovery retries the row after `jobctrl resume`), a cancel is
    final."""
    return error.code in (AUTOMATION_PAUSED, CANCELED)


@contextlib.contextmanager
def _turn(lane: tuple[str, str], heartbeat: Callable[[], None]) -> Iterator[None]:
    """The lane's one turn in this worker, while it is unproven (heartbeating while it
    waits, so Temporal does not time the waiting attempt out); free once the canary
    succeeded."""
    with _guard:
        turn = _turns.setdefault(lane, threading.Lock())
    while not turn.acquire(timeout=0.5):
        heartbeat()
        if lane in _proven:  # the attempt ahead succeeded: no need to wait any more
            yield
            return
    try:
        yield
    finally:
        turn.release()


def run_gated(
    ctx: StageContext,
    stage: str,
    job_id: str,
    workflow_id: str,
    run_id: str,
    work: Callable[[], T],
    heartbeat: Callable[[], None],
    *,
    cancellations: tuple[type[BaseException], ...] = (),
) -> T:
    """Run ``work`` behind the gate and note its outcome in the lane's window; what it
    raises (refusals included) propagates. An exception of ``cancellations`` (the
    attempt was cancelled) is noted as nothing."""
    seen = stage_control.gate(ctx.store, stage, workflow_id, run_id)
    lane = (ctx.store.tenant, stage)
    if seen.streak:
        with _guard:
            _proven.discard(lane)
    if lane in _proven and not seen.streak:
        return _attempt(ctx, stage, job_id, run_id, seen, work, cancellations)
    with _turn(lane, heartbeat):  # the outcome is noted before the next attempt's gate
        again = stage_control.gate(ctx.store, stage, workflow_id, run_id)  # after the wait
        return _attempt(ctx, stage, job_id, run_id, again, work, cancellations)


def _attempt(
    ctx: StageContext,
    stage: str,
    job_id: str,
    run_id: str,
    seen: stage_control.Gate,
    work: Callable[[], T],
    cancellations: tuple[type[BaseException], ...],
) -> T:
    _refuse(ctx, stage, job_id, run_id, seen)
    try:
        result = work()
    except StageError as error:
        note(ctx, stage, job_id, error.code)
        raise
    except Exception as error:
        if not isinstance(error, cancellations):  # a cancelled attempt fails no lane
            note(ctx, stage, job_id, STAGE_INTERNAL_ERROR)
        raise
    if seen.streak or (ctx.store.tenant, stage) not in _proven:  # else nothing to note
        note(ctx, stage, job_id, None)
    return result


def _refuse(
    ctx: StageContext, stage: str, job_id: str, run_id: str, seen: stage_control.Gate
) -> None:
    if seen.stopped:
        raise StageError(CANCELED, f"the preparation of job {job_id} was cancelled")
    if seen.paused is not None and stage_control.refuse_paused(
        ctx.store, job_id, stage, run_id, seen.paused, clock=ctx.clock
    ):
        raise StageError(
            AUTOMATION_PAUSED, paused_message(LANE, stage, seen.paused), retryable=True
        )


def note(ctx: StageContext, stage: str, job_id: str, code: str | None) -> None:
    """Count the outcome in the lane's window (``None``: the attempt returned; it restarts
    the streak when the stage succeeded, a skip does not count)."""
    try:
        if code is not None:
            if not counts(code):
                return
            with _guard:
                _proven.discard((ctx.store.tenant, stage))
            item = job_id
            if stage == Stage.ENRICH and code in HOST_FAULTS:
                item = streak_item(stage, code, job_id, jobs.job_row(ctx.store, job_id)["url"])
            stop_loss.note_failure(ctx.store, LANE, stage, code, item, clock=ctx.clock)
            return
        rows = [r for r in stage_states.stage_rows(ctx.store, job_id) if r["stage"] == stage]
        if rows and rows[0]["state"] == StageState.SUCCEEDED:
            with _guard:
                _proven.add((ctx.store.tenant, stage))
            stop_loss.note_success(ctx.store, LANE, stage, clock=ctx.clock)
    except JobctrlError as error:
        log.warning("stop-loss note for %s of job %s not saved: %s", stage, job_id, error.code)
