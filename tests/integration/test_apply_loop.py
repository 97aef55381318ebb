"""The standing apply loop through `jobctrl worker` as a person runs it, with a short
heartbeat: `jobctrl settings set auto_apply true` starts `apply-auto-local`, which prepares
the approved jobs' applications (an email draft, a form left for the person) and sends
nothing — the SMTP server it is pointed at (a loopback socket) never sees a connection;
`false` cancels it; `jobctrl apply loop`, the Runs page and /v1/apply/loop show it and
stop it; `jobctrl apply loop once JOB` prepares one job; all without a restart. A spent
budget fails the loop with budget_exceeded and the worker does not start it again that
day."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from jobctrl.api.app import create_app
from jobctrl.domain import ids
from jobctrl.llm.spend import Usage
from jobctrl.stages.context import StageContext
from jobctrl.store import applications, apply_attempts, events, jobs, workflow_runs
from jobctrl.store.settings import Settings
from tests.support.app import app_client
from tests.support.apply import approved_job, no_standing_loop
from tests.support.processes import WorkerProcess, run_cli, worker_processes
from tests.support.waiting import eventually

HIRING = "talent@acme-robotics.example"
# On PostgreSQL too (tests/conftest.py), only the send attempt a worker process settles
# from the store (~10 s a store). The other three (12-60 s a store, all passed on
# PostgreSQL under the tenant guard) drive the loop through the CLI, the API and the
# worker's heartbeat; its claims, runs, status and budget halt are test_apply_workflow's,
# run on both stores in process.
BOTH_STORES = {"test_the_worker_settles_a_send_whose_process_died"}

pytestmark = pytest.mark.usefixtures("no_standing_loop")
__all__ = ["no_standing_loop"]  # the fixture, imported for pytest to find


@pytest.fixture
def worker_process(
    home, temporal_address, task_queue, fast_settings
) -> Iterator[Callable[[], WorkerProcess]]:
    """`jobctrl worker` on the test's Temporal server and task queue, heartbeating fast."""
    fast_settings.set_values({"worker.heartbeat_seconds": 0.3, "apply_poll_seconds": 0.2})
    with worker_processes() as start:
        yield start


@pytest.fixture
def smtp_trap(settings: Settings) -> Iterator[socket.socket]:
    """A loopback socket the SMTP settings point at: any send would connect to it."""
    with socket.socket() as trap:
        trap.bind(("127.0.0.1", 0))
        trap.listen(8)
        trap.settimeout(0.2)
        settings.set_values(
            {
                "smtp.host": "127.0.0.1",
                "smtp.port": trap.getsockname()[1],
                "smtp.security": "none",
                "smtp.from": "ada@example.org",
            }
        )
        yield trap


def _connections(trap: socket.socket) -> int:
    count = 0
    while True:
        try:
            conn, _ = trap.accept()
        except TimeoutError:
            return count
        conn.close()
        count += 1


def _loop_runs(store) -> list[dict]:
    return workflow_runs.latest_runs(store, ids.APPLY_LOOP_ID, 50)


def _set(key: str, value: str) -> None:
    result = run_cli("settings", "set", key, value)
    assert result.returncode == 0, result.stderr


def _prepared(store, job_id: str) -> bool:
    app = applications.get(store, job_id)
    return bool(app and app["channel"])


def test_auto_apply_starts_and_stops_the_loop_without_a_restart(
    home, store, site, worker_process, smtp_trap
) -> None:
    email_job = approved_job(home, store, site, "/jobs/by-email", email=HIRING)
    form_job = approved_job(home, store, site, "/jobs/by-form", company="Formwerk")
    worker = worker_process()

    _set("auto_apply", "true")

    assert eventually(lambda: _prepared(store, email_job) and _prepared(store, form_job), 60)
    email = applications.get(store, email_job)
    assert (email["channel"], email["status"], email["email_to"]) == ("email", "draft", [HIRING])
    form = applications.get(store, form_job)
    assert (form["channel"], form["status"]) == ("browser", "draft")
    assert _loop_runs(store)[0]["status"] == "running"
    shown = json.loads(run_cli("apply", "loop", "--json").stdout)
    assert (shown["status"], shown["enabled"], shown["prepared"]) == ("running", True, 2)

    _set("auto_apply", "false")

    assert eventually(lambda: _loop_runs(store)[0]["status"] == "canceled", 60)
    assert worker.proc.poll() is None, "the same worker, never restarted"
    for job_id in (email_job, form_job):
        app = applications.get(store, job_id)
        assert app["status"] == "draft" and not apply_attempts.attempts_of(store, app["id"])
        types = {e["type"] for e in events.job_events(store, job_id)}
        assert "ApplicationPrepared" in types and "ApplicationSendIntent" not in types
    once = approved_job(home, store, site, "/jobs/once", email=HIRING)
    result = run_cli("apply", "loop", "once", once, "--wait", "--json")  # the loop is off
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "completed"
    assert applications.get(store, once)["status"] == "draft"
    assert _connections(smtp_trap) == 0, "nothing was sent: the SMTP server saw no connection"

    _set("auto_apply", "true")  # on again: a new run of the same workflow id
    assert eventually(lambda: _loop_runs(store)[0]["status"] == "running", 60)
    assert len({r["run_id"] for r in _loop_runs(store)}) >= 2
    worker.stop(signal.SIGTERM)
    assert not any("Traceback" in line for line in worker.lines), "\n".join(worker.lines)


async def test_the_runs_page_shows_the_loop_and_its_stop_button_stops_it(
    home, store, site, worker_process
) -> None:
    worker_process()
    app = create_app(home, port=8765)
    token = home.token_path.read_text().strip()
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    ) as api:
        started = await api.post("/v1/apply/loop/start")
        assert started.status_code == 202 and started.json()["enabled"] is True
        for _ in range(300):
            if (await api.get("/v1/apply/loop")).json()["status"] == "running":
                break
            await asyncio.sleep(0.1)
        page = (await api.get("/runs")).text
        assert "Standing apply loop" in page and 'data-post="/v1/apply/loop/stop"' in page

        stopped = (await api.post("/v1/apply/loop/stop")).json()

        assert stopped["enabled"] is False and stopped["cancelRequested"] is True
        for _ in range(300):
            if (await api.get("/v1/apply/loop")).json()["status"] == "canceled":
                break
            await asyncio.sleep(0.1)
        assert (await api.get("/v1/apply/loop")).json()["status"] == "canceled"


def test_a_spent_budget_fails_the_loop_and_the_worker_does_not_restart_it_that_day(
    home, store, settings, site, worker_process
) -> None:
    approved_job(home, store, site, "/jobs/waiting", email=HIRING)
    settings.set_value("daily_budget_usd", 0.01)
    ctx = StageContext(home=home, store=store)
    ctx.spend.record(
        observation_id="the-day-is-spent",
        lane="tailor",
        provider="openai",
        model="gpt-4o",
        usage=Usage(input_tokens=1_000_000, output_tokens=0),
    )
    ctx.close()
    worker = worker_process()

    _set("auto_apply", "true")

    assert eventually(
        lambda: bool(_loop_runs(store)) and _loop_runs(store)[0]["status"] == "failed", 60
    )
    [run] = _loop_runs(store)
    assert run["error_code"] == "budget_exceeded"
    time.sleep(2.0)  # several heartbeats
    assert len(_loop_runs(store)) == 1, "not started again while today's budget is spent"
    shown = json.loads(run_cli("settings", "get", "auto_apply", "--json").stdout)
    assert shown, "the setting stays on: the halt is the budget's, not the person's"
    worker.stop(signal.SIGTERM)
    said = [line for line in worker.lines if "standing apply loop" in line and "halted" in line]
    assert len(said) == 1, worker.lines


def test_the_worker_settles_a_send_whose_process_died(home, store, site, worker_process) -> None:
    job_id = jobs.create_job(store, site.base_url + "/jobs/sender-died").job_id
    dead = f"{socket.gethostname()}/{os.getpid()}/0"  # this pid, another start time: gone
    with store.write() as tx:
        app = applications.ensure_for_job(tx, job_id)
        attempt = apply_attempts.start_attempt(tx, app["id"], kind="email", owner=dead)
        apply_attempts.mark_data_sent(tx, attempt)
    worker = worker_process()

    assert eventually(lambda: applications.get(store, job_id)["status"] == "unknown", 60)
    assert applications.get(store, job_id)["error_code"] == "SEND_SENDER_DIED"
    assert apply_attempts.live_attempts(store) == []
    worker.stop(signal.SIGTERM)
    assert any("settled 1 email send" in line for line in worker.lines), worker.lines


async def test_the_loop_status_says_in_words_why_jobs_wait(
    home, store, site, fast_settings
) -> None:
    fast_settings.set_value("min_fit_score", 0)
    approved_job(home, store, site, "/jobs/unapproved", approve=False)
    shown = await asyncio.to_thread(run_cli, "apply", "loop")
    assert shown.returncode == 0, shown.stderr
    assert "not started yet" in shown.stdout and "absent" not in shown.stdout
    assert "waiting: 1 job(s): Approve the resume first" in shown.stdout
    async with app_client(home) as web:
        page = (await web.get("/runs")).text
    assert "Approve the resume first" in page and "not started yet" in page
    assert "<code>APPLY_MATERIALS_NOT_APPROVED</code>" not in page
