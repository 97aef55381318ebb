"""The baselines: workflows of the same shape as JobPreparationWorkflow whose activities
do nothing, so their rate is the engine's own ceiling here.

- ``BareWorkflow`` (bench/prepare.py): Enrich and Score, then the local finalize.
- ``Bare5Workflow`` (bench/prep_vs_bare.py): all five stages (Enrich, Score, Tailor,
  Cover, PDF), then the local finalize.
- ``Bare5UnsandboxedWorkflow`` (``prep_vs_bare.py --unsandboxed-bare``): the same outside
  Temporal's sandbox, as JobPreparationWorkflow runs.

Each activity has the options the real ones have (start-to-close, heartbeat, retry)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from temporalio import activity, workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from jobctrl.workflows.models import PrepInput, StageInput

TWO = ("bare_enrich", "bare_score")
FIVE = ("bare5_enrich", "bare5_score", "bare5_tailor", "bare5_cover", "bare5_pdf")


def _noop(name: str) -> Callable[[StageInput], str]:
    @activity.defn(name=name)
    def step(inp: StageInput) -> str:
        return inp.job_id

    return step


def _finalize(name: str) -> Callable[[StageInput], None]:
    @activity.defn(name=name)
    def finalize(inp: StageInput) -> None:
        return None

    return finalize


async def _run(inp: PrepInput, steps: tuple[str, ...], finalize: str) -> str:
    retry = RetryPolicy(maximum_attempts=inp.retry.max_attempts)
    heartbeat = timedelta(seconds=inp.retry.heartbeat_timeout_seconds)
    for name in steps:
        await workflow.execute_activity(
            name,
            StageInput(inp.job_id),
            start_to_close_timeout=timedelta(minutes=3),
            heartbeat_timeout=heartbeat,
            retry_policy=retry,
        )
    await workflow.execute_local_activity(
        finalize, StageInput(inp.job_id), start_to_close_timeout=timedelta(seconds=60)
    )
    return inp.job_id


@workflow.defn(name="BareWorkflow")
class BareWorkflow:
    @workflow.run
    async def run(self, inp: PrepInput) -> str:
        return await _run(inp, TWO, "bare_finalize")


@workflow.defn(name="Bare5Workflow")
class Bare5Workflow:
    @workflow.run
    async def run(self, inp: PrepInput) -> str:
        return await _run(inp, FIVE, "bare5_finalize")


@workflow.defn(name="Bare5UnsandboxedWorkflow", sandboxed=False)
class Bare5UnsandboxedWorkflow:
    @workflow.run
    async def run(self, inp: PrepInput) -> str:
        return await _run(inp, FIVE, "bare5_finalize")


ACTIVITIES = [*map(_noop, TWO), _finalize("bare_finalize")]
ACTIVITIES5 = [*map(_noop, FIVE), _finalize("bare5_finalize")]
