"""What the worker does on its own, through `jobctrl worker` as a person runs it: saved
postings are checked, a preparation a command left unstarted is started, and `retry`
starts a job that has no execution."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable, Iterator

import pytest

from jobctrl.store import jobs
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.processes import WorkerProcess, run_cli

POSTING = posting_html("Platform Engineer", "Upkeep Co", ["Go", "Kubernetes"])


@pytest.fixture
def worker_process(
    home, temporal_address, task_queue, fast_settings
) -> Iterator[Callable[[], WorkerProcess]]:
    """`jobctrl worker` on the test's Temporal server and task queue, heartbeating fast."""
    fast_settings.set_value("worker.heartbeat_seconds", 0.3)
    started: list[WorkerProcess] = []

    def start() -> WorkerProcess:
        process = WorkerProcess()
        started.append(process)
        process.wait_ready()
        return process

    yield start
    for process in started:
        if process.proc.poll() is None:
            process.stop(signal.SIGTERM)


def _eventually(check: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return check()


def _events(job_id: str, type_: str) -> list[dict]:
    lines = run_cli("events", "--job", job_id, "--json").stdout.splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == type_]


def test_a_running_worker_checks_saved_postings(
    home, store, site: FixtureServer, worker_process
) -> None:
    open_job = jobs.create_job(store, site.add("/jobs/open", Route(body=POSTING))).job_id
    closed_job = jobs.create_job(store, site.base_url + "/jobs/closed").job_id  # a 404

    worker = worker_process()

    assert _eventually(lambda: bool(_events(closed_job, "JobAvailabilityChecked")))
    assert _eventually(lambda: bool(_events(open_job, "JobAvailabilityChecked")))
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

    def scored() -> bool:
        shown = json.loads(run_cli("show", listed["jobId"], "--json").stdout)
        return {s["stage"]: s["state"] for s in shown["stages"]}["score"] == "succeeded"

    assert _eventually(scored, timeout=60)
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

    def enriched() -> bool:
        shown = json.loads(run_cli("show", job_id, "--json").stdout)
        return shown["stages"][0]["state"] == "succeeded"

    assert _eventually(enriched, timeout=60)
    again = run_cli("retry", job_id)
    assert again.returncode == 1 and "nothing to retry" in again.stderr


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
        shown = json.loads(run_cli("show", job_id, "--json").stdout)
        return {s["stage"]: s for s in shown["stages"]}["score"]

    assert _eventually(lambda: score()["errorCode"] == "config_invalid")
    assert score()["attempts"] == 0, "waiting for config.yaml uses no attempt"
    time.sleep(1.5)  # several heartbeats
    notices = [line for line in worker.lines if "notice:" in line]
    assert len(notices) == 1 and "config.yaml" in notices[0], worker.lines

    home.config_path.write_text(config)
    assert _eventually(lambda: score()["state"] == "succeeded", timeout=60)
