"""Bad input refused at once, through the CLI a person runs: one line on stderr, the
right exit status, nothing changed, never a traceback."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import threading
from datetime import UTC, datetime, timedelta

from tests.support.processes import JOBCTRL, run_cli


def _refused(result: subprocess.CompletedProcess[str], status: int = 1) -> str:
    assert result.returncode == status, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    return result.stderr


def test_a_wildcard_allow_host_is_refused(home) -> None:
    for value in ("*", "*.example.com", "10.0.0.0/8", "http://intranet"):
        said = _refused(run_cli("settings", "set", "fetch.allow_hosts", value))
        assert "fetch.allow_hosts" in said
    got = json.loads(run_cli("settings", "get", "fetch.allow_hosts", "--json").stdout)
    assert got["value"] == [], "nothing was written"


def test_a_source_outside_http_is_refused(home) -> None:
    config = home.config_path.read_text()
    _refused(run_cli("sources", "add", "lever", "acme", "--base-url", "file:///etc/passwd"))
    _refused(run_cli("sources", "add", "feed", "file:///etc/passwd"))
    _refused(run_cli("sources", "add", "careers-page", "ftp://example.com/jobs"))
    assert home.config_path.read_text() == config


def test_a_closed_pipe_ends_quietly(home, store) -> None:
    from jobctrl.store import jobs  # the store seeds rows faster than `jobctrl add`

    with store.write() as tx:  # one transaction: 2000 commits took most of the test
        for n in range(2000):
            jobs.create_job_in(tx, f"https://jobs.example.com/pipe/{n}")
    shell = subprocess.run(
        f"{JOBCTRL} jobs | head -1", shell=True, capture_output=True, text=True, timeout=60
    )
    assert shell.stdout.startswith("JOB")
    assert "Traceback" not in shell.stderr and "BrokenPipe" not in shell.stderr
    assert not (home.logs_dir / "jobctrl.log").exists(), "nothing to log: not a bug"


def test_huge_deep_or_binary_profiles_are_refused_with_the_reason(home, tmp_path) -> None:
    huge = tmp_path / "huge.json"
    work = [{"name": f"Co {i}", "position": "Engineer"} for i in range(2300)]
    huge.write_text(json.dumps({"basics": {"name": "A"}, "work": work}))
    assert "experience" in _refused(run_cli("profile", "import", str(huge)))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in _refused(run_cli("profile", "import", str(deep)))
    binary = tmp_path / "cv.json"
    binary.write_bytes(bytes(range(256)) * 64)
    assert "UTF-8" in _refused(run_cli("profile", "import", str(binary)))
    home.config_path.write_bytes(bytes(range(256)) * 64)
    assert "config.yaml" in _refused(run_cli("sources", "list"))


def test_reads_do_not_wait_for_a_writer_and_a_held_lock_is_a_clear_retryable_error(
    home, store, monkeypatch
) -> None:
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:  # another process's writer, as far as SQLite can tell
        conn = sqlite3.connect(home.database_path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        release.wait(30)
        conn.execute("ROLLBACK")
        conn.close()

    locker = threading.Thread(target=hold)
    locker.start()
    try:
        held.wait(10)
        listed = run_cli("jobs", "--json", timeout=20)
        assert listed.returncode == 0 and json.loads(listed.stdout) == []
        monkeypatch.setenv("JOBCTRL_DB_BUSY_TIMEOUT", "1")
        busy = run_cli("settings", "set", "min_fit_score", "60", process=True)
        said = _refused(busy, status=75)
        assert "locked" in said and "try again" in said
    finally:
        release.set()
        locker.join()
    assert run_cli("settings", "set", "min_fit_score", "60").returncode == 0


def test_an_add_without_a_temporal_server_keeps_the_job_and_says_so(home, store, no_temporal):
    from jobctrl.store import start_intents

    added = run_cli("add", "https://jobs.example.com/offline/1", "--json")

    said = _refused(added, status=2)
    assert added.stdout == ""
    assert "saved" in said and "worker" in said
    [job] = json.loads(run_cli("jobs", "--json").stdout)
    assert job["jobId"] in said
    intents = start_intents.unstarted(store, datetime.now(UTC) + timedelta(days=1))
    assert [job_id for _, job_id in intents] == [job["jobId"]], "the worker starts it"
