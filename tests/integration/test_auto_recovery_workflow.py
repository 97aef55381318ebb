"""The recovery workflow and the heartbeat step on an in-process worker: a cancelled
cohort settles what it claimed and releases what it did not; a cohort whose execution
was terminated is released by the next beat; a spent budget, a paused lane and
``recovery.enabled`` off dispatch nothing."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import WorkflowFailureError

from jobctrl.domain import errors
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, recovery, stage_states, stop_loss, workflow_runs
from jobctrl.testing import hooks
from jobctrl.worker import auto_recovery
from jobctrl.worker.auto_recovery import recover_preparations
from tests.support.http import Route, posting_html
from tests.support.waiting import eventually_async

BOTH_STORES = True  # every test, on SQLite and on PostgreSQL (tests/conftest.py)
SLOW = Route(body=posting_html("SRE", "Slow Co", ["Linux"]), delay=2.0)


@pytest.fixture
def ctx(home, store, monkeypatch):
    monkeypatch.setenv(hooks.RECOVERY_BACKOFF_BASE_SECONDS, "0.01")
    context = StageContext(home=home, store=store)
    yield context
    context.close()


def _failed(store, url: str, stage: str = "enrich", code: str = errors.ENRICH_TIMEOUT) -> str:
    job_id = jobs.create_job(store, url).job_id
    if stage == "score":
        claim = stage_states.claim_stage(store, job_id, "enrich", "run-gone")
        with store.write() as tx:
            stage_states.succeed_stage(tx, job_id, "enrich", "run-gone", claim.attempt)
    claim = stage_states.claim_stage(store, job_id, stage, "run-gone")
    error = errors.StageError(code, "failed earlier", retryable=True)
    stage_states.fail_stage(store, job_id, stage, "run-gone", claim.attempt, error)
    return job_id


def _row(store, job_id: str, stage: str = "enrich") -> dict:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage)


async def _beat(client, ctx, settings) -> int:
    await asyncio.sleep(0.05)  # past the shrunk backoff
    return await recover_preparations(client, ctx, settings.all())


async def test_a_cancelled_cohort_settles_what_it_claimed_and_releases_the_rest(
    store, settings, worker, client, site, ctx, monkeypatch
) -> None:
    settings.set_value("pipeline_internal_concurrency", 1)  # one member at a time
    first = _failed(store, site.add("/slow/1", SLOW))
    second = _failed(store, site.add("/slow/2", SLOW))
    before = _row(store, second)

    assert await _beat(client, ctx, settings) == 2
    [cohort] = recovery.open_cohorts(store)
    claimed = await eventually_async(
        lambda: [j for j in cohort.job_ids if _row(store, j)["state"] == "running"],
        30,
        what="the cohort's members to run",
    )
    await client.get_workflow_handle(cohort.workflow_id).cancel()
    with pytest.raises(WorkflowFailureError):
        await client.get_workflow_handle(cohort.workflow_id).result()

    [ran] = claimed
    [waited] = [j for j in (first, second) if j != ran]
    assert recovery.cohort(store, cohort.workflow_id).state == "closed"
    interrupted = _row(store, ran)
    assert (
        interrupted["state"] == "failed" and interrupted["error_code"] == errors.STAGE_INTERRUPTED
    )
    assert interrupted["auto_attempts"] == 1 and interrupted["retryable"]
    released = _row(store, waited)
    assert released["reserved_by"] is None and released["auto_attempts"] == 0
    for key in ("state", "attempts", "error_code"):
        assert released[key] == before[key]
    [run] = workflow_runs.latest_runs(store, cohort.workflow_id)
    assert run["status"] == "canceled" and run["workflow_type"] == "PreparationRecoveryWorkflow"


async def test_a_terminated_cohort_is_released_by_the_next_beat(
    store, settings, worker, client, site, ctx
) -> None:
    job_ids = [_failed(store, site.add(f"/slow/{n}", SLOW)) for n in range(3)]
    assert await _beat(client, ctx, settings) == 3
    [cohort] = recovery.open_cohorts(store)
    running = await eventually_async(
        lambda: [j for j in job_ids if _row(store, j)["state"] == "running"] or None,
        30,
        what="the cohort's members to run",
    )
    await client.get_workflow_handle(cohort.workflow_id).terminate()

    waiting = [j for j in job_ids if j not in running]
    # The beat releases the members it never claimed, and they are free for a new cohort
    # at once; the rows still running under the terminated run are not (busy jobs).
    assert await _beat(client, ctx, settings) == len(waiting)

    assert recovery.cohort(store, cohort.workflow_id).state == "closed"
    [again] = recovery.open_cohorts(store)
    assert again.workflow_id != cohort.workflow_id and set(again.job_ids) == set(waiting)
    assert all(_row(store, j)["auto_attempts"] == 0 for j in waiting), "no attempt charged"


async def test_a_spent_budget_or_a_paused_lane_dispatches_nothing(
    store, settings, worker, client, site, ctx
) -> None:
    job_id = _failed(store, site.add("/jobs/s", SLOW), "score", errors.PROVIDER_UNAVAILABLE)
    settings.set_value("daily_budget_usd", 0.01)
    SpendAuthority(store, settings).record(
        observation_id="o1", lane="score", provider="openai", model="gpt-4o",
        usage=Usage(100_000, 50_000),
    )  # fmt: skip
    assert await _beat(client, ctx, settings) == 0, "spend preflight at dispatch"

    settings.set_value("daily_budget_usd", 0.0)  # no ceiling
    stop_loss.note_failure(store, "lane", "score", errors.PROVIDER_AUTH, "other", threshold=1)
    assert stop_loss.is_paused(store, "lane", "score") is not None
    assert await _beat(client, ctx, settings) == 0, "the lane is paused"

    settings.set_value("recovery.enabled", False)
    stop_loss.resume(store, "lane", "score")
    assert await _beat(client, ctx, settings) == 0, "recovery is off"
    assert _row(store, job_id, "score")["reserved_by"] is None

    settings.set_value("recovery.enabled", True)
    assert await _beat(client, ctx, settings) == 1
    [cohort] = recovery.open_cohorts(store)
    assert cohort.stage == "score" and cohort.job_ids == (job_id,)


async def test_a_cohort_whose_run_cannot_be_found_is_released_after_a_grace(
    store, settings, client, site, ctx, monkeypatch
) -> None:
    """Its history lost (here: the run id it was bound to names no execution), a started
    cohort would hold its jobs and an open-cohort place for good: after the grace the
    beat closes it and releases the members it never claimed. No worker polls, so no
    member is ever claimed."""
    job_ids = [_failed(store, site.add(f"/lost/{n}", SLOW)) for n in range(2)]
    assert await _beat(client, ctx, settings) == 2
    [cohort] = recovery.open_cohorts(store)
    assert recovery.bind_run(store, cohort.workflow_id, "0195b0c4-0000-7000-8000-00000000dead")
    monkeypatch.setattr(auto_recovery, "MISSING_GRACE_SECONDS", 0)
    await _beat(client, ctx, settings)  # first seen missing: the grace starts
    await _beat(client, ctx, settings)
    assert recovery.cohort(store, cohort.workflow_id).state == "closed"
    assert all(_row(store, j)["reserved_by"] != cohort.workflow_id for j in job_ids)
    assert all(_row(store, j)["auto_attempts"] == 0 for j in job_ids), "no attempt charged"
    await client.get_workflow_handle(cohort.workflow_id).terminate()
