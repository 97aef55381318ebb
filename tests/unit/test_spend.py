"""The spend authority and ledger, driven by a fake provider that reports usage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from jobctrl.domain.errors import BudgetExceededError
from jobctrl.llm.spend import SpendAuthority, Usage, estimate_cost_usd
from jobctrl.store import schema, tenancy


class FakeProvider:
    """Behaves like a paid model: every call costs tokens and reports its usage."""

    name = "openai"
    model = "gpt-4o"

    def __init__(
        self, input_tokens: int = 100_000, output_tokens: int = 50_000, fail_times: int = 0
    ):
        self.calls = 0
        self.usage = Usage(input_tokens, output_tokens)
        self.fail_times = fail_times

    def __call__(self) -> tuple[str, Usage]:
        self.calls += 1
        return f"answer {self.calls}", self.usage


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 23, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def authority(store, settings, clock) -> SpendAuthority:
    return SpendAuthority(store, settings, clock=clock)


def _call(authority, provider, n, lane="score"):
    return authority.guarded_call(
        lane=lane, observation_id=f"{lane}:{n}", provider=provider.name, model=provider.model,
        call=provider,
    )  # fmt: skip


def _reserve(
    authority: SpendAuthority,
    reservation_id: str,
    *,
    lane: str = "score",
    model: str = "gpt-4o",
    input_tokens: int = 10_000,
    max_output_tokens: int = 5_000,
) -> float:
    """Reserve one OpenAI call; by default gpt-4o, 10k in and at most 5k out ($0.075)."""
    return authority.reserve(
        reservation_id=reservation_id, lane=lane, provider="openai", model=model,
        input_tokens=input_tokens, max_output_tokens=max_output_tokens,
    )  # fmt: skip


def test_budget_stops_the_next_attempt_not_the_one_admitted(authority, settings):
    settings.set_value("daily_budget_usd", 1.5)
    provider = FakeProvider()  # gpt-4o: 0.25 + 0.50 = $0.75 per call
    assert _call(authority, provider, 1) == "answer 1"
    assert _call(authority, provider, 2) == "answer 2"
    with pytest.raises(BudgetExceededError) as err:
        _call(authority, provider, 3)  # a retry is an attempt too: checked again
    assert err.value.code == "budget_exceeded" and err.value.retryable is False
    assert provider.calls == 2, "the provider is never called once the ceiling is met"


def test_zero_means_unlimited(authority, settings):
    settings.set_value("daily_budget_usd", 0.0)
    provider = FakeProvider(10_000_000, 10_000_000)
    for n in range(5):
        _call(authority, provider, n)
    assert provider.calls == 5


def test_lane_token_limit_blocks_only_that_lane(authority, settings):
    settings.set_value("lane_token_limits", {"score": 150000})
    provider = FakeProvider(100_000, 50_000)
    _call(authority, provider, 1, lane="score")
    with pytest.raises(BudgetExceededError):
        _call(authority, provider, 2, lane="score")
    assert _call(authority, provider, 3, lane="tailor") == "answer 2"


def test_ledger_upserts_by_utc_day_and_lane(authority, store, clock):
    provider = FakeProvider(1000, 500)
    _call(authority, provider, 1)
    _call(authority, provider, 2)
    clock.now += timedelta(hours=2)  # past midnight UTC: a new day, a new row
    _call(authority, provider, 3)
    with store.read() as conn:
        rows = (
            conn.execute(
                select(schema.llm_spend)
                .where(tenancy.scoped(schema.llm_spend, conn))
                .order_by(schema.llm_spend.c.day)
            )
            .mappings()
            .all()
        )
    assert [(r["day"], r["lane"], r["calls"], r["input_tokens"]) for r in rows] == [
        ("2026-11-29", "score", 2, 2000),
        ("2026-11-30", "score", 1, 1000),
    ]
    one_call = estimate_cost_usd("openai", "gpt-4o", 1000, 500)
    assert rows[0]["cost_usd"] == pytest.approx(2 * one_call)


def test_an_observation_is_counted_once(authority, store):
    same = {"observation_id": "o1", "lane": "score", "provider": "p", "model": "m"}
    assert authority.record(**same, usage=Usage(10, 5))
    assert not authority.record(**same, usage=Usage(10, 5))
    assert authority.summary()["lanes"][0]["calls"] == 1


def test_a_new_day_reopens_the_budget(authority, settings, clock):
    settings.set_value("daily_budget_usd", 0.5)
    provider = FakeProvider()
    _call(authority, provider, 1)
    with pytest.raises(BudgetExceededError):
        authority.preflight("score")
    clock.now += timedelta(hours=1)
    authority.preflight("score")


def test_unknown_models_use_the_generic_rate():
    assert estimate_cost_usd("openai", "some-new-model", 1_000_000, 0) == pytest.approx(1.0)
    assert estimate_cost_usd("offline", "offline-extractive-v1", 1_000_000, 1_000_000) == 0.0
    assert estimate_cost_usd("openai", "gpt-4o-mini", 1_000_000, 0) < 1.0, "priced, not generic"


# -- strict mode: reservations ---------------------------------------------------------------


def test_fifty_concurrent_calls_never_exceed_a_one_dollar_ceiling(store, settings):
    """Each call may cost up to $0.07 (gpt-4o: 10k in, 5k out); 50 run at once against $1.
    Whatever the interleaving, spend plus open reservations never passes the ceiling."""
    import threading

    settings.set_value("daily_budget_usd", 1.0)
    authority = SpendAuthority(store, settings)
    admitted, refused, peak = [], [], [0.0]
    lock = threading.Lock()

    def one(n: int) -> None:
        def call() -> tuple[str, Usage]:
            summary = authority.summary()
            with lock:
                peak[0] = max(
                    peak[0], summary["spentUsd"] + summary["openReservations"]["amountUsd"]
                )
            return "ok", Usage(10_000, 4_000)  # the real call used less than its maximum

        try:
            authority.guarded_call(
                lane="score",
                observation_id=f"c{n}",
                provider="openai",
                model="gpt-4o",
                call=call,
                input_tokens=10_000,
                max_output_tokens=5_000,
            )
            admitted.append(n)
        except BudgetExceededError:
            refused.append(n)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spent = authority.summary()["spentUsd"]
    assert spent <= 1.0 and peak[0] <= 1.0 + 1e-9
    assert admitted and refused, "some calls fit, the rest were refused before being sent"
    assert len(admitted) + len(refused) == 50
    assert authority.summary()["openReservations"]["count"] == 0


def test_a_reservation_left_by_a_crash_is_assumed_spent_never_forgotten(store, settings, clock):
    settings.set_value("daily_budget_usd", 0.10)
    settings.set_value("budget.reservation_ttl_seconds", 600.0)
    authority = SpendAuthority(store, settings, clock=clock)
    _reserve(authority, "crashed", lane="tailor")  # $0.075
    # The process died here: no usage, no settle. The reservation blocks what won't fit.
    assert authority.summary()["openReservations"]["count"] == 1
    with pytest.raises(BudgetExceededError):
        _reserve(authority, "next", lane="tailor")
    clock.now += timedelta(seconds=601)
    summary = authority.summary()
    assert summary["openReservations"]["count"] == 0, "no longer in flight..."
    assert (summary["assumedCalls"], summary["assumedUsd"]) == (1, 0.075), "...but assumed"
    assert summary["remainingUsd"] == pytest.approx(0.025)
    with pytest.raises(BudgetExceededError):
        _reserve(authority, "next", lane="tailor")
    settings.set_value("daily_budget_usd", 0.075)
    with pytest.raises(BudgetExceededError):
        authority.preflight("tailor")  # the preflight counts assumed spend too
    clock.now += timedelta(days=1)  # a new UTC day: yesterday's calls are yesterday's
    assert authority.summary()["assumedUsd"] == 0
    _reserve(authority, "next", lane="tailor")


def test_lane_tokens_count_reservations_too(store, settings):
    settings.set_value("lane_token_limits", {"cover": 20000})
    authority = SpendAuthority(store, settings)
    mini = {"model": "gpt-4o-mini", "input_tokens": 8_000, "max_output_tokens": 4_000}
    _reserve(authority, "a", lane="cover", **mini)
    with pytest.raises(BudgetExceededError):
        _reserve(authority, "b", lane="cover", **mini)
    _reserve(authority, "c", lane="score", **mini)


def test_recording_usage_closes_its_reservation_in_the_same_transaction(store, settings):
    """A reader between the two writes would count the call twice (as spend and reserved)."""
    authority = SpendAuthority(store, settings)
    _reserve(authority, "obs-1")
    assert authority.summary()["openReservations"]["count"] == 1
    authority.record(
        observation_id="obs-1", lane="score", provider="openai", model="gpt-4o", usage=Usage(10, 5)
    )
    summary = authority.summary()
    assert summary["openReservations"]["count"] == 0 and summary["spentUsd"] > 0
