"""What the worker does on its own, through `jobctrl worker` as a person runs it: saved
postings are checked, a preparation a command left unstarted is started (past one that
cannot be), the heartbeat outlives a busy database, and `retry` starts a job that has no
execution (under its intent's id when it has one, so it is prepared once).

While waiting, a test reads what `jobctrl show`/`events --json` print through the same app
queries in this process (``_stages``, ``_events``): polled as commands, every read paid a
CLI start (seconds of CPU on a loaded 2-core machine); the commands a person types are run
as commands."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from jobctrl.app import activity, queries
from jobctrl.app.jobs import retry_stage
from jobctrl.domain import ids
from jobctrl.domain.executions import WorkflowType
from jobctrl.home import Home
from jobctrl.store import jobs, start_intents, workflow_runs
from jobctrl.worker.recovery import INTENT_GRACE
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.processes import WorkerProcess, run_cli, worker_processes
from tests.support.waiting import eventually

POSTING = posting_html("Platform Engineer", "Upkeep Co", ["Go", "Kubernetes"])


@pytest.fixture
def worker_process(
    home, temporal_address, task_queue, fast_settings
) -> Iterator[Callable[[], WorkerProcess]]:
    """`jobctrl worker` on the test's Temporal server and task queue, heartbeating fast."""
    fast_settings.set_value("worker.heartbeat_seconds", 0.3)
    with worker_processes() as start:
        yield start


def _shown(job_id: str) -> dict[str, Any]:
    """What `jobctrl show JOB --json` prints (the home of JOBCTRL_HOME)."""
    return queries.show_job(Home.resolve(), job_id).to_json()


def _stages(job_id: str) -> dict[str, str]:
    return {s["stage"]: s["state"] for s in _shown(job_id)["stages"]}


def _settled(job_id: str) -> bool:
    """Every stage of the job succeeded or was skipped (none running, failed or pending)."""
    return set(_stages(job_id).values()) <= {"succeeded", "skipped"}


def _events(job_id: str, type_: str) -> list[dict]:
    """The job's events of ``type_``, as `jobctrl events --job JOB --json` lists them."""
    log = activity.event_log(Home.resolve(), 0, limit=100_000)
    return [e.to_json() for e in log if e.job_id == job_id and e.type == type_]


def test_a_running_worker_checks_saved_postings(
    home, store, site: FixtureServer, worker_process
) -> None:
    open_job = jobs.create_job(store, site.add("/jobs/open", Route(body=POSTING))).job_id
    closed_job = jobs.create_job(store, site.base_url + "/jobs/closed").job_id  # a 404

    worker = worker_process()

    assert eventually(lambda: bool(_events(closed_job, "JobAvailabilityChecked")))
    assert eventually(lambda: bool(_events(open_job, "JobAvailabilityChecked")))
    [closed] = _events(closed_job, "JobAvailabilityChecked")
    assert closed["payload"]["availability"] == "unavailable"
    assert closed["payload"]["code"] == "ENRICH_HTTP_NOT_FOUND"
    assert _events(open_job, "JobAvailabilityChecked")[0]["payload"]["availability"] == "active"
    worker.stop(signal.SIGTERM)
    output = "\n".join(worker.lines)
    assert "Not in activity context" not in output and "Traceback" not in output


def test_an_add_that_failed_after_its_commit_is_started_by_the_worker(
    home, site: FixtureServer, worker_process
) -> None:
    config = home.config_path.read_text()
    home.config_path.write_text("profile: [unclosed\n")  # broken between the two writes
    url = site.add("/jobs/orphan", Route(body=POSTING))

    added = run_cli("add", url, "--json")

    assert added.returncode == 1 and "Traceback" not in added.stderr
    assert "saved" in added.stderr, "the person is told the job is kept"
    [listed] = json.loads(run_cli("jobs", "--json").stdout)
    assert listed["status"] == "pending"

    home.config_path.write_text(config)  # fixed: the worker starts what was intended
    worker_process()

    assert eventually(lambda: _stages(listed["jobId"])["score"] == "succeeded", timeout=60)
    assert len(_events(listed["jobId"], "WorkflowStarted")) == 1, "started once"


def test_retry_starts_a_job_that_has_no_execution(
    home, store, site: FixtureServer, worker_process
) -> None:
    job_id = jobs.create_job(store, site.add("/jobs/lost", Route(body=POSTING))).job_id
    assert run_cli("retry", job_id).returncode == 2, "no worker yet: nothing changes"

    worker_process()
    retried = run_cli("retry", job_id, "--json")

    assert retried.returncode == 0, retried.stderr
    assert json.loads(retried.stdout)["stage"] == "enrich"

    # Its preparation runs on past Enrich: once every stage has settled, none is failed.
    assert eventually(lambda: _settled(job_id), timeout=60), _stages(job_id)
    again = run_cli("retry", job_id)
    assert again.returncode == 1 and "nothing to retry" in again.stderr


def test_retry_of_an_added_job_starts_its_intent_so_it_is_prepared_once(
    home, store, site: FixtureServer, worker_process
) -> None:
    worker_process()
    config = home.config_path.read_text()
    home.config_path.write_text("profile: [unclosed\n")  # the add fails after its commit
    added_at = time.monotonic()
    added = run_cli("add", site.add("/jobs/intended", Route(body=POSTING)), "--json")
    assert added.returncode == 1 and "saved" in added.stderr
    [(_, job_id)] = start_intents.unstarted(store, datetime.now(UTC), 10)
    home.config_path.write_text(config)
    # Before the worker's reconciler does (INTENT_GRACE after the add's commit): the
    # command's own service, in this process, as a second CLI process could take longer
    # than that on a loaded machine.
    retried = asyncio.run(retry_stage(home, job_id))

    key = jobs.job_row(store, job_id)["idempotency_key"]
    assert retried.workflow_id == ids.prep_workflow_id(key, "local")
    assert eventually(lambda: _stages(job_id)["score"] == "succeeded", timeout=60)
    # Past the age at which the reconciler starts an unstarted intent, and a few beats.
    time.sleep(max(0.0, INTENT_GRACE.total_seconds() + 1.5 - (time.monotonic() - added_at)))
    assert len(_events(job_id, "WorkflowStarted")) == 1, "one preparation, not two"


def test_retry_asks_temporal_whether_the_preparation_runs(
    home, store, site: FixtureServer, worker_process
) -> None:
    job = jobs.create_job(store, site.add("/jobs/forgotten", Route(body=POSTING)))
    # The store recorded a preparation Temporal does not have (its history was lost, say):
    # by the records it still runs.
    workflow_runs.record_workflow_started(
        store,
        workflow_id=ids.prep_workflow_id(job.idempotency_key, "local"),
        run_id="a-run-temporal-never-had",
        workflow_type=WorkflowType.PREPARATION.value,
        job_id=job.job_id,
    )
    worker_process()

    retried = run_cli("retry", job.job_id, "--json")

    assert retried.returncode == 0, retried.stderr
    assert eventually(lambda: _stages(job.job_id)["enrich"] == "succeeded", timeout=60)


def test_the_worker_starts_intents_past_one_that_cannot_be_started(
    home, store, site: FixtureServer, worker_process
) -> None:
    long_ago = datetime.now(UTC) - timedelta(minutes=5)
    with store.write(clock=lambda: long_ago) as tx:  # the oldest intent: its job is gone
        start_intents.intend(tx, "prep-of-a-job-that-is-gone", "gone0000")
    job = jobs.create_job(store, site.add("/jobs/intended", Route(body=POSTING)))
    with store.write(clock=lambda: long_ago + timedelta(seconds=1)) as tx:
        start_intents.intend(tx, ids.prep_workflow_id(job.idempotency_key, "local"), job.job_id)

    worker = worker_process()

    assert eventually(lambda: _stages(job.job_id)["score"] == "succeeded", timeout=60)
    time.sleep(1.0)  # a few more beats, each meeting the bad intent again
    worker.stop(signal.SIGTERM)
    said = [line for line in worker.lines if "prep-of-a-job-that-is-gone" in line]
    assert len(said) == 1 and "job_not_found" in said[0], worker.lines
    assert not any("Traceback" in line for line in worker.lines)


# Fault injection, imported by `jobctrl worker` at start (sitecustomize): while the file
# JOBCTRL_TEST_BUSY_FLAG names exists, every read of the store fails as a busy database's.
BUSY_READS = """
import os
from contextlib import contextmanager
from pathlib import Path

from jobctrl.domain.errors import DatabaseBusyError
from jobctrl.store.store import Store

_flag = Path(os.environ["JOBCTRL_TEST_BUSY_FLAG"])
_read = Store.read


@contextmanager
def _busy_read(self):
    if _flag.exists():
        raise DatabaseBusyError()
    with _read(self) as conn:
        yield conn


Store.read = _busy_read
"""


def test_a_busy_database_does_not_stop_the_heartbeat(
    home, store, site: FixtureServer, worker_process, tmp_path, monkeypatch
) -> None:
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(BUSY_READS)
    busy = tmp_path / "busy"
    early = jobs.create_job(store, site.add("/jobs/early", Route(body=POSTING))).job_id
    with monkeypatch.context() as env:
        paths = [str(inject), os.environ.get("PYTHONPATH", "")]
        env.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
        env.setenv("JOBCTRL_TEST_BUSY_FLAG", str(busy))
        worker = worker_process()
    # A beat has gone through (its sweep checked the early posting), so the heartbeat beats
    # at its setting's 0.3 s: one that starts busy keeps the 15 s default until a beat reads
    # the setting, and the window below would hold one beat, its successor 15 s away.
    assert eventually(lambda: bool(_events(early, "JobAvailabilityChecked"))), worker.lines
    busy.touch()
    time.sleep(1.5)  # several beats while the database is busy
    busy.unlink()
    job_id = jobs.create_job(store, site.add("/jobs/later", Route(body=POSTING))).job_id

    assert eventually(lambda: bool(_events(job_id, "JobAvailabilityChecked"))), worker.lines
    worker.stop(signal.SIGTERM)
    said = [line for line in worker.lines if "database_busy" in line]
    assert len(said) == 1, worker.lines
    assert not any("Traceback" in line for line in worker.lines)


def test_a_broken_config_yaml_stops_work_with_one_notice_and_it_resumes(
    home, site: FixtureServer, worker_process
) -> None:
    config = home.config_path.read_text()
    worker = worker_process()
    url = site.add("/jobs/slow", Route(body=POSTING, delay=1.5))  # Enrich takes a while
    added = run_cli("add", url, "--json")
    assert added.returncode == 0, added.stderr
    job_id = json.loads(added.stdout)["jobId"]
    home.config_path.write_text("profile: [unclosed\n")  # broken before Score reads it

    def score() -> dict:
        return {s["stage"]: s for s in _shown(job_id)["stages"]}["score"]

    assert eventually(lambda: score()["errorCode"] == "config_invalid")
    assert score()["attempts"] == 0, "waiting for config.yaml uses no attempt"
    time.sleep(1.5)  # several heartbeats
    notices = [line for line in worker.lines if "notice:" in line]
    assert len(notices) == 1 and "config.yaml" in notices[0], worker.lines

    home.config_path.write_text(config)
    assert eventually(lambda: score()["state"] == "succeeded", timeout=60)
