"""``pipeline_internal_concurrency`` through the heartbeat step and the recovery workflow
on an in-process worker: every open cohort holds the smaller of its frozen worker count
and its unfinished members, a new cohort gets only what is left (none left: no dispatch
this beat), the worker count is in the execution's input and never rewritten, and a run
never has more members running than its workers."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator

import pytest

from jobctrl.domain import errors
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, recovery, recovery_admission, stage_states
from jobctrl.testing import hooks
from jobctrl.worker import auto_recovery
from jobctrl.worker.auto_recovery import recover_preparations
from tests.support.http import Route, posting_html
from tests.support.loopback import Handler, Request

BOTH_STORES = True  # every test, on SQLite and on PostgreSQL (tests/conftest.py)
SLOW = Route(body=posting_html("SRE", "Slow Co", ["Linux"]), delay=1.5)


def _held(gate: threading.Event) -> Handler:
    """SLOW, once the test opens ``gate``: members stay running until it has counted them
    (a fixed delay alone can run out first on a loaded machine)."""

    def answer(request: Request) -> Route:
        gate.wait(60)
        return SLOW

    return answer


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Opened by the test once it has counted; at teardown in any case (a failed assertion
    must not leave held answers waiting)."""
    event = threading.Event()
    yield event
    event.set()


@pytest.fixture
def ctx(home, store, monkeypatch):
    monkeypatch.setenv(hooks.RECOVERY_BACKOFF_BASE_SECONDS, "0.01")
    context = StageContext(home=home, store=store)
    yield context
    context.close()


def _failed(store, url: str) -> str:
    job_id = jobs.create_job(store, url).job_id
    claim = stage_states.claim_stage(store, job_id, "enrich", "run-gone")
    error = errors.StageError(errors.ENRICH_TIMEOUT, "failed earlier", retryable=True)
    stage_states.fail_stage(store, job_id, "enrich", "run-gone", claim.attempt, error)
    return job_id


def _state(store, job_id: str) -> str:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == "enrich")[
        "state"
    ]


async def _beat(client, ctx, settings) -> int:
    await asyncio.sleep(0.05)  # past the shrunk backoff
    return await recover_preparations(client, ctx, settings.all())


async def _input_concurrency(client, workflow_id: str) -> int:
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    return int(json.loads(started.input.payloads[0].data)["concurrency"])


async def test_cohorts_share_the_setting_and_a_new_one_gets_only_what_is_left(
    store, settings, worker, client, site, ctx, gate
) -> None:
    settings.set_value("pipeline_internal_concurrency", 4)
    first = [_failed(store, site.add(f"/a/{n}", _held(gate))) for n in range(3)]

    assert await _beat(client, ctx, settings) == 3
    [a] = recovery.open_cohorts(store)
    assert a.workers == 3  # at most its size
    assert await _input_concurrency(client, a.workflow_id) == 3

    later = [_failed(store, site.add(f"/b/{n}", _held(gate))) for n in range(3)]
    assert await _beat(client, ctx, settings) == 3
    b = next(c for c in recovery.open_cohorts(store) if c.workflow_id != a.workflow_id)
    assert b.workers == 1, "only what the open cohort left"
    assert await _input_concurrency(client, b.workflow_id) == 1

    third = _failed(store, site.add("/c/0", SLOW))
    assert recovery_admission.in_use(store) == 4
    assert await _beat(client, ctx, settings) == 0, "nothing left: no dispatch this beat"
    assert {c.workflow_id for c in recovery.open_cohorts(store)} == {a.workflow_id, b.workflow_id}

    settings.set_value("pipeline_internal_concurrency", 1)  # never rewrites a started input
    gate.set()
    peak_b = 0
    deadline = asyncio.get_running_loop().time() + 60
    while recovery.open_cohorts(store) or _state(store, third) != "succeeded":
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        running = [j for j in later if _state(store, j) == "running"]
        peak_b = max(peak_b, len(running))
        await recover_preparations(client, ctx, settings.all())
        await asyncio.sleep(0.1)
    assert peak_b == 1, "cohort b ran one member at a time"
    assert all(_state(store, j) == "succeeded" for j in first + later + [third])
    assert await _input_concurrency(client, a.workflow_id) == 3
    assert await _input_concurrency(client, b.workflow_id) == 1


async def test_a_run_runs_at_most_its_workers_members_at_once(
    store, settings, worker, client, site, ctx
) -> None:
    settings.set_value("pipeline_internal_concurrency", 2)
    ids = [_failed(store, site.add(f"/w/{n}", SLOW)) for n in range(5)]

    assert await _beat(client, ctx, settings) == 5
    [cohort] = recovery.open_cohorts(store)
    assert cohort.workers == 2
    peak = 0
    while recovery.cohort(store, cohort.workflow_id).state != "closed":
        peak = max(peak, sum(_state(store, j) == "running" for j in ids))
        assert recovery_admission.in_use(store) <= 2
        await asyncio.sleep(0.05)
    assert peak == 2
    assert all(_state(store, j) == "succeeded" for j in ids)


async def test_a_reserved_cohort_whose_execution_runs_is_kept_though_it_holds_nothing(
    store, settings, client, task_queue, ctx
) -> None:
    """The answer to a cohort's start was lost (it stays ``reserved``) but its execution
    runs, and the member it claimed holds no reservation any more: the next beat must not
    close the cohort (that would free its share of the concurrency while it works) but
    record the running execution as its run."""
    job_id = _failed(store, "https://jobs.example/started-unseen")
    await asyncio.sleep(0.05)  # past the shrunk backoff
    stages = ("enrich", "score", "tailor", "cover", "pdf")
    cohort = recovery.reserve_cohort(store, stage_limit=3, stages=stages, base=0.01)
    assert cohort is not None and cohort.job_ids == (job_id,)
    # Its execution, as Temporal has it (no worker here: it stays running), and its claim.
    handle = await client.start_workflow(
        "PreparationRecoveryWorkflow", id=cohort.workflow_id, task_queue=task_queue
    )
    stage_states.claim_stage(store, job_id, "enrich", handle.result_run_id or "")
    assert recovery_admission.release_declined(store, cohort.workflow_id) == ([], 0)
    try:
        assert await auto_recovery._tend_open_cohorts(client, ctx, settings.all()) == 1
        saved = recovery.cohort(store, cohort.workflow_id)
        assert saved is not None and saved.state != recovery.CLOSED
        assert saved.run_id == handle.result_run_id
    finally:
        await handle.terminate()
