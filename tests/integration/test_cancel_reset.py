"""Per-job cancel and reset-only, through `jobctrl` as a person runs it (a `jobctrl worker`
process, the CLI) and through the store's fences: a cancelled preparation closes as
WorkflowCanceled with what it finished kept, a late result never flips a cancelled row
back, `retry` starts the job again, and a reset changes local rows only."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select
from temporalio.client import WorkflowExecutionStatus
from temporalio.worker import Replayer

from jobctrl.api.app import create_app
from jobctrl.domain import ids
from jobctrl.domain.errors import OWNERSHIP_LOST, StageError
from jobctrl.store import jobs, schema, stage_control, stage_states, start_intents, tenancy
from jobctrl.worker.run import WORKFLOWS
from jobctrl.workflows.converter import DATA_CONVERTER
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess, run_cli
from tests.support.waiting import eventually

POSTING = posting_html("Platform Engineer", "Cancel Co", ["Python", "Kubernetes"])

# On PostgreSQL too (tests/conftest.py; the `jobctrl` processes inherit
# JOBCTRL_DATABASE_URL from the database_url fixture): the fence refusing a late result,
# reset changing the stage rows (CLI, page, API) and refusing a running stage. Left to
# SQLite (on PostgreSQL they pass but add ~70 s, mostly a worker process, a deliberately
# slow Score and CLI start-ups): the in-flight cancel and retry, and the unstarted intent's
# cancel with the one-line errors (stage_control.cancel_job runs on both stores in the
# fence test).
BOTH_STORES = {
    "test_a_late_result_after_cancel_is_refused_by_the_fence",
    "test_reset_only_changes_local_rows_and_refuses_a_running_stage",
    "test_http_errors_are_codes_and_no_server_changes_nothing",
}


def _rows(store, job_id: str) -> dict[str, dict]:
    return {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}


def _event_types(store, job_id: str) -> list[str]:
    ev = schema.job_events
    with store.read() as conn:
        return list(
            conn.execute(
                select(ev.c.type)
                .where(ev.c.job_id == job_id, tenancy.scoped(ev, conn))
                .order_by(ev.c.seq)
            ).scalars()
        )


async def _page(home, path: str) -> str:
    app = create_app(home, port=8765)
    token = (home.root / "api-token").read_text().strip()
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {token}"},
    ) as api:
        response = await api.get(path)
    assert response.status_code == 200
    return response.text


# Long enough for a cancel (in process: a fraction of a second) to meet Score in flight.
SLOW_SCORE_MS = 4_000


@pytest.fixture
def worker_process(home, temporal_address, task_queue, fast_settings) -> Iterator[WorkerProcess]:
    fast_settings.set_value("worker.heartbeat_seconds", 0.5)
    fast_settings.set_value("recovery.enabled", False)
    fast_settings.set_value("providers.offline.latency_ms", SLOW_SCORE_MS)  # Score is slow
    process = WorkerProcess()
    process.wait_ready()
    yield process
    if process.proc.poll() is None:
        process.stop(signal.SIGTERM)


async def test_cancel_in_flight_ends_canceled_keeps_results_and_retry_starts_again(
    home, store, client, site, fast_settings, worker_process
):
    url = site.add("/jobs/cancel-me", Route(body=POSTING))
    added = json.loads(run_cli("add", url, "--json").stdout)
    job_id, workflow_id = added["jobId"], added["workflowId"]
    assert eventually(lambda: _rows(store, job_id)["score"]["state"] == "running", 60), "in flight"
    score_started = time.monotonic()

    done = run_cli("cancel", job_id, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["jobId"] == job_id and result["canceled"] == [workflow_id]
    assert result["stages"][0] == "score"

    handle = client.get_workflow_handle(workflow_id)
    for _ in range(150):
        if (await handle.describe()).status != WorkflowExecutionStatus.RUNNING:
            break
        await asyncio.sleep(0.2)
    assert (await handle.describe()).status == WorkflowExecutionStatus.CANCELED, "not failed"
    history = await handle.fetch_history()
    replayed = await Replayer(workflows=WORKFLOWS, data_converter=DATA_CONVERTER).replay_workflow(
        history, raise_on_replay_failure=True
    )
    assert replayed.replay_failure is None, "the cancel path replays deterministically"
    # Past the slow Score's own end: a late result must not land.
    await asyncio.sleep(max(0.0, score_started + SLOW_SCORE_MS / 1000 + 1 - time.monotonic()))
    rows = _rows(store, job_id)
    assert rows["enrich"]["state"] == "succeeded", "what it finished stays"
    for stage, row in rows.items():
        if stage != "enrich":
            assert (row["state"], row["error_code"], row["retryable"]) == (
                "failed", "canceled", False,
            ), stage  # fmt: skip
    assert jobs.score_row(store, job_id) is None, "no score from the cancelled attempt"
    types = _event_types(store, job_id)
    assert "WorkflowCanceled" in types and "WorkflowFailed" not in types
    wr = schema.workflow_run_projections
    with store.read() as conn:
        status = conn.execute(
            select(wr.c.status).where(tenancy.scoped(wr, conn), wr.c.workflow_id == workflow_id)
        ).scalar()
    assert status == "canceled"
    sr = stage_control.stop_requests
    with store.read() as conn:
        reasons = list(
            conn.execute(
                select(sr.c.reason).where(tenancy.scoped(sr, conn), sr.c.workflow_id == workflow_id)
            ).scalars()
        )
    assert reasons == ["job_cancel"], "a stop request the heartbeat can re-issue"

    fast_settings.set_value("providers.offline.latency_ms", 0)
    again = run_cli("retry", job_id, "--json")
    assert again.returncode == 0, again.stderr

    def prepared() -> bool:
        rows = _rows(store, job_id)
        return len(rows) == 5 and all(r["state"] == "succeeded" for r in rows.values())

    assert await asyncio.to_thread(eventually, prepared, 60), _rows(store, job_id)


def test_cancel_settles_an_unstarted_intent_and_errors_are_one_line(
    home, store, temporal_address, task_queue
):
    with store.write() as tx:
        job = jobs.create_job_in(tx, "https://example.com/jobs/never-started")
        start_intents.intend(tx, ids.prep_workflow_id(job.idempotency_key, tx.tenant), job.job_id)
    assert start_intents.unstarted_for(store, job.job_id) is not None

    done = run_cli("cancel", job.job_id, "--json", process=True)  # the console script, once
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["canceled"] == []
    assert start_intents.unstarted_for(store, job.job_id) is None, "the worker will not start it"
    assert all(r["error_code"] == "canceled" for r in _rows(store, job.job_id).values())

    for args, words in (
        (("cancel", "nosuchjob"), "no job"),
        (("reset", "nosuchjob", "--stage", "score"), "no job"),
        (("reset", job.job_id, "--stage", "bogus"), "unknown stage"),
        (("resume", "nosuchlane"), "no lane or source"),
    ):
        refused = run_cli(*args)
        assert refused.returncode == 1, args
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "Traceback" not in refused.stderr, lines


def test_a_late_result_after_cancel_is_refused_by_the_fence(store):
    job = jobs.create_job(store, "https://example.com/jobs/late")
    claim = stage_states.claim_stage(store, job.job_id, "enrich", "run-old")
    stage_control.cancel_job(store, job.job_id, [("prep-x", "run-old")])
    with pytest.raises(StageError) as refused, store.write() as tx:
        stage_states.succeed_stage(tx, job.job_id, "enrich", "run-old", claim.attempt)
    assert refused.value.code == OWNERSHIP_LOST
    row = _rows(store, job.job_id)["enrich"]
    assert (row["state"], row["error_code"]) == ("failed", "canceled")
    with pytest.raises(StageError):
        stage_states.fail_stage(
            store, job.job_id, "enrich", "run-old", claim.attempt,
            StageError("STAGE_INTERRUPTED", "late", retryable=True),
        )  # fmt: skip
    assert _rows(store, job.job_id)["enrich"]["error_code"] == "canceled"


async def test_reset_only_changes_local_rows_and_refuses_a_running_stage(
    home, store, client, task_queue, temporal_address
):
    job = jobs.create_job(store, "https://example.com/jobs/reset")
    with store.write() as tx:
        stage_states.ensure_stages(tx, job.job_id, ("enrich", "score", "tailor", "cover", "pdf"))
    for stage in ("enrich", "score", "tailor"):
        claim = stage_states.claim_stage(store, job.job_id, stage, "run-a")
        with store.write() as tx:
            stage_states.succeed_stage(tx, job.job_id, stage, "run-a", claim.attempt)
    claim = stage_states.claim_stage(store, job.job_id, "cover", "run-a")
    stage_states.fail_stage(
        store, job.job_id, "cover", "run-a", claim.attempt,
        StageError("provider_unavailable", "down", retryable=True),
    )  # fmt: skip
    before = _event_types(store, job.job_id)

    done = run_cli("reset", job.job_id, "--stage", "score", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "jobId": job.job_id, "stage": "score", "reset": ["score", "tailor", "cover"],
    }  # fmt: skip
    rows = _rows(store, job.job_id)
    assert [rows[s]["state"] for s in ("enrich", "score", "tailor", "cover", "pdf")] == [
        "succeeded", "pending", "pending", "pending", "pending",
    ]  # fmt: skip
    assert rows["cover"]["error_code"] is None and rows["cover"]["reserved_by"] is None
    added = _event_types(store, job.job_id)[len(before) :]
    assert added == ["StageReset"] * 3, "no WorkflowStarted: nothing was started"
    listed = [w async for w in client.list_workflows(f"TaskQueue = '{task_queue}'")]
    assert listed == [], "Temporal was not asked anything"

    page = await _page(home, f"/jobs/{job.job_id}")
    assert f'data-post="/v1/jobs/{job.job_id}/cancel"' in page, "a Cancel button"
    assert page.count(f'data-post="/v1/jobs/{job.job_id}/reset"') == 5, "a Reset per stage"

    stage_states.claim_stage(store, job.job_id, "score", "run-b")
    page = await _page(home, f"/jobs/{job.job_id}")
    # Not Score while it runs, nor Enrich under it (Score works from Enrich's result).
    assert page.count(f'data-post="/v1/jobs/{job.job_id}/reset"') == 3, "not while it runs"
    for stage in ("score", "enrich"):
        busy = run_cli("reset", job.job_id, "--stage", stage)
        assert busy.returncode == 1 and "STAGE_BUSY" in busy.stderr, stage
        assert "score is running" in busy.stderr
    rows = _rows(store, job.job_id)
    assert (rows["enrich"]["state"], rows["score"]["state"]) == ("succeeded", "running")
    assert run_cli("reset", job.job_id, "--stage", "cover").returncode == 0, "after it: fine"


async def test_http_errors_are_codes_and_no_server_changes_nothing(home, store, no_temporal):
    job = jobs.create_job(store, "https://example.com/jobs/http")
    app = create_app(home, port=8765)
    token = (home.root / "api-token").read_text().strip()
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {token}"},
    ) as api:
        missing = await api.post("/v1/jobs/nosuchjob/cancel")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "job_not_found"
        bad = await api.post(f"/v1/jobs/{job.job_id}/reset", json={"stage": "bogus"})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_input"
        extra = await api.post(f"/v1/jobs/{job.job_id}/reset", json={"stage": "score", "x": 1})
        assert extra.status_code == 422, "unknown fields are refused"
        done = await api.post(f"/v1/jobs/{job.job_id}/reset", json={"stage": "score"})
        assert done.status_code == 200
        assert done.json() == {"jobId": job.job_id, "stage": "score", "reset": ["score"]}
        unknown = await api.post("/v1/stop-loss/lane/nosuchlane/resume")
        assert unknown.status_code == 404

    before = _rows(store, job.job_id)
    refused = run_cli("cancel", job.job_id)
    assert refused.returncode == 2, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert _rows(store, job.job_id) == before, "without a server nothing was changed"
