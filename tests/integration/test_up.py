"""`jobctrl up`: the worker and the web app in one process, as a user starts them."""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import threading
import time

import httpx
import psutil

from tests.support.http import Route, posting_html
from tests.support.jobs import failed_job
from tests.support.processes import WorkerProcess, run_cli


def _url(proc: WorkerProcess) -> str:
    for line in proc.lines:
        if found := re.search(r"jobctrl is up: (http://127\.0\.0\.1:\d+)", line):
            return found.group(1)
    raise AssertionError("no URL printed:\n" + "\n".join(proc.lines))


def test_up_serves_the_app_and_runs_the_worker(
    home, site, fast_settings, temporal_address, task_queue
):
    url = site.add(
        "/jobs/up", Route(body=posting_html("Site Reliability Engineer", "Up Co", ["Go"]))
    )
    up = WorkerProcess("up", "--port", "0", ready="jobctrl is up")
    try:
        up.wait_ready()
        base = _url(up)
        assert up.lines[-1].startswith("jobctrl is up: "), "the URL is the last line printed"
        token = (home.root / "api-token").read_text().strip()
        with httpx.Client(base_url=base, timeout=10) as http:
            assert http.get("/jobs").status_code == 200
            added = http.post(
                "/v1/jobs", json={"url": url}, headers={"Authorization": f"Bearer {token}"}
            )
            assert added.status_code == 202, added.text
            job_id = added.json()["jobId"]
            deadline = time.monotonic() + 60
            while http.get(f"/v1/jobs/{job_id}").json()["score"] is None:
                assert time.monotonic() < deadline, "the job was not scored"
                time.sleep(0.2)
        nothing = run_cli("retry", job_id)
        assert nothing.returncode == 1 and "nothing to retry" in nothing.stderr

        port = int(base.rsplit(":", 1)[1])
        taken = run_cli("up", "--port", str(port), timeout=30)
        assert taken.returncode == 1 and "cannot listen on 127.0.0.1" in taken.stderr
    finally:
        code = up.stop(signal.SIGTERM)
    assert code == 0, "\n".join(up.lines)
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0, "the app stopped with the worker"


def test_retry_without_a_server_changes_nothing_and_exits_2(home, store, no_temporal):
    from jobctrl.store import stage_states

    job_id = failed_job(store, "https://jobs.example.com/retry")
    before = stage_states.stage_rows(store, job_id)
    result = run_cli("retry", job_id)
    assert result.returncode == 2, result.stderr
    assert "does not answer" in result.stderr
    assert stage_states.stage_rows(store, job_id) == before


def _ctrl_c(proc: WorkerProcess) -> int:
    """SIGINT as a terminal's Ctrl-C sends it: to `up` and its children (the Temporal
    server) at once."""
    children = psutil.Process(proc.proc.pid).children(recursive=True)
    for process in [psutil.Process(proc.proc.pid), *children]:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.send_signal(signal.SIGINT)
    return proc.proc.wait(60)


def _stream(url: str, opened: threading.Event) -> None:
    with (
        contextlib.suppress(httpx.HTTPError),
        httpx.stream("GET", url + "/v1/events/stream", timeout=30) as events,
    ):
        opened.set()
        for _ in events.iter_bytes():
            pass


def test_ctrl_c_ends_up_with_one_stopped_line_and_exit_0(home, fast_settings):
    """Issue 30: with a page's live event stream open, Ctrl-C printed uvicorn's cancelled
    streams as tracebacks; now one "stopped" line, exit 0, while starting or running."""
    starting = WorkerProcess("up", "--port", "0", ready="worker ready")
    starting.wait_ready()  # the worker is up; the web app not yet, or just
    assert _ctrl_c(starting) == 0, "\n".join(starting.lines)
    assert starting.lines[-1] == "stopped" and "Traceback" not in "\n".join(starting.lines)

    up = WorkerProcess("up", "--port", "0", ready="jobctrl is up")
    up.wait_ready()
    base = _url(up)
    opened = [threading.Event() for _ in range(2)]
    for event in opened:  # two tabs of the Jobs page, each with its event stream
        threading.Thread(target=_stream, args=(base, event), daemon=True).start()
    assert all(event.wait(10) for event in opened)
    assert httpx.get(base + "/jobs", timeout=10).status_code == 200
    assert _ctrl_c(up) == 0, "\n".join(up.lines)
    after = up.lines[up.lines.index(next(x for x in up.lines if "jobctrl is up" in x)) + 1 :]
    assert after == ["stopped"], "\n".join(up.lines)
