"""A paid call's answer is stored with its usage, in one transaction (B2): a worker that
dies after that commit and before the output is stored leaves the answer, and the retry
parses it again instead of paying for the call again. The provider is a loopback
OpenAI-compatible server (the real client, HTTP and SDK)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select, update

from jobctrl.app.jobs import add_job
from jobctrl.app.lanes import set_lane
from jobctrl.config import LaneProvider
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm.answers import ScoreAnswer
from jobctrl.llm.lanes import call_lane
from jobctrl.llm.remote import ProviderError
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import jobs, provider_results, schema, stage_states, tenancy
from jobctrl.testing import hooks
from tests.support.fake_openai import SCORE_REPORT, FakeOpenAI
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess

OBS = schema.llm_usage_observations


def _observations(store) -> int:
    with store.read() as conn:
        return conn.execute(
            select(func.count()).select_from(OBS).where(tenancy.scoped(OBS, conn))
        ).scalar_one()


async def test_kill_between_the_usage_and_the_output_pays_once(
    home, store, client, task_queue, fast_settings, site, monkeypatch
):
    fast_settings.set_value("worker.heartbeat_timeout_seconds", 1.5)
    fast_settings.set_value("retry.max_attempts", 3)
    fast_settings.set_value("preparation.materials", False)
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        url = site.add("/jobs/answer", Route(body=posting_html("Engineer", "Kept", ["Python"])))
        monkeypatch.setenv(hooks.EXIT_AFTER_PROVIDER_RESPONSE, "score")
        first = WorkerProcess()
        first.wait_ready()
        view = await add_job(home, url)
        await asyncio.to_thread(first.proc.wait, 60)
        assert first.proc.returncode == 137, "the worker died right after the usage commit"
        kept = provider_results.stored(store, f"score:{view.job_id}:{_run_of(store, view)}")
        assert kept is not None and kept.output is None and kept.response is not None
        assert _observations(store) == 1, "the usage was committed with the answer"
        monkeypatch.delenv(hooks.EXIT_AFTER_PROVIDER_RESPONSE)
        second = WorkerProcess()
        try:
            second.wait_ready()
            handle = client.get_workflow_handle(view.workflow_id)
            await asyncio.wait_for(handle.result(), 60)
        finally:
            second.stop(15)
        assert len(provider.requests) == 1, "the provider was paid once"
    assert _observations(store) == 1
    with store.read() as conn:
        ls = schema.llm_spend
        spend = conn.execute(select(ls.c.calls).where(tenancy.scoped(ls, conn))).all()
    assert [tuple(r) for r in spend] == [(1,)]
    score = {r["stage"]: r for r in stage_states.stage_rows(store, view.job_id)}["score"]
    assert score["state"] == "succeeded" and score["attempts"] == 2
    assert jobs.score_row(store, view.job_id)["score"] == 81
    summary = SpendAuthority(store, fast_settings).summary()
    assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0


def _run_of(store, view) -> str:
    with store.read() as conn:
        return conn.execute(
            select(schema.provider_results.c.run_id).where(
                tenancy.scoped(schema.provider_results, conn),
                schema.provider_results.c.job_id == view.job_id,
            )
        ).scalar_one()


def _call(spend: SpendAuthority, lane: LaneProvider, attempt: int) -> ScoreReport:
    return call_lane(
        spend, "score", lane, job_id="job1", run_id="run1", attempt=attempt,
        output_type=ScoreAnswer, system="s", prompt=lambda: "p",
        offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT),
    )  # fmt: skip


def _lane(provider: FakeOpenAI) -> LaneProvider:
    return LaneProvider(
        provider="openai", model="gpt-4o-mini", base_url=provider.base_url, api_key_env="FAKE_KEY"
    )


def test_an_answer_stored_without_its_output_is_parsed_again_not_paid_again(
    store, settings, monkeypatch
):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    spend = SpendAuthority(store, settings)
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        first = _call(spend, _lane(provider), 1)
        # As if the worker died before the output commit: the answer and usage only.
        with store.write() as tx:
            pr = schema.provider_results
            tx.conn.execute(update(pr).where(tenancy.scoped(pr, tx.conn)).values(output=None))
        kept = provider_results.stored(store, "score:job1:run1")
        assert kept is not None and kept.output is None
        assert "81" in json.dumps(kept.response), "the provider's answer, as it arrived"
        again = _call(spend, _lane(provider), 2)
        assert len(provider.requests) == 1, "parsed again, not asked again"
    assert again == first and again.score == 81
    assert provider_results.stored_output(store, "score:job1:run1") == json.loads(
        first.model_dump_json()
    )
    assert _observations(store) == 1
    summary = spend.summary()
    assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0


def test_a_stored_answer_that_does_not_fit_is_asked_again(store, settings, monkeypatch):
    """An invalid answer failed its attempt; the retry pays for a new one (as before the
    answer was kept), and a valid new answer replaces it."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    spend = SpendAuthority(store, settings)
    with FakeOpenAI("malformed", SCORE_REPORT) as provider:
        try:
            _call(spend, _lane(provider), 1)
            raise AssertionError("a malformed answer is refused")
        except ProviderError as error:
            assert error.code == "provider_invalid_output"
        kept = provider_results.stored(store, "score:job1:run1")
        assert kept is not None and kept.output is None and kept.response is not None
        provider.mode = "ok"
        report = _call(spend, _lane(provider), 2)
        assert len(provider.requests) == 2
    assert report.score == 81
    assert provider_results.stored_output(store, "score:job1:run1")["score"] == 81
    assert _observations(store) == 2


def test_a_second_attempt_of_the_same_step_waits_for_the_first_and_reuses_its_answer(
    store, settings, monkeypatch
):
    """Should Temporal start a second attempt while the first still waits for its answer
    (heartbeats that could not reach the server), the worker asks for the step once: the
    second attempt waits, kept alive, and reuses the first one's answer."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    spend = SpendAuthority(store, settings)
    kept_alive: list[int] = []

    @contextlib.contextmanager
    def keep_alive():  # type: ignore[no-untyped-def]
        kept_alive.append(threading.get_ident())
        yield

    def attempt(n: int) -> ScoreReport:
        return call_lane(
            spend, "score", lane, job_id="job1", run_id="run1", attempt=n,
            output_type=ScoreAnswer, system="s", prompt=lambda: "p",
            offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT), keep_alive=keep_alive,
        )  # fmt: skip

    with FakeOpenAI("ok", SCORE_REPORT, delay=1.0) as provider:
        lane = _lane(provider)
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(attempt, 1)
            while not provider.requests:
                time.sleep(0.02)
            second = pool.submit(attempt, 2)
            reports = [first.result(10), second.result(10)]
        assert len(provider.requests) == 1, "one request for the step"
    assert reports[0] == reports[1] and reports[0].score == 81
    assert len(set(kept_alive)) == 2, "the waiting attempt was kept alive too"
    assert _observations(store) == 1
    summary = spend.summary()
    assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0
