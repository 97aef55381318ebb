"""The embedded Temporal server dies under a running `jobctrl worker`: the worker starts
it again on the same address and history, a waiting `jobctrl add --wait` carries on, and
nothing but JSON reaches stdout; when it cannot be restarted, the worker says so in one
line and exits 2."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time

import psutil
import pytest

from jobctrl.workflows.client import RuntimeRecord
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.processes import JOBCTRL, WorkerProcess


@pytest.fixture
def embedded(home, settings, monkeypatch) -> None:
    """The worker starts its own server (no JOBCTRL_TEMPORAL_ADDRESS), on its own queue."""
    monkeypatch.delenv("JOBCTRL_TEMPORAL_ADDRESS", raising=False)
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", f"loss-{time.time_ns()}")
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    settings.set_value("fetch.min_host_interval_seconds", 0.0)


def _kill_server(home) -> RuntimeRecord:
    record = RuntimeRecord.load(home.temporal_runtime_file)
    assert record is not None
    os.kill(record.server_pid, signal.SIGKILL)
    return record


def test_a_killed_server_is_restarted_and_a_waiting_add_finishes(
    home, embedded, site: FixtureServer
) -> None:
    url = site.add("/jobs/slow", Route(body=posting_html("SRE", "Loss Co", ["Go"]), delay=3))
    worker = WorkerProcess()
    try:
        worker.wait_ready()
        adding = subprocess.Popen(
            [JOBCTRL, "add", url, "--wait", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for _ in range(100):  # until the add waits: Enrich is fetching the slow page
            if site.hits.get("/jobs/slow"):
                break
            time.sleep(0.1)
        before = _kill_server(home)
        out, err = adding.communicate(timeout=90)

        assert adding.returncode == 0, err
        view = json.loads(out)  # stdout is the JSON and nothing else
        assert {s["stage"]: s["state"] for s in view["stages"]}["score"] == "succeeded"
        assert "Traceback" not in err
        after = RuntimeRecord.load(home.temporal_runtime_file)
        assert after is not None and after.address == before.address
        assert after.server_pid != before.server_pid and psutil.pid_exists(after.server_pid)
        assert worker.proc.poll() is None, "the worker kept running"
    finally:
        code = worker.stop(signal.SIGINT)
    assert code == 0
    assert any("restarting it at" in line for line in worker.lines)
    assert not any("Traceback" in line or "retried" in line for line in worker.lines)


def test_a_server_that_cannot_come_back_stops_the_worker_with_one_line(home, embedded) -> None:
    worker = WorkerProcess()
    worker.wait_ready()
    worker.proc.send_signal(signal.SIGSTOP)  # so that it cannot restart the server first
    record = _kill_server(home)
    host, _, port = record.address.rpartition(":")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        for _ in range(100):  # until the dead server's socket is gone
            try:
                squatter.bind((host, int(port)))  # something else now holds its address
                break
            except OSError:
                time.sleep(0.05)
        squatter.listen(1)
        worker.proc.send_signal(signal.SIGCONT)
        code = worker.proc.wait(timeout=60)

    assert code == 2, "\n".join(worker.lines)
    errors = [line for line in worker.lines if line.startswith("error: ")]
    assert len(errors) == 1 and "could not be restarted" in errors[0]
    assert not any("Traceback" in line for line in worker.lines)
