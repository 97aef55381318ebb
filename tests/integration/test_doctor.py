"""`jobctrl doctor` (and ``GET /v1/health``, the Operations page's Health panel) against a
real Temporal server and worker: each problem it should see — history kept one day, a
worker without a heartbeat, a missing artifact file, a run held open past the retention,
a paused lane, a job scored with an older profile — reported with its status and the
command that fixes it; exit 1 only when a check fails (no server)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import timedelta

from jobctrl.app.health import doctor
from jobctrl.app.health_checks import artifacts_fix
from jobctrl.domain.clock import utcnow
from jobctrl.domain.discovery import ExecutionRef
from jobctrl.store import discovery, jobs, stop_loss, workflow_runs
from jobctrl.store.health import MissingArtifact
from tests.support.app import app_client
from tests.support.jobs import score_row
from tests.support.processes import run_cli

CHECKS = [
    "temporal",
    "retention",
    "workers",
    "database",
    "disk",
    "artifacts",
    "expiring_runs",
    "profile_versions",
    "paused",
]


def _by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


async def test_doctor_reports_each_problem_with_the_command_that_fixes_it(
    home, store, worker, fast_settings
):
    job = jobs.create_job(store, "https://example.com/jobs/doctor").job_id
    score_row(store, job, "Python and PostgreSQL")  # its report file was never written
    old = utcnow() - timedelta(days=40)
    workflow_runs.record_workflow_started(
        store, workflow_id="prep-doctor", run_id="run-old", workflow_type="JobPreparation",
        job_id=job, clock=lambda: old,
    )  # fmt: skip
    ref = ExecutionRef("local", "discover-local", "run-doctor")  # a discovery run, too
    discovery.open_run(store, ref, ["greenhouse"], 3, 1, 1, clock=lambda: old)
    for n in range(2):
        stop_loss.note_failure(store, "lane", "score", "provider_auth", f"j{n}", threshold=2)

    done = await asyncio.to_thread(run_cli, "doctor", "--json")
    assert done.returncode == 0, done.stdout  # warnings only: nothing failed
    report = json.loads(done.stdout)
    assert report["status"] == "warn"
    checks = _by_name(report)
    assert list(checks) == CHECKS
    assert checks["temporal"]["status"] == "ok"
    # The test server keeps a history one day (Temporal's dev default); 30 are wanted.
    retention = checks["retention"]
    assert (retention["status"], retention["details"]["retentionDays"]) == ("warn", 1)
    assert retention["fix"] == "temporal operator namespace update --retention 30d default"
    # The worker polls, but this in-process worker publishes no heartbeat.
    workers = checks["workers"]
    assert workers["details"]["polling"] is True and workers["status"] == "warn"
    assert checks["database"]["status"] == "ok" and checks["disk"]["status"] == "ok"
    artifacts = checks["artifacts"]
    assert (artifacts["status"], artifacts["details"]["missing"]) == ("warn", 1)
    assert artifacts["details"]["items"] == [
        {"sha256": "0" * 64, "what": "fit_report", "jobId": job}
    ]
    assert artifacts["fix"] == f"jobctrl reset {job} --stage score && jobctrl retry {job}"
    # One day of retention: the run open for 40 days may have lost its history already.
    expiring = checks["expiring_runs"]
    assert (expiring["status"], expiring["details"]["runs"]) == ("warn", 2)
    assert {r["runId"] for r in expiring["details"]["items"]} == {"run-old", "run-doctor"}
    assert expiring["fix"].startswith("jobctrl executions stop ")
    assert checks["paused"]["status"] == "warn"
    assert checks["paused"]["fix"] == "jobctrl resume lane:score"
    assert checks["profile_versions"]["status"] in {"ok", "warn"}
    assert all(c["fix"] is None for c in report["checks"] if c["status"] == "ok")

    text = await asyncio.to_thread(run_cli, "doctor")
    assert text.returncode == 0
    assert "WARN  paused" in text.stdout and "fix: jobctrl resume lane:score" in text.stdout

    async with app_client(home) as http:
        answer = await http.get("/v1/health")
        assert answer.status_code == 200
        assert [c["name"] for c in answer.json()["checks"]] == CHECKS
        page = await http.get("/operations")
    assert 'id="ops-health"' in page.text
    assert 'data-check="paused" data-status="warn"' in page.text
    assert "jobctrl resume lane:score" in page.text


def test_doctor_exits_1_when_the_server_does_not_answer(home, no_temporal):
    done = run_cli("doctor", "--json")
    assert done.returncode == 1
    checks = _by_name(json.loads(done.stdout))
    assert checks["temporal"]["status"] == "fail"
    assert checks["workers"]["status"] == "fail"
    assert checks["retention"]["status"] == "warn"  # unknown, said so
    assert checks["database"]["status"] == "ok"
    text = run_cli("doctor")
    assert text.returncode == 1 and "Traceback" not in text.stdout + text.stderr
    assert "FAIL  temporal" in text.stdout and "overall: fail" in text.stdout


def test_a_damaged_database_is_the_failed_check_and_every_command_says_so(
    tmp_path, monkeypatch, no_temporal
):
    # A home this process never opened, whose database file is not one (a disk's garbage).
    monkeypatch.setenv("JOBCTRL_HOME", str(tmp_path / "damaged"))
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "jobctrl.db").write_bytes(b"\xde\xad\xbe\xef" * 4096)
    done = run_cli("doctor", "--json")
    assert done.returncode == 1, done.stderr
    checks = _by_name(json.loads(done.stdout))
    assert checks["database"]["status"] == "fail"
    assert "damaged" in checks["database"]["summary"]
    assert checks["database"]["fix"] == "restore jobctrl.db from a backup"
    listed = run_cli("jobs")
    assert listed.returncode == 1
    assert "the database file is damaged" in listed.stderr
    assert "internal error" not in listed.stderr


async def test_a_write_lock_held_by_another_program_is_a_warning(home, store, no_temporal):
    holder = sqlite3.connect(home.database_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # a sqlite3 shell left mid-transaction, say
    try:
        report = await doctor(home)
    finally:
        holder.rollback()
        holder.close()
    database = next(c for c in report.checks if c.name == "database")
    assert database.status == "warn" and "write lock" in database.summary
    assert database.fix == "close the other program that has jobctrl.db open"


async def test_missing_files_of_several_jobs_name_each_job_in_the_fix(home, store, no_temporal):
    gone = [jobs.create_job(store, f"https://example.com/jobs/gone-{n}").job_id for n in range(3)]
    for job in gone:
        score_row(store, job, "Python and PostgreSQL")  # its report file was never written
    report = await doctor(home)
    artifacts = next(c for c in report.checks if c.name == "artifacts")
    assert (artifacts.status, artifacts.details["missing"]) == ("warn", 3)
    assert artifacts.fix is not None
    for job in gone:
        assert f"jobctrl reset {job} --stage score && jobctrl retry {job}" in artifacts.fix
    # One command a job (its earliest stage), the first five jobs named, the rest counted.
    many = [MissingArtifact("a" * 64, "pdf", f"job{n}") for n in range(7)]
    fix = artifacts_fix([*many, MissingArtifact("b" * 64, "posting_page", "job0")], 60)
    assert fix.startswith("jobctrl reset job0 --stage enrich && jobctrl retry job0; ")
    assert "job4" in fix and "job5" not in fix
    assert fix.endswith("(and 54 more file(s): `jobctrl doctor --json` lists them)")
