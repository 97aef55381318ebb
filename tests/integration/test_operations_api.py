"""`GET /v1/pipeline/operations`, the Operations page and `jobctrl ops` over rows written
through the store (a worker's runtime heartbeat included): the contract's keys, an ETA
that calibrates first and then gives a range, the notices with their buttons, and the
CLI's JSON, text and --follow (plain lines when piped; Ctrl-C exits 0)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from click.testing import CliRunner

from jobctrl.api.app import create_app
from jobctrl.app import operations as app_ops
from jobctrl.cli import main
from jobctrl.cli import operations as cli_ops
from jobctrl.domain.discovery import Cohort, DiscoverFinish, ExecutionRef
from jobctrl.domain.runtime import home_identity
from jobctrl.store import discovery, jobs, runtime, stage_states
from jobctrl.store.orphans import Orphan
from jobctrl.store.settings import Settings
from jobctrl.store.stop_loss import Pause

REF = ExecutionRef("local", "discover-local", "run-ops")
KEYS = {"phase", "execution", "scopes", "runtime", "eta", "stopLoss", "orphans", "recovery"}


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC) - timedelta(hours=1)

    def __call__(self) -> datetime:
        return self.now


def _beat(home, store, now: datetime, *, slots: int = 2) -> None:
    runtime.publish(
        store,
        {
            "worker_id": "test:1:abc",
            "home_id": home_identity(home),
            "task_queue": "jobctrl-test",
            "started_at": now - timedelta(minutes=5),
            "beat_at": now,
            "interval_seconds": 5.0,
            "active_slots": slots,
            "capacity": 8,
            "items_total": 0,
            "items": [],
            "durations": {},
            "queue": {"workflowPollers": 1, "activityPollers": 1, "backlog": 0},
        },
    )


def _drained_world(home, store) -> datetime:
    """A closed discovery run: 10 jobs scored in 20 s each (the samples), 6 members still
    to score; a fresh worker report."""
    clock = Clock()
    discovery.open_run(store, REF, ["greenhouse"], 3, 1, 1, clock=clock)
    for i in range(16):
        job_id = jobs.create_job(store, f"https://jobs.example.com/ops/{i}", clock=clock).job_id
        with store.write(clock=clock) as tx:
            discovery.link_member(tx, REF, job_id, Cohort.OBSERVED)
        for stage in ("enrich", "score")[: 2 if i < 10 else 1]:
            claim = stage_states.claim_stage(store, job_id, stage, "run-a", clock=clock)
            clock.now += timedelta(seconds=20)
            with store.write(clock=clock) as tx:
                stage_states.succeed_stage(tx, job_id, stage, "run-a", claim.attempt)
    discovery.finish_run(store, DiscoverFinish(REF, "completed", None, {}), clock=clock)
    _beat(home, store, datetime.now(UTC))
    return clock.now


@pytest.fixture
async def api(home):
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        yield c


async def test_the_route_answers_the_contract_and_calibrates_first(api, home, store):
    _drained_world(home, store)
    body = (await api.get("/v1/pipeline/operations")).json()
    assert set(body) >= KEYS
    assert body["phase"] == "draining"
    assert body["scopes"]["current_execution"]["remaining"]["score"] == 6
    assert body["runtime"]["state"] == "fresh" and body["runtime"]["activeSlots"] == 2
    assert body["runtime"]["queue"]["approximate"] is True
    # Six jobs still to score may go on to Tailor, Cover and PDF: none has a sample yet.
    eta = body["eta"]
    assert (eta["contract"], eta["state"], eta["reason"]) == (
        "pipeline-eta-v1",
        "calibrating",
        "insufficient_samples",
    )
    assert "tailor has 0 of 5 samples" in eta["detail"]
    # Rows left but no preparation of the run open: the page does not claim preparation
    # goes on, and offers no stop (a new run may start, as the gate says).
    page = (await api.get("/operations")).text
    assert "none of its jobs is being prepared right now" in page
    assert "/v1/discovery/cancel" not in page


async def test_with_enough_samples_the_eta_is_a_range(api, home, store):
    _drained_world(home, store)
    Settings(store).set_value("preparation.materials", False)  # Score is the last stage
    eta = (await api.get("/v1/pipeline/operations")).json()["eta"]
    assert eta["state"] == "available", eta
    # 6 Scores of 20 s: low over min(8 slots, 6 jobs), high over the 2 slots in use now.
    assert eta["low"] == pytest.approx(6 * 20 / 6)
    assert eta["high"] == pytest.approx(6 * 20 / 2)
    page = await api.get("/operations")
    assert page.status_code == 200
    assert "Source collection complete" in page.text
    assert "not a promise" in page.text and "20s – 1m 0s" in page.text
    assert 'href="/operations" aria-current="page"' in page.text
    fragment = await api.get("/operations?fragment=main")
    assert "<h1>Operations</h1>" in fragment.text and "<html" not in fragment.text


async def test_the_page_offers_resume_and_stop(api, home, store, monkeypatch):
    paused = [Pause("lane", "tailor", "provider_auth", None, 5)]
    seen = datetime.now(UTC)
    orphan = [Orphan("prep-stray", "r1", "JobPreparationWorkflow", None, seen)]
    monkeypatch.setattr(app_ops.stop_loss, "paused", lambda store: paused)
    monkeypatch.setattr(app_ops.orphans_store, "orphans", lambda store: orphan)
    text = (await api.get("/operations")).text
    assert 'data-post="/v1/stop-loss/lane/tailor/resume"' in text
    assert "jobctrl resume tailor" in text
    assert "The AI provider refused the key" in text, "the pause's cause in words"
    assert 'data-post="/v1/executions/prep-stray/stop"' in text
    lines = cli_ops.render(app_ops.operations_snapshot(home))
    assert any("jobctrl resume tailor" in line for line in lines)
    assert any("jobctrl executions stop prep-stray" in line for line in lines)


def test_cli_json_and_text(home, store):
    _drained_world(home, store)
    runner = CliRunner()
    result = runner.invoke(main, ["ops", "--json"])
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.output)) >= KEYS
    text = runner.invoke(main, ["ops"])
    assert text.exit_code == 0
    assert "Source collection complete" in text.output
    assert "No ETA: insufficient_samples" in text.output
    assert "current_execution" in text.output and "2/8 slots in use" in text.output


def test_cli_follow_prints_lines_when_piped_and_ctrl_c_exits_0(home, store, monkeypatch):
    calls = []

    def sleep(seconds: float) -> None:
        calls.append(seconds)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(cli_ops.time, "sleep", sleep)
    result = CliRunner().invoke(main, ["ops", "--follow", "--interval", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 2 and all("phase=idle" in line for line in lines)


@pytest.mark.parametrize("interval", ["inf", "1e308", "0", "nan"])
def test_cli_follow_refuses_an_interval_it_cannot_sleep(home, store, interval):
    result = CliRunner().invoke(main, ["ops", "--follow", "--interval", interval])
    assert result.exit_code == 2 and "--interval" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


async def test_the_page_says_a_cancelled_run_was_cancelled(api, home, store):
    discovery.open_run(store, REF, ["greenhouse"], 3, 1, 1)
    discovery.finish_run(store, DiscoverFinish(REF, "canceled", None, {}))
    text = (await api.get("/operations")).text
    assert "The discovery run was cancelled;" in text
