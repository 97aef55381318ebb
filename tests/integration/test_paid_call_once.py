"""A paid call whose result was stored is never made again: the worker is killed right
after the provider answers, and the next worker finishes the step from the stored result.
The provider is a loopback OpenAI-compatible server (the real client, HTTP and SDK)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import event, func, select

from jobctrl.app.jobs import add_job
from jobctrl.app.lanes import set_lane
from jobctrl.config import LaneProvider
from jobctrl.domain import processes
from jobctrl.domain.errors import StageError
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm.answers import ScoreAnswer
from jobctrl.llm.lanes import call_lane
from jobctrl.llm.remote import ProviderError
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import jobs, provider_results, schema, stage_states, tenancy
from jobctrl.testing import hooks
from tests.support.fake_openai import SCORE_REPORT, FakeOpenAI
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess, run_cli

REPO = Path(__file__).resolve().parents[2]


async def test_kill_after_the_provider_answers_pays_once(
    home, store, client, task_queue, fast_settings, site, monkeypatch
):
    fast_settings.set_value("worker.heartbeat_timeout_seconds", 1.5)
    fast_settings.set_value("retry.max_attempts", 3)
    fast_settings.set_value("preparation.materials", False)
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        url = site.add("/jobs/paid", Route(body=posting_html("Engineer", "Paid", ["Python"])))
        monkeypatch.setenv(hooks.EXIT_AFTER_PROVIDER_CALL, "score")
        first = WorkerProcess()
        first.wait_ready()
        view = await add_job(home, url)
        await asyncio.to_thread(first.proc.wait, 60)
        assert first.proc.returncode == 137, "the worker died right after the paid call"
        monkeypatch.delenv(hooks.EXIT_AFTER_PROVIDER_CALL)
        second = WorkerProcess()
        try:
            second.wait_ready()
            handle = client.get_workflow_handle(view.workflow_id)
            await asyncio.wait_for(handle.result(), 60)
        finally:
            second.stop(15)
        assert len(provider.requests) == 1, "the provider was paid once"
    obs = schema.llm_usage_observations
    with store.read() as conn:
        usage_rows = conn.execute(
            select(func.count()).select_from(obs).where(tenancy.scoped(obs, conn))
        ).scalar_one()
        spend = conn.execute(
            select(schema.llm_spend.c.calls, schema.llm_spend.c.input_tokens).where(
                tenancy.scoped(schema.llm_spend, conn)
            )
        ).all()
    assert usage_rows == 1 and [tuple(r) for r in spend] == [(1, 321)]
    score = {r["stage"]: r for r in stage_states.stage_rows(store, view.job_id)}["score"]
    assert score["state"] == "succeeded" and score["attempts"] == 2
    assert jobs.score_row(store, view.job_id)["score"] == 81


async def test_a_worker_killed_mid_call_leaves_the_call_counted_at_its_worst(
    home, store, client, task_queue, fast_settings, site, monkeypatch
):
    """The provider may charge for a call whose worker died before the answer: the call's
    reservation is never forgotten; after its time it shows as assumed spend."""
    fast_settings.set_value("budget.reservation_ttl_seconds", 1.0)
    fast_settings.set_value("preparation.materials", False)
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", SCORE_REPORT, delay=30) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        url = site.add("/jobs/inflight", Route(body=posting_html("Engineer", "Paid", ["Python"])))
        worker = WorkerProcess()
        worker.wait_ready()
        await add_job(home, url)
        for _ in range(200):
            if provider.requests:
                break
            await asyncio.sleep(0.05)
        assert provider.requests, "the call is in flight"
        worker.proc.kill()  # kill -9 while the provider has not answered
        await asyncio.to_thread(worker.proc.wait, 30)
    await asyncio.sleep(1.2)  # past the reservation's time: no longer in flight

    spend = json.loads(run_cli("spend", "--json").stdout)

    assert spend["spentUsd"] == 0, "no usage was ever reported"
    assert spend["assumedCalls"] == 1 and spend["assumedUsd"] > 0
    assert spend["openReservations"]["count"] == 0
    assert spend["remainingUsd"] == pytest.approx(spend["dailyBudgetUsd"] - spend["assumedUsd"])
    text = run_cli("spend").stdout
    assert "assumed" in text and "observed" in text


@pytest.mark.parametrize(("mode", "observed"), [("ok", 1), ("malformed", 1), ("server_error", 0)])
def test_a_paid_call_writes_the_database_three_times_at_most(
    store, settings, monkeypatch, mode, observed
):
    """Reserve; the usage as the answer arrives (closing the reservation); the output.
    A failed call closes its reservation instead of storing an output."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    obs = schema.llm_usage_observations
    usage_committed_before_output: list[bool] = []
    save_output = provider_results.save_output

    def saving(tx, **kwargs):  # type: ignore[no-untyped-def]
        with store.read() as conn:  # another connection: sees committed rows only
            usage_committed_before_output.append(
                conn.execute(
                    select(func.count()).select_from(obs).where(tenancy.scoped(obs, conn))
                ).scalar_one()
                == 1
            )
        return save_output(tx, **kwargs)

    monkeypatch.setattr(provider_results, "save_output", saving)
    writes: list[int] = []

    def began(_conn) -> None:  # type: ignore[no-untyped-def]
        writes.append(1)

    event.listen(store.writer, "begin", began)
    try:
        with FakeOpenAI(mode, SCORE_REPORT) as provider:
            lane = LaneProvider(
                provider="openai", model="gpt-4o-mini", base_url=provider.base_url,
                api_key_env="FAKE_KEY",
            )  # fmt: skip
            spend = SpendAuthority(store, settings)
            try:
                report = call_lane(
                    spend, "score", lane, job_id="job1", run_id="run1", attempt=1,
                    output_type=ScoreAnswer, system="s", prompt=lambda: "p",
                    offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT),
                )  # fmt: skip
                assert mode == "ok" and report.score == 81
            except ProviderError:
                assert mode != "ok"
            assert len(provider.requests) == 1
    finally:
        event.remove(store.writer, "begin", began)

    assert len(writes) <= 3, f"{len(writes)} write transactions for one paid call"
    summary = spend.summary()
    assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0
    with store.read() as conn:
        assert (
            conn.execute(
                select(func.count()).select_from(obs).where(tenancy.scoped(obs, conn))
            ).scalar_one()
            == observed
        )
    assert usage_committed_before_output == ([True] if mode == "ok" else [])


def test_an_attempt_whose_row_was_taken_over_asks_nothing(store, settings, monkeypatch):
    """Temporal gave up on attempt 1 while it waited (for the database, or its turn at the
    provider) and attempt 2 claimed the stage, maybe on another worker: attempt 1 must not
    pay too, however late it gets to the provider."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    job_id = jobs.create_job(store, "https://example.org/jobs/taken-over").job_id
    stage_states.claim_stage(store, job_id, "enrich", "run1")  # Score needs no Enrich row
    first = stage_states.claim_stage(store, job_id, "score", "run1").attempt
    assert first == 1
    assert stage_states.claim_stage(store, job_id, "score", "run1").attempt == 2  # taken over
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        lane = LaneProvider(
            provider="openai", model="gpt-4o-mini", base_url=provider.base_url,
            api_key_env="FAKE_KEY",
        )  # fmt: skip
        spend = SpendAuthority(store, settings)
        with pytest.raises(StageError) as refused:
            call_lane(
                spend, "score", lane, job_id=job_id, run_id="run1", attempt=first,
                output_type=ScoreAnswer, system="s", prompt=lambda: "p",
                offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT),
            )  # fmt: skip
        assert refused.value.code == "OWNERSHIP_LOST"
        assert provider.requests == [], "nothing was sent"
        # The attempt that owns the row is asked as usual.
        report = call_lane(
            spend, "score", lane, job_id=job_id, run_id="run1", attempt=2,
            output_type=ScoreAnswer, system="s", prompt=lambda: "p",
            offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT),
        )  # fmt: skip
        assert report.score == 81 and len(provider.requests) == 1
    assert spend.summary()["openReservations"]["count"] == 0


def _ask_in_another_process(provider: FakeOpenAI, job_id: str, attempt: int) -> subprocess.Popen:
    """Attempt ``attempt`` of the job's Score, asking from a process of its own (another
    worker, to the store), once its request has reached the provider."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.support.paid_call_child", provider.base_url, job_id,
         "run1", str(attempt)],
        stdout=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not provider.requests:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the other process never asked"
        time.sleep(0.05)
    return child


def _taken_over(store, job_id: str) -> tuple[int, int]:
    """The job's Score claimed by run1, then claimed again (the attempt Temporal started
    after giving up on the first one): (first attempt, second attempt)."""
    stage_states.claim_stage(store, job_id, "enrich", "run1")  # Score needs no Enrich row
    first = stage_states.claim_stage(store, job_id, "score", "run1").attempt
    return first, first + 1


def _score(spend: SpendAuthority, provider: FakeOpenAI, job_id: str, attempt: int) -> ScoreReport:
    """Attempt ``attempt`` of run1's Score of the job, asking ``provider``, in this process."""
    lane = LaneProvider(
        provider="openai", model="gpt-4o-mini", base_url=provider.base_url,
        api_key_env="FAKE_KEY",
    )  # fmt: skip
    return call_lane(
        spend, "score", lane, job_id=job_id, run_id="run1", attempt=attempt,
        output_type=ScoreAnswer, system="s", prompt=lambda: "p",
        offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT),
    )  # fmt: skip


def test_an_attempt_that_took_over_a_call_in_flight_waits_for_its_answer(
    store, settings, monkeypatch
):
    """Attempt 1 asked, then went silent past its heartbeat timeout (a stalled worker):
    Temporal started attempt 2 on another worker, which claimed the row. Attempt 1's
    answer is still coming: attempt 2 waits for it and reuses it instead of paying again."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    job_id = jobs.create_job(store, "https://example.org/jobs/in-flight").job_id
    first, second = _taken_over(store, job_id)
    with FakeOpenAI("ok", SCORE_REPORT, delay=2.0) as provider:
        child = _ask_in_another_process(provider, job_id, first)
        assert stage_states.claim_stage(store, job_id, "score", "run1").attempt == second
        spend = SpendAuthority(store, settings)
        report = _score(spend, provider, job_id, second)
        out, _ = child.communicate(timeout=60)
        assert report.score == 81 and out.split()[-1] == "81"
        assert len(provider.requests) == 1, "asked once, answered once, used twice"
    summary = spend.summary()
    assert summary["lanes"][0]["calls"] == 1
    assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0


def test_an_attempt_that_took_over_from_a_killed_worker_asks_at_once(store, settings, monkeypatch):
    """The worker of attempt 1 died with its request out: its answer will never be read,
    so attempt 2 asks again without waiting; the dead call stays counted at its worst."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    job_id = jobs.create_job(store, "https://example.org/jobs/killed-in-flight").job_id
    first, second = _taken_over(store, job_id)
    with FakeOpenAI("ok", SCORE_REPORT, delay=2.0) as provider:
        child = _ask_in_another_process(provider, job_id, first)
        child.kill()
        child.wait(timeout=30)
        assert stage_states.claim_stage(store, job_id, "score", "run1").attempt == second
        spend = SpendAuthority(store, settings)
        started = time.monotonic()
        report = _score(spend, provider, job_id, second)
        waited = time.monotonic() - started
        assert report.score == 81 and len(provider.requests) == 2
    # Not the bound of a call that may still be answered (minutes): no wait at all.
    assert waited < 60, waited
    summary = spend.summary()
    assert summary["openReservations"]["count"] + summary["assumedCalls"] == 1


def test_an_attempt_waiting_for_another_stops_once_its_own_row_is_taken_over(
    store, settings, monkeypatch
):
    """Attempt 2 waits on attempt 1's call (its process alive); Temporal gives up on
    attempt 2 too and attempt 3 claims the row: attempt 2 stops waiting at once, asks
    nothing and closes its reservation (it would otherwise hold attempt 3 back in turn)."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    job_id = jobs.create_job(store, "https://example.org/jobs/superseded-waiter").job_id
    first, second = _taken_over(store, job_id)
    assert stage_states.claim_stage(store, job_id, "score", "run1").attempt == second
    spend = SpendAuthority(store, settings)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        spend.reserve(
            reservation_id=f"score:{job_id}:run1:{first}",
            lane="score",
            provider="openai",
            model="gpt-4o-mini",
            input_tokens=10,
            max_output_tokens=10,
            owner=processes.owner_of(alive.pid),
        )  # fmt: skip  (attempt 1's call, still out, in a live process)
        timer = threading.Timer(1.0, stage_states.claim_stage, (store, job_id, "score", "run1"))
        timer.start()
        with FakeOpenAI("ok", SCORE_REPORT) as provider:
            started = time.monotonic()
            with pytest.raises(StageError) as stopped:
                _score(spend, provider, job_id, second)
            assert stopped.value.code == "OWNERSHIP_LOST"
            assert time.monotonic() - started < 30
            assert provider.requests == []
        timer.join()
    finally:
        alive.kill()
        alive.wait()
    summary = spend.summary()
    assert summary["openReservations"]["count"] + summary["assumedCalls"] == 1  # attempt 1's
