"""Activities of the preparation workflow: thin adapters from Temporal to the stages.

A ``StageError`` becomes an ``ApplicationError`` whose type is the stable error code
(non-retryable when the error is, with the server's Retry-After as the next delay). Any
other exception is logged here, recorded on the stage as ``INTERNAL_ERROR`` (retryable)
and never crosses into the workflow history as text.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy import select
from temporalio import activity
from temporalio.exceptions import ApplicationError

from jobctrl.domain.errors import OWNERSHIP_LOST, StageError
from jobctrl.domain.stages import StageState
from jobctrl.stages import materials
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, reports, schema
from jobctrl.workflows.models import EnrichResult, FinalizeInput, ScoreResult, StageInput

log = logging.getLogger(__name__)
T = TypeVar("T")
INTERNAL_ERROR = "INTERNAL_ERROR"
STAGE_INTERRUPTED = "STAGE_INTERRUPTED"


def _as_application_error(error: StageError) -> ApplicationError:
    return ApplicationError(
        error.message,
        type=error.code,
        non_retryable=not error.retryable,
        next_retry_delay=error.retry_after,
    )


def _heartbeat(*details: object) -> None:
    """Heartbeat once the attempt has run for a third of its heartbeat timeout.

    Short attempts finish well inside the timeout and send none, which spares the server
    one call per activity; long ones keep telling it they are alive.
    """
    info = activity.info()
    timeout = info.heartbeat_timeout
    if timeout is None or datetime.now(UTC) - info.started_time >= timeout / 3:
        activity.heartbeat(*details)


class PreparationActivities:
    def __init__(self, ctx: StageContext) -> None:
        self.ctx = ctx
        self.ctx.heartbeat = _heartbeat

    def _run(self, stage: str, job_id: str, work: Callable[[str], T]) -> T:
        info = activity.info()
        try:
            return work(info.workflow_run_id)
        except StageError as error:
            log.warning("%s of job %s: %s (attempt %d)", stage, job_id, error.code, info.attempt)
            if error.retryable:
                self._note_next_attempt(job_id, stage, info, error)
            raise _as_application_error(error) from None
        except Exception:
            log.exception("unexpected error in %s for job %s", stage, job_id)
            error = StageError(
                INTERNAL_ERROR, f"unexpected error in {stage}; see the worker log", retryable=True
            )
            self._fail_if_owned(job_id, stage, info.workflow_run_id, error)
            raise _as_application_error(error) from None

    def _note_next_attempt(
        self, job_id: str, stage: str, info: activity.Info, error: StageError
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
        jobs.schedule_retry(
            self.ctx.store, job_id, stage, info.workflow_run_id, datetime.now(UTC) + delay
        )

    def _fail_if_owned(self, job_id: str, stage: str, run_id: str, error: StageError) -> None:
        rows = [r for r in jobs.stage_rows(self.ctx.store, job_id) if r["stage"] == stage]
        if rows and rows[0]["state"] == StageState.RUNNING and rows[0]["owner_run_id"] == run_id:
            with contextlib.suppress(StageError):  # another attempt took over meanwhile
                jobs.fail_stage(self.ctx.store, job_id, stage, run_id, rows[0]["attempts"], error)

    @activity.defn(name="enrich")
    def enrich(self, inp: StageInput) -> EnrichResult:
        outcome = self._run("enrich", inp.job_id, lambda run: enrich(self.ctx, inp.job_id, run))
        return EnrichResult(inp.job_id, outcome.text_artifact, outcome.reused)

    @activity.defn(name="score")
    def score(self, inp: StageInput) -> ScoreResult:
        outcome = self._run(
            "score", inp.job_id, lambda run: score(self.ctx, inp.job_id, run, inp.profile_version)
        )
        return ScoreResult(inp.job_id, outcome.score, outcome.below_threshold, outcome.reused)

    @activity.defn(name="tailor")
    def tailor(self, inp: StageInput) -> int:
        return self._run(
            "tailor",
            inp.job_id,
            lambda run: materials.tailor(self.ctx, inp.job_id, run, inp.profile_version),
        ).generation

    @activity.defn(name="cover")
    def cover(self, inp: StageInput) -> int:
        return self._run(
            "cover",
            inp.job_id,
            lambda run: materials.cover(self.ctx, inp.job_id, run, inp.profile_version),
        ).generation

    @activity.defn(name="render_pdf")
    def render_pdf(self, inp: StageInput) -> int:
        return self._run(
            "pdf", inp.job_id, lambda run: materials.render(self.ctx, inp.job_id, run)
        ).generation

    @activity.defn(name="finalize_preparation")
    def finalize_preparation(self, inp: FinalizeInput) -> None:
        """Settle stage rows this run still owns, then record the workflow's outcome."""
        S = schema.job_stage_states
        with self.ctx.store.read() as conn:
            owned = conn.execute(
                select(S.c.stage, S.c.attempts).where(
                    S.c.job_id == inp.job_id,
                    S.c.owner_run_id == inp.run_id,
                    S.c.state == StageState.RUNNING.value,
                )
            ).all()
        for stage, attempt in owned:
            interrupted = StageError(
                STAGE_INTERRUPTED, f"the {stage} attempt stopped without a result", retryable=True
            )
            try:
                jobs.fail_stage(self.ctx.store, inp.job_id, stage, inp.run_id, attempt, interrupted)
            except StageError as error:
                if error.code != OWNERSHIP_LOST:
                    raise
        if jobs.score_row(self.ctx.store, inp.job_id) is not None:
            # The coordinator (not a stage) numbers and writes the evaluation report.
            reports.write_report(self.ctx.home, self.ctx.store, inp.job_id)
        jobs.record_workflow_closed(
            self.ctx.store,
            workflow_id=inp.workflow_id,
            run_id=inp.run_id,
            job_id=inp.job_id,
            outcome=inp.outcome,
            error_code=inp.error_code,
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
