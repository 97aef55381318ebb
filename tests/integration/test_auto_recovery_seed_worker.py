"""The operations seed's three recovery behaviours through `jobctrl worker`, as a person
runs it: recovery's cohorts share ``pipeline_internal_concurrency``; a job whose
application the person abandoned gets no automatic Tailor/Cover; an Enrich refused
because its host name resolved to a private address is reset once it resolves to a
public one. The resolver is a file the test rewrites (``JOBCTRL_FAULT_RESOLVER_FILE``):
never DNS. Backoffs are shrunk through their documented variables."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jobctrl.domain import errors
from jobctrl.domain import public_fetch as rules
from jobctrl.domain.applications import Resolution
from jobctrl.store import (
    applications,
    events,
    jobs,
    recovery,
    recovery_admission,
    stage_states,
    workflow_runs,
)
from jobctrl.testing import hooks
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess, worker_processes
from tests.support.waiting import eventually

SLOW = Route(body=posting_html("SRE", "Shared Co", ["Linux"]), delay=1.0)
HOST = "jobs.example.test"


@pytest.fixture
def resolver_file(tmp_path) -> Any:
    path = tmp_path / "resolver.json"
    path.write_text("{}")
    return path


@pytest.fixture
def worker_process(
    home, temporal_address, task_queue, fast_settings, monkeypatch, resolver_file
) -> Iterator[Callable[..., WorkerProcess]]:
    fast_settings.set_value("worker.heartbeat_seconds", 0.5)
    monkeypatch.setenv(hooks.RECOVERY_BACKOFF_BASE_SECONDS, "0.3")
    monkeypatch.setenv(hooks.RECOVERY_PENDING_GRACE_SECONDS, "0.3")
    monkeypatch.setenv(hooks.PUBLIC_FETCH_RECHECK_BASE_SECONDS, "0.5")
    monkeypatch.setenv(hooks.RESOLVER_FILE, str(resolver_file))
    with worker_processes() as start:
        yield start


def _row(store, job_id: str, stage: str) -> dict[str, Any]:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage)


def _events(store, type_: str, job_id: str) -> list[dict[str, Any]]:
    return [e["payload"] for e in events.job_events(store, job_id) if e["type"] == type_]


def _fail(store, job_id: str, stage: str, error: errors.StageError, run="run-gone") -> None:
    claim = stage_states.claim_stage(store, job_id, stage, run)
    stage_states.fail_stage(store, job_id, stage, run, claim.attempt, error)


def _interrupted() -> errors.StageError:
    return errors.StageError(errors.STAGE_INTERRUPTED, "stopped", retryable=True)


def test_recovery_never_runs_more_than_the_shared_setting(
    store, site, fast_settings, worker_process
) -> None:
    fast_settings.set_value("pipeline_internal_concurrency", 2)
    ids = [jobs.create_job(store, site.add(f"/jobs/{n}", SLOW)).job_id for n in range(6)]
    for job_id in ids:
        _fail(store, job_id, "enrich", _interrupted())
    peak, shares = 0, 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak, shares
        while not stop.is_set():
            running = sum(
                r["state"] == "running" for j in ids for r in stage_states.stage_rows(store, j)
            )
            peak, shares = max(peak, running), max(shares, recovery_admission.in_use(store))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    worker = worker_process()
    try:
        done = eventually(
            lambda: all(_row(store, j, "enrich")["state"] == "succeeded" for j in ids), 120
        )
        assert done, [_row(store, j, "enrich")["state"] for j in ids]
    finally:
        stop.set()
        sampler.join()
        worker.stop(signal.SIGTERM)

    assert peak <= 2 and shares <= 2, (peak, shares)
    assert peak == 2, "the setting's parallelism is used"
    workflow_ids = {
        q["workflowId"]
        for j in ids
        for q in _events(store, "StageQueued", j)
        if q["stage"] == "enrich"
    }
    saved = [recovery.cohort(store, w) for w in workflow_ids]
    assert all(c is not None and c.workers is not None and 1 <= c.workers <= 2 for c in saved)


def _tailor_failed(store, site, name: str) -> str:
    job_id = jobs.create_job(store, site.add(f"/jobs/{name}", SLOW)).job_id
    for stage in ("enrich", "score"):
        claim = stage_states.claim_stage(store, job_id, stage, "run-gone")
        with store.write() as tx:
            stage_states.succeed_stage(tx, job_id, stage, "run-gone", claim.attempt)
    with store.write() as tx:
        stage_states.ensure_stages(tx, job_id, ["tailor", "cover", "pdf"])
        applications.ensure_for_job(tx, job_id, company="Shared Co", role="SRE")
    _fail(store, job_id, "tailor", _interrupted())
    return job_id


def _decline(store, job_id: str) -> None:
    application = applications.get(store, job_id)
    assert application is not None
    with store.write() as tx:
        applications.resolve(tx, application["id"], Resolution.ABANDONED)


def test_a_declined_jobs_tailor_is_left_alone_and_its_reservation_released(
    store, site, worker_process
) -> None:
    reserved = _tailor_failed(store, site, "reserved")
    time.sleep(0.4)  # past the (shrunk) backoff
    cohort = recovery.reserve_cohort(
        store, stage_limit=2, stages=["tailor"], base=0.3, grace=0.3, workers=1
    )
    assert cohort is not None and cohort.job_ids == (reserved,)
    _decline(store, reserved)  # declined after its reservation, before the cohort started
    declined = _tailor_failed(store, site, "declined")
    _decline(store, declined)
    kept = _tailor_failed(store, site, "kept")

    worker = worker_process()
    try:
        assert eventually(lambda: _events(store, "StageQueued", kept), 60)
        assert eventually(lambda: recovery.cohort(store, cohort.workflow_id).state == "closed")
        time.sleep(2.0)  # four more beats
    finally:
        worker.stop(signal.SIGTERM)

    assert [q["stage"] for q in _events(store, "StageQueued", kept)][:1] == ["tailor"]
    assert _events(store, "StageQueued", declined) == [], "never selected"
    assert _row(store, declined, "tailor")["state"] == "failed"
    assert _events(store, "StageReservationReleased", reserved) == [
        {
            "jobId": reserved,
            "stage": "tailor",
            "workflowId": cohort.workflow_id,
            "reason": "apply_declined",
        }
    ]
    row = _row(store, reserved, "tailor")
    assert row["reserved_by"] is None and row["auto_attempts"] == 0, "no attempt used"
    assert workflow_runs.latest_runs(store, cohort.workflow_id) == [], "never started"
    for job_id in (reserved, declined):
        assert applications.get(store, job_id)["status"] == "abandoned"


def test_a_host_that_resolves_public_again_is_rechecked_and_reset(
    store, worker_process, resolver_file
) -> None:
    resolver_file.write_text(json.dumps({HOST: ["10.1.2.3"]}))
    job_id = jobs.create_job(store, f"https://{HOST}/jobs/1").job_id
    _fail(store, job_id, "enrich", rules.UnsafeAddressError(HOST, rules.DNS_NON_PUBLIC))
    literal = jobs.create_job(store, "https://10.0.0.5/jobs/2").job_id
    _fail(store, literal, "enrich", rules.UnsafeAddressError("10.0.0.5", rules.LITERAL_NON_PUBLIC))

    worker = worker_process()
    try:
        first = eventually(lambda: _events(store, "EnrichmentFetchRechecked", job_id), 30)
        assert first and first[0]["result"] == "non_public" and first[0]["host"] == HOST
        assert _row(store, job_id, "enrich")["state"] == "failed"
        resolver_file.write_text(json.dumps({HOST: ["93.184.216.34"]}))  # fixed
        assert eventually(lambda: _events(store, "StageReset", job_id), 30)
    finally:
        worker.stop(signal.SIGTERM)

    checks = _events(store, "EnrichmentFetchRechecked", job_id)
    assert checks[-1]["result"] == "public" and checks[-1]["nextCheckAt"] is None
    assert [c["checks"] for c in checks] == list(range(1, len(checks) + 1))
    assert _events(store, "StageReset", job_id) == [
        {"jobId": job_id, "stage": "enrich", "reason": "public_fetch_condition_resolved"}
    ]
    row = _row(store, job_id, "enrich")
    assert row["state"] == "pending" and row["attempts"] == 1
    assert len(_events(store, "StageFailed", job_id)) == 1
    assert _events(store, "EnrichmentFetchRechecked", literal) == []
    assert _row(store, literal, "enrich")["state"] == "failed"
