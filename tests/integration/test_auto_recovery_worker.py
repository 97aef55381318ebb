"""Automatic preparation recovery through `jobctrl worker`, as a person runs it: a stage
that failed for a passing reason is re-dispatched by the heartbeat until the job is
prepared; a wrong key, a cancelled row and an exhausted row are left alone; a worker
killed between reserving a cohort and starting it starts that same cohort on restart.

The provider is a loopback OpenAI-compatible server. The backoff base and the pending
grace are shrunk through their documented variables (production: 60 s and 30 s)."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import select

from jobctrl.app.jobs import add_job
from jobctrl.app.lanes import set_lane
from jobctrl.domain import errors
from jobctrl.store import jobs, recovery, schema, stage_states, tenancy, workflow_runs
from jobctrl.testing import hooks
from tests.support.fake_openai import SCORE_REPORT, FakeOpenAI
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess, run_cli, worker_processes
from tests.support.waiting import eventually

# On PostgreSQL too (tests/conftest.py), only the cohort a killed worker left reserved in
# the store and its restart started (~19 s a store). The other three (30-40 s a store
# each, all passed on PostgreSQL under the tenant guard) test the provider's answers and
# the retry policy; their store side (cohorts, admission, attempts) is
# test_auto_recovery_workflow's and _concurrency's, run on both stores in process.
BOTH_STORES = {"test_a_worker_killed_after_reserving_starts_that_same_cohort_on_restart"}
POSTING = posting_html("Backend Engineer", "Recovery Co", ["Python", "PostgreSQL"])


class FlakyOpenAI(FakeOpenAI):
    """Answers ``failing`` (a FakeOpenAI error mode) to the first ``failures`` calls, then
    ``ok``."""

    def __init__(self, failures: int, failing: str = "server_error") -> None:
        super().__init__("ok", SCORE_REPORT)
        self.failures, self.failing = failures, failing
        self.lock = threading.Lock()

    def _answer(self, request):  # type: ignore[no-untyped-def]
        with self.lock:
            self.mode = self.failing if self.failures > 0 else "ok"
            self.failures -= 1
        return super()._answer(request)


@pytest.fixture
def worker_process(
    home, temporal_address, task_queue, fast_settings, monkeypatch
) -> Iterator[Callable[..., WorkerProcess]]:
    """`jobctrl worker` beating every 0.5 s, with the recovery backoff shrunk."""
    fast_settings.set_value("worker.heartbeat_seconds", 0.5)
    monkeypatch.setenv(hooks.RECOVERY_BACKOFF_BASE_SECONDS, "0.3")
    monkeypatch.setenv(hooks.RECOVERY_PENDING_GRACE_SECONDS, "0.3")
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with worker_processes() as start:
        yield start


def _states(store, job_id: str) -> dict[str, str]:
    return {r["stage"]: r["state"] for r in stage_states.stage_rows(store, job_id)}


def _events(store, type_: str, job_id: str | None = None) -> list[dict[str, Any]]:
    e = schema.job_events
    with store.read() as conn:
        query = select(e.c.payload).where(tenancy.scoped(e, conn), e.c.type == type_)
        if job_id is not None:
            query = query.where(e.c.job_id == job_id)
        return [dict(p) for p in conn.execute(query.order_by(e.c.seq)).scalars()]


def _row(store, job_id: str, stage: str) -> dict[str, Any]:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage)


def _fail(store, job_id: str, stage: str, code: str, *, retryable: bool) -> None:
    claim = stage_states.claim_stage(store, job_id, stage, "run-gone")
    error = errors.StageError(code, "failed before this test's worker", retryable=retryable)
    stage_states.fail_stage(store, job_id, stage, "run-gone", claim.attempt, error)


async def test_a_score_that_failed_on_a_5xx_is_recovered_until_the_job_is_prepared(
    home, store, site, worker_process
) -> None:
    with FlakyOpenAI(failures=2) as provider:  # the preparation's two attempts get a 500
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        worker = worker_process()
        view = await add_job(home, site.add("/jobs/flaky", Route(body=POSTING)))
        job_id = view.job_id

        assert eventually(lambda: _events(store, "StageFailed", job_id), 120), "Score failed first"
        failed = _events(store, "StageFailed", job_id)[0]
        assert failed["stage"] == "score" and failed["errorCode"] == errors.PROVIDER_UNAVAILABLE
        assert eventually(lambda: _states(store, job_id).get("pdf") == "succeeded", 120), _states(
            store, job_id
        )
        # The last cohort's run closes just after its member's row: wait for it, not for
        # the row alone, before stopping the worker (else its run is still open).
        assert eventually(lambda: recovery.open_cohorts(store) == [], 120), recovery.open_cohorts(
            store
        )
    worker.stop(signal.SIGTERM)

    assert set(_states(store, job_id).values()) == {"succeeded"}
    assert json.loads(run_cli("show", job_id, "--json").stdout)["status"] == "prepared"
    # Scored by recovery, not by its preparation: the cohort's finish wrote its report.
    written = _events(store, "ReportWritten", job_id)
    assert len(written) == 1, written
    assert (home.root / written[0]["path"]).is_file()
    queued = _events(store, "StageQueued", job_id)
    assert len(provider.requests) == 3, ("two 500s, then one answer", queued)
    # A later heartbeat selects the next stage: one cohort per stage, in order.
    assert [q["stage"] for q in queued] == ["score", "tailor", "cover", "pdf"], queued
    assert queued[0]["priorState"] == "failed" and queued[0]["autoAttempt"] == 1
    assert all(q["priorState"] == "pending" for q in queued[1:])
    assert all(q["workflowId"].startswith("prepare-auto-local-") for q in queued)
    assert _row(store, job_id, "score")["auto_attempts"] == 1
    runs = [r for q in queued for r in workflow_runs.latest_runs(store, q["workflowId"], 5)]
    assert len(runs) == 4, "one execution per cohort"
    assert all(
        r["status"] == "completed" and r["workflow_type"] == "PreparationRecoveryWorkflow"
        for r in runs
    )
    assert recovery.open_cohorts(store) == []
    assert all(r["reserved_by"] is None for r in stage_states.stage_rows(store, job_id))


async def test_a_wrong_key_and_a_cancelled_row_are_never_retried_automatically(
    home, store, site, worker_process
) -> None:
    canceled = jobs.create_job(store, site.add("/jobs/canceled", Route(body=POSTING))).job_id
    _fail(store, canceled, "enrich", errors.CANCELED, retryable=False)
    interrupted = jobs.create_job(store, site.add("/jobs/interrupted", Route(body=POSTING))).job_id
    _fail(store, interrupted, "enrich", errors.STAGE_INTERRUPTED, retryable=True)
    with FlakyOpenAI(failures=1000, failing="unauthorized") as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        worker = worker_process()
        view = await add_job(home, site.add("/jobs/auth", Route(body=POSTING)))
        # The interrupted Enrich is recovered (the heartbeat works), its Score meets the
        # same wrong key; neither 401 is ever sent again.
        for job_id in (view.job_id, interrupted):
            assert eventually(lambda j=job_id: _states(store, j).get("score") == "failed", 120)
            assert _row(store, job_id, "score")["error_code"] == errors.PROVIDER_AUTH
        time.sleep(3.0)  # six more beats
        worker.stop(signal.SIGTERM)

    assert len(provider.requests) == 2, "one 401 per job, never retried"
    # Enrich recovered, then its pending Score in a cohort of its own; the 401 never again.
    assert [q["stage"] for q in _events(store, "StageQueued", interrupted)] == ["enrich", "score"]
    assert _events(store, "StageQueued", view.job_id) == []
    assert _events(store, "StageQueued", canceled) == []
    assert _row(store, canceled, "enrich")["state"] == "failed"
    demand = recovery.retry_demand(store, _row(store, canceled, "enrich")["updated_at"])
    assert demand == {"due": 0, "waiting": 0}


async def test_automatic_attempts_stop_at_the_cap(home, store, site, fast_settings, worker_process):
    fast_settings.set_value("retry.max_attempts", 2)  # two automatic attempts at most
    with FlakyOpenAI(failures=1000) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        worker = worker_process()
        view = await add_job(home, site.add("/jobs/down", Route(body=POSTING)))
        job_id = view.job_id
        assert eventually(lambda: _row(store, job_id, "score")["auto_attempts"] == 2, 120)
        assert eventually(lambda: not recovery.open_cohorts(store), 120)
        time.sleep(3.0)  # past a third backoff (0.3 * 2**2 s), six more beats
        worker.stop(signal.SIGTERM)

    row = _row(store, job_id, "score")
    assert row["state"] == "failed" and row["error_code"] == errors.PROVIDER_UNAVAILABLE
    assert row["auto_attempts"] == 2 and row["reserved_by"] is None
    assert len(provider.requests) == 4, "the preparation's two attempts and two automatic"
    assert [q["autoAttempt"] for q in _events(store, "StageQueued", job_id)] == [1, 2]
    assert recovery.retry_demand(store, row["updated_at"]) == {"due": 0, "waiting": 0}


def test_a_worker_killed_after_reserving_starts_that_same_cohort_on_restart(
    home, store, site, worker_process, monkeypatch
) -> None:
    job_id = jobs.create_job(store, site.add("/jobs/reserved", Route(body=POSTING))).job_id
    _fail(store, job_id, "enrich", errors.ENRICH_TIMEOUT, retryable=True)
    time.sleep(0.4)  # past its (shrunk) backoff

    monkeypatch.setenv(hooks.EXIT_AFTER_RECOVERY_RESERVE, "1")
    first = worker_process(ready=False)
    assert first.proc.wait(60) == 137, first.lines
    [reserved] = recovery.open_cohorts(store)
    assert reserved.state == "reserved" and reserved.job_ids == (job_id,)
    assert _row(store, job_id, "enrich")["reserved_by"] == reserved.workflow_id
    assert workflow_runs.latest_runs(store, reserved.workflow_id) == []  # never started

    monkeypatch.delenv(hooks.EXIT_AFTER_RECOVERY_RESERVE)
    worker = worker_process()
    assert eventually(lambda: _states(store, job_id).get("enrich") == "succeeded", 120)
    assert eventually(lambda: recovery.cohort(store, reserved.workflow_id).state == "closed", 120)
    worker.stop(signal.SIGTERM)

    enrich_queued = [q for q in _events(store, "StageQueued", job_id) if q["stage"] == "enrich"]
    assert [q["workflowId"] for q in enrich_queued] == [reserved.workflow_id], "no second cohort"
    [run] = workflow_runs.latest_runs(store, reserved.workflow_id, 5)
    assert run["status"] == "completed"
    assert _row(store, job_id, "enrich")["auto_attempts"] == 1
