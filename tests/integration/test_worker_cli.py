"""The embedded Temporal server: started by `jobctrl worker`, found by other commands,
stopped on exit; a clear one-line error (exit 2) when nothing can be reached."""

from __future__ import annotations

import contextlib
import json
import signal
import sqlite3
import time

import psutil

from jobctrl.worker.devserver import RuntimeRecord
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess, run_cli
from tests.support.waiting import eventually


def test_worker_runs_embedded_temporal_that_add_finds(home, site, settings, monkeypatch):
    monkeypatch.delenv("JOBCTRL_TEMPORAL_ADDRESS", raising=False)
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", f"cli-{time.time_ns()}")
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    settings.set_value("fetch.min_host_interval_seconds", 0.0)
    settings.set_value("temporal.retention_days", 45)  # the dev server's own default: 1
    url = site.add("/jobs/cli", Route(body=posting_html("Platform Engineer", "Cli Co", ["Go"])))

    worker = WorkerProcess()
    try:
        worker.wait_ready()
        record = RuntimeRecord.load(home.temporal_runtime_file)
        assert record is not None and record.address.startswith("127.0.0.1:")
        assert psutil.pid_exists(record.server_pid)
        assert home.temporal_db_path.exists(), "history is kept in a SQLite file in the home"
        # A commit appends to the write-ahead log, synced once (not journal + database).
        uri = f"file:{home.temporal_db_path}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as history:
            assert history.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        # The worker set its server's history retention from the setting (issue 34).
        doctor = run_cli("doctor", "--json")
        checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
        assert checks["temporal"]["details"]["embedded"] is True
        assert checks["retention"]["status"] == "ok"
        assert checks["retention"]["details"]["retentionDays"] == 45

        def workers() -> dict:
            found = json.loads(run_cli("doctor", "--json").stdout)["checks"]
            return next(c for c in found if c["name"] == "workers")

        # It polls, reports and holds the heartbeat's duties (its first beat may be due).
        assert eventually(lambda: workers()["status"] == "ok", 30), workers()

        added = run_cli("add", url, "--wait", "--json")
        assert added.returncode == 0, added.stderr
        view = json.loads(added.stdout)
        assert (
            view["jobId"]
            and {s["stage"]: s["state"] for s in view["stages"]}["score"] == "succeeded"
        )

        listed = json.loads(run_cli("jobs", "--json").stdout)
        assert [j["jobId"] for j in listed] == [view["jobId"]]
        shown = json.loads(run_cli("show", view["jobId"][:6], "--json").stdout)
        assert shown["title"] == "Platform Engineer"
        assert shown["scoreReport"]["requirements"]
        assert "JobScored" in run_cli("events").stdout
    finally:
        code = worker.stop(signal.SIGINT)
    assert code == 0
    deadline = time.monotonic() + 10
    while psutil.pid_exists(record.server_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (
        not psutil.pid_exists(record.server_pid)
        or psutil.Process(record.server_pid).status() == psutil.STATUS_ZOMBIE
    )
    assert not home.temporal_runtime_file.exists()

    failed = run_cli("add", url)
    assert failed.returncode == 2
    assert failed.stderr.count("\n") == 1 and "jobctrl up" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_unreachable_configured_server_is_exit_2(home, monkeypatch):
    monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", "127.0.0.1:9")
    result = run_cli("add", "https://jobs.example.com/1", process=True)  # the console script
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_cli_reports_bad_input_without_a_traceback(home):
    bad = run_cli("settings", "set", "daily_budget_usd", "-3", process=True)
    assert (
        bad.returncode == 1 and "daily_budget_usd" in bad.stderr and "Traceback" not in bad.stderr
    )
    assert run_cli("show", "nosuchjob").returncode == 1
    ok = run_cli("settings", "set", "fetch.allow_hosts", "127.0.0.1,intranet.local")
    assert ok.returncode == 0
    got = json.loads(run_cli("settings", "get", "fetch.allow_hosts", "--json").stdout)
    assert got == {"key": "fetch.allow_hosts", "value": ["127.0.0.1", "intranet.local"]}
    spend = json.loads(run_cli("spend", "--json").stdout)
    assert spend["dailyBudgetUsd"] == 25.0 and spend["lanes"] == []


def test_a_new_worker_adopts_the_server_of_a_killed_one(home, monkeypatch):
    """kill -9 leaves the embedded server running on the history file; the next worker
    uses it (never a second server on the same file) and stops it on exit."""
    monkeypatch.delenv("JOBCTRL_TEMPORAL_ADDRESS", raising=False)
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", f"adopt-{time.time_ns()}")
    first = WorkerProcess()
    first.wait_ready()
    record = RuntimeRecord.load(home.temporal_runtime_file)
    assert record is not None
    first.proc.kill()
    first.proc.wait()
    assert psutil.pid_exists(record.server_pid), "the server outlives its killed owner"

    second = WorkerProcess()
    try:
        second.wait_ready()
        adopted = RuntimeRecord.load(home.temporal_runtime_file)
        assert adopted is not None
        assert (adopted.address, adopted.server_pid) == (record.address, record.server_pid)
        assert adopted.owner_pid == second.proc.pid
        assert run_cli("jobs", "--json").returncode == 0
    finally:
        assert second.stop(signal.SIGTERM) == 0
    deadline = time.monotonic() + 10
    while _running(record.server_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(record.server_pid), "the adopting worker stops the server on exit"


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
