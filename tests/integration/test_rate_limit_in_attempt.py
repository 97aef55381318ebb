"""A 429 is answered inside the attempt (jobctrl.llm.lanes + pacing): the call holds for
the provider's Retry-After, heartbeating, and asks again; it costs nothing, the attempt
keeps its reservation until the answer settles it, and the answer is stored once. Past
``llm.rate_limit_max_wait_seconds`` it fails ``PROVIDER_RATE_LIMITED`` as before; a cancel
raised by the heartbeat ends the wait and closes the reservation. The provider is the
loopback OpenAI-compatible fake (the real SDK, HTTP and response hook)."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import func, select

from jobctrl.app.settings import change_settings
from jobctrl.config import LaneProvider
from jobctrl.domain.errors import PROVIDER_RATE_LIMITED, ConfigError
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm.answers import ScoreAnswer
from jobctrl.llm.lanes import call_lane
from jobctrl.llm.remote import ProviderError
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import provider_results, schema, tenancy
from tests.support.fake_openai import SCORE_REPORT
from tests.support.fault_provider import FaultProvider


def _observations(store) -> int:
    with store.read() as conn:
        obs = schema.llm_usage_observations
        return conn.execute(
            select(func.count()).select_from(obs).where(tenancy.scoped(obs, conn))
        ).scalar_one()


def _lane(provider: FaultProvider) -> LaneProvider:
    return LaneProvider(
        provider="openai", model="gpt-4o-mini", base_url=provider.base_url, api_key_env="FAKE_KEY"
    )


def _call(spend: SpendAuthority, lane: LaneProvider, job: str, heartbeat=lambda: None):
    return call_lane(
        spend, "score", lane, job_id=job, run_id="run1", attempt=1,
        output_type=ScoreAnswer, system="s", prompt=lambda: f"Job title: {job}",
        offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT), heartbeat=heartbeat,
    )  # fmt: skip


def test_a_429_holds_every_call_and_is_asked_again_without_cost(store, settings, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    spend = SpendAuthority(store, settings)
    with FaultProvider("rate_limited", delay=0.05, retry_after=1) as provider:
        lane = _lane(provider)
        reports: dict[str, ScoreReport] = {}
        beats: list[float] = []

        def job(name: str) -> None:
            reports[name] = _call(spend, lane, name, lambda: beats.append(time.monotonic()))

        first = threading.Thread(target=job, args=("job1",))
        first.start()
        while provider.counts()["refused"] < 1:
            time.sleep(0.01)
        time.sleep(0.2)  # its answer is back: the endpoint holds
        held = [threading.Thread(target=job, args=(f"job{i}",)) for i in (2, 3)]
        for thread in held:
            thread.start()  # they start during the hold: they hold too
        time.sleep(1.6)  # past the first hold: job1 is refused again
        provider.set_mode("ok")
        for thread in (first, *held):
            thread.join(20)
        arrivals = list(provider.arrivals)
    assert sorted(reports) == ["job1", "job2", "job3"]
    assert all(r.score == 81 for r in reports.values())
    assert beats, "the waiting calls heartbeat"
    refusals = [t for t, _, _, status in arrivals if status == 429]
    for refused_at in refusals:  # nothing reached the provider while a hold ran
        inside = [t for t, *_ in arrivals if refused_at + 0.3 < t < refused_at + 0.8]
        assert inside == [], (refusals, arrivals)
    assert len(refusals) <= 3, "one refusal a hold, not one a waiting call"
    assert provider.counts()["repeated_answers"] == {}
    assert _observations(store) == 3, "each answer counted once; a 429 costs nothing"
    summary = spend.summary()
    assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0
    assert provider_results.stored(store, "score:job1:run1") is not None


def test_past_the_bound_the_attempt_fails_rate_limited(store, settings, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    settings.set_value("llm.rate_limit_max_wait_seconds", 0.5)
    spend = SpendAuthority(store, settings)
    with FaultProvider("rate_limited", retry_after=30) as provider:
        started = time.monotonic()
        with pytest.raises(ProviderError) as failed:
            _call(spend, _lane(provider), "job1")
        assert time.monotonic() - started < 10
        assert provider.counts()["sent"] == 1, "a hold past the bound is not waited out"
    assert failed.value.code == PROVIDER_RATE_LIMITED and failed.value.retryable
    assert failed.value.retry_after is not None
    assert 25 <= failed.value.retry_after.total_seconds() <= 31
    assert _observations(store) == 0
    assert spend.summary()["openReservations"]["count"] == 0


class Cancelled(BaseException):
    """What the activity heartbeat raises in a cancelled attempt."""


def test_a_cancel_during_the_wait_stops_it_and_closes_the_reservation(store, settings, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    spend = SpendAuthority(store, settings)
    beats = 0

    def heartbeat() -> None:
        nonlocal beats
        beats += 1
        if beats >= 3:
            raise Cancelled

    with FaultProvider("rate_limited", retry_after=30) as provider:
        started = time.monotonic()
        with pytest.raises(Cancelled):
            _call(spend, _lane(provider), "job1", heartbeat)
        assert time.monotonic() - started < 10
        assert provider.counts()["sent"] == 1
    assert _observations(store) == 0
    assert spend.summary()["openReservations"]["count"] == 0, "nothing was paid"


def test_the_wait_bound_is_a_validated_setting(home, settings):
    assert settings.get("llm.rate_limit_max_wait_seconds") == 300.0
    stored = change_settings(home, {"llm.rate_limit_max_wait_seconds": "0"})
    assert stored.root["llm.rate_limit_max_wait_seconds"] == 0.0
    for bad in ("-1", "421", "inf", "soon"):
        with pytest.raises(ConfigError):
            change_settings(home, {"llm.rate_limit_max_wait_seconds": bad})
