"""Activities of the preparation workflow: thin adapters from Temporal to the stages.

Each implements its declaration in ``activity_defs`` (same name, same types). A
``StageError`` becomes an ``ApplicationError`` whose type is the stable error code
(non-retryable when the error is, with the server's Retry-After as the next delay). Any
other exception is logged here, recorded on the stage as ``INTERNAL_ERROR`` (retryable)
and never crosses into the workflow history as text.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TypeVar

from temporalio import activity
from temporalio.exceptions import ApplicationError, CancelledError

from jobctrl.domain.errors import (
    CANCELED,
    OWNERSHIP_LOST,
    STAGE_INTERNAL_ERROR,
    STAGE_INTERRUPTED,
    JobctrlError,
    StageError,
)
from jobctrl.domain.stages import Stage, StageState
from jobctrl.stages import materials, stage_gate
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, reports, stage_control, stage_lookups, stage_states, workflow_runs
from jobctrl.workflows import activity_defs as act
from jobctrl.workflows.models import EnrichResult, FinalizeInput, ScoreResult, StageInput

log = logging.getLogger(__name__)
T = TypeVar("T")


def as_application_error(error: JobctrlError) -> ApplicationError:
    """The failure Temporal records: the code as its type, our short message, no trace."""
    return ApplicationError(
        error.message,
        type=error.code,
        non_retryable=not error.retryable,
        next_retry_delay=error.retry_after,
    )


def _final_refusal(error: StageError) -> ApplicationError:
    """A refusal of the stage gate (``stages.stage_gate.is_refusal``), which Temporal must
    not retry within this execution: a paused lane waits for the person, a cancel is
    final."""
    return ApplicationError(error.message, type=error.code, non_retryable=True)


# The event loop of the async activity running in this context, if any: its blocking work
# runs in threads (asyncio.to_thread copies this context), and the SDK accepts an async
# activity's heartbeat only on its loop.
_activity_loop: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "jobctrl_activity_loop", default=None
)


def heartbeat_from_threads() -> None:
    """Called first by an async activity whose threads heartbeat (``activity_heartbeat``)."""
    _activity_loop.set(asyncio.get_running_loop())


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


F = TypeVar("F", bound=Callable[..., object])


def cooperative(fn: F) -> F:
    """Run a synchronous activity shielded from the SDK's cancellation exception, which it
    would otherwise raise into the attempt's thread wherever that happens to be: inside a
    store transaction, holding a lock, between a paid answer and its record. A cancelled
    attempt (a cancel, a heartbeat timeout) stops instead at its next heartbeat
    (``activity_heartbeat`` raises) or ``ctx.stopping()`` check, and the SDK's own
    exception is raised when the body ends, whatever it returned."""

    @functools.wraps(fn)
    def run(*args: object, **kwargs: object) -> object:
        if not activity.in_activity():
            return fn(*args, **kwargs)
        with activity.shield_thread_cancel_exception():
            return fn(*args, **kwargs)

    return run  # type: ignore[return-value]


def activity_heartbeat(*details: object) -> None:
    """Heartbeat once the attempt has run for a third of its heartbeat timeout.

    Short attempts finish well inside the timeout and send none, which spares the server
    one call per activity; long ones keep telling it they are alive. Outside an activity
    (stage code called by the worker's own heartbeat) there is nothing to tell.
    """
    if not activity.in_activity():
        return
    loop = _activity_loop.get()
    in_thread = loop is not None and not _on_loop(loop)
    # A thread of an async activity: the SDK cannot raise a cancellation into it, so the
    # thread stops itself here; its heartbeats go to the loop, the only place the SDK
    # takes an async activity's heartbeats.
    if in_thread and activity.is_cancelled():
        raise asyncio.CancelledError
    # A synchronous activity runs shielded (``cooperative``): it stops here.
    if loop is None and activity.is_cancelled():
        raise CancelledError("the attempt was cancelled")
    info = activity.info()
    timeout = info.heartbeat_timeout
    if timeout is not None and datetime.now(UTC) - info.started_time < timeout / 3:
        return
    if in_thread:
        assert loop is not None
        beat = functools.partial(activity.heartbeat, *details)
        loop.call_soon_threadsafe(beat, context=contextvars.copy_context())
    else:
        activity.heartbeat(*details)


@contextlib.contextmanager
def activity_keep_alive() -> Iterator[None]:
    """Heartbeat every third of the heartbeat timeout from a thread of its own while the
    block runs (a provider call that blocks this attempt's thread for longer than the
    timeout), so Temporal does not time the attempt out and start a second one that pays
    again. Stops the moment the block returns or raises. The thread runs in a copy of this
    context (the SDK's activity context). A cancellation its heartbeats bring back is
    raised into the attempt's thread when the block ends (the SDK's shield), not while it
    runs: raised into a thread blocked on the provider it would land the moment the paid
    answer arrives, before its usage and the answer are recorded. Outside an activity,
    nothing to do; without a heartbeat timeout, only the shield."""
    if not activity.in_activity():
        yield
        return
    if activity.info().heartbeat_timeout is None:
        with activity.shield_thread_cancel_exception():
            yield
        return
    timeout = activity.info().heartbeat_timeout
    assert timeout is not None
    every = max(0.05, timeout.total_seconds() / 3)
    stop = threading.Event()
    context = contextvars.copy_context()

    def beat() -> None:
        while not stop.wait(every):
            try:
                activity_heartbeat()
            except (CancelledError, asyncio.CancelledError):
                return  # cancelled: raised into the attempt when the block ends
            except BaseException:  # the worker is shutting down
                log.debug("keep-alive heartbeat not sent", exc_info=True)

    thread = threading.Thread(target=context.run, args=(beat,), name="keep-alive", daemon=True)
    thread.start()
    try:
        with activity.shield_thread_cancel_exception():
            yield
    finally:
        stop.set()


def activity_cancelled() -> bool:
    """True inside an activity whose cancellation was requested."""
    return activity.in_activity() and activity.is_cancelled()


class PreparationActivities:
    """Stages run with ``ctx``, whose heartbeat should be ``activity_heartbeat``, acting
    for the tenant each input names (``ctx.for_tenant``)."""

    def __init__(self, ctx: StageContext) -> None:
        self.ctx = ctx

    def _run(self, ctx: StageContext, stage: str, job_id: str, work: Callable[[str], T]) -> T:
        info = activity.info()
        run_id = info.workflow_run_id or ""  # always set for an activity of a workflow
        workflow_id = info.workflow_id or ""
        try:
            result = stage_gate.run_gated(
                ctx,
                stage,
                job_id,
                workflow_id,
                run_id,
                lambda: work(run_id),
                activity_heartbeat,
                cancellations=(CancelledError,),
            )
        except StageError as error:
            log.warning("%s of job %s: %s (attempt %d)", stage, job_id, error.code, info.attempt)
            if stage_gate.is_refusal(error):
                raise _final_refusal(error) from None
            if error.retryable:
                self._note_next_attempt(ctx, job_id, stage, run_id, info, error)
            raise as_application_error(error) from None
        except CancelledError:
            raise  # Temporal cancelled this attempt (a cancelled job): no failure of the lane
        except Exception:
            log.exception("unexpected error in %s for job %s", stage, job_id)
            internal = StageError(
                STAGE_INTERNAL_ERROR,
                f"unexpected error in {stage}; see the worker log",
                retryable=True,
            )
            self._fail_if_owned(ctx, job_id, stage, run_id, internal)
            raise as_application_error(internal) from None
        return result

    def _note_next_attempt(
        self,
        ctx: StageContext,
        job_id: str,
        stage: str,
        run_id: str,
        info: activity.Info,
        error: StageError,
    ) -> None:
        """Record when Temporal will try again (none after the last attempt)."""
        policy = info.retry_policy
        if policy is None or (policy.maximum_attempts and info.attempt >= policy.maximum_attempts):
            return
        delay = error.retry_after or policy.initial_interval * (
            policy.backoff_coefficient ** (info.attempt - 1)
        )
        if policy.maximum_interval is not None:
            delay = min(delay, policy.maximum_interval)
        stage_states.schedule_retry(ctx.store, job_id, stage, run_id, ctx.now() + delay)

    def _fail_if_owned(
        self, ctx: StageContext, job_id: str, stage: str, run_id: str, error: StageError
    ) -> None:
        rows = [r for r in stage_states.stage_rows(ctx.store, job_id) if r["stage"] == stage]
        if rows and rows[0]["state"] == StageState.RUNNING and rows[0]["owner_run_id"] == run_id:
            with contextlib.suppress(StageError):  # another attempt took over meanwhile
                stage_states.fail_stage(
                    ctx.store, job_id, stage, run_id, rows[0]["attempts"], error, clock=ctx.clock
                )

    @activity.defn(name=act.ENRICH)
    @cooperative
    def enrich(self, inp: StageInput) -> EnrichResult:
        ctx = self.ctx.for_tenant(inp.tenant_id)
        outcome = self._run(ctx, Stage.ENRICH, inp.job_id, lambda run: enrich(ctx, inp.job_id, run))
        return EnrichResult(inp.job_id, outcome.text_artifact, outcome.reused)

    @activity.defn(name=act.SCORE)
    @cooperative
    def score(self, inp: StageInput) -> ScoreResult:
        ctx = self.ctx.for_tenant(inp.tenant_id)
        outcome = self._run(
            ctx,
            Stage.SCORE,
            inp.job_id,
            lambda run: score(
                ctx,
                inp.job_id,
                run,
                inp.profile_version,
                materials=inp.materials,
                paid=inp.paid_score,
            ),
        )
        return ScoreResult(inp.job_id, outcome.score, outcome.below_threshold, outcome.reused)

    @activity.defn(name=act.TAILOR)
    @cooperative
    def tailor(self, inp: StageInput) -> int:
        ctx = self.ctx.for_tenant(inp.tenant_id)
        return self._run(
            ctx,
            Stage.TAILOR,
            inp.job_id,
            lambda run: materials.tailor(ctx, inp.job_id, run, inp.profile_version),
        ).generation

    @activity.defn(name=act.COVER)
    @cooperative
    def cover(self, inp: StageInput) -> int:
        ctx = self.ctx.for_tenant(inp.tenant_id)
        return self._run(
            ctx,
            Stage.COVER,
            inp.job_id,
            lambda run: materials.cover(ctx, inp.job_id, run, inp.profile_version),
        ).generation

    @activity.defn(name=act.RENDER_PDF)
    @cooperative
    def render_pdf(self, inp: StageInput) -> int:
        ctx = self.ctx.for_tenant(inp.tenant_id)
        return self._run(
            ctx, Stage.PDF, inp.job_id, lambda run: materials.render(ctx, inp.job_id, run)
        ).generation

    @activity.defn(name=act.FINALIZE_PREPARATION)
    @cooperative
    def finalize_preparation(self, inp: FinalizeInput) -> None:
        """Settle stage rows this run still owns, then record the workflow's outcome."""
        ctx = self.ctx.for_tenant(inp.tenant_id)
        store = ctx.store
        canceled = inp.outcome == CANCELED
        for stage, attempt in stage_lookups.running_stages_owned_by(store, inp.job_id, inp.run_id):
            interrupted = (
                StageError(CANCELED, stage_control.CANCELED_MESSAGE)
                if canceled
                else StageError(
                    STAGE_INTERRUPTED,
                    f"the {stage} attempt stopped without a result",
                    retryable=True,
                )
            )
            try:
                stage_states.fail_stage(
                    store, inp.job_id, stage, inp.run_id, attempt, interrupted, clock=ctx.clock
                )
            except StageError as error:
                if error.code != OWNERSHIP_LOST:
                    raise
        if jobs.score_row(store, inp.job_id) is not None:
            # The coordinator (not a stage) numbers and writes the evaluation report.
            reports.write_report(ctx.home, store, inp.job_id, clock=ctx.clock)
        if canceled:  # cooperatively: what the run finished stays
            workflow_runs.record_workflow_canceled(
                store,
                workflow_id=inp.workflow_id,
                run_id=inp.run_id,
                job_id=inp.job_id,
                clock=ctx.clock,
            )
            return
        workflow_runs.record_workflow_closed(
            store,
            workflow_id=inp.workflow_id,
            run_id=inp.run_id,
            job_id=inp.job_id,
            outcome=inp.outcome,
            error_code=inp.error_code,
            clock=ctx.clock,
        )

    def all(self) -> list[Callable[..., object]]:
        return [
            self.enrich,
            self.score,
            self.tailor,
            self.cover,
            self.render_pdf,
            self.finalize_preparation,
        ]
