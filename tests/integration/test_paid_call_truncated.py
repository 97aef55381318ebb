"""Spend and answer reuse in every output mode, and an answer cut off at its output cap.

A truncated answer (``finish_reason: "length"``) is billed by the provider: its usage is
recorded once, as it arrived, and the step fails ``PROVIDER_OUTPUT_TRUNCATED``, not
retryable; a later attempt of the run, or a run recovering it, fails the same way from the
kept answer without asking again. Only a person's new run asks again. An answer in one
output mode is never reused for a request in another (the request digest names the mode).
The provider is the loopback OpenAI-compatible fake (tests/support/fake_openai.py)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from jobctrl.config import LaneProvider
from jobctrl.domain import errors
from jobctrl.llm.lanes import MAX_OUTPUT_TOKENS, call_lane
from jobctrl.llm.prices import estimate_cost_usd
from jobctrl.llm.remote import ProviderError
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import schema, tenancy
from tests.integration.test_llm_output_modes import FIT, MODES, Fit
from tests.support.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS, FakeOpenAI

MODEL = "gpt-4o-mini"  # a priced model: what a truncated answer cost is known


def _lane(server: FakeOpenAI, output: str) -> LaneProvider:
    return LaneProvider.model_validate(
        {"provider": "openai", "model": MODEL, "base_url": server.base_url, "output": output}
    )


def _call(
    spend: SpendAuthority, lane: LaneProvider, run_id: str = "run1", attempt: int = 1, **kw: Any
) -> Fit:
    return call_lane(
        spend, "score", lane, job_id="job1", run_id=run_id, attempt=attempt,
        output_type=Fit, system="s", prompt=lambda: "p",
        offline=lambda: Fit.model_validate(FIT), **kw,
    )  # fmt: skip


def _observations(store) -> list[tuple[str, int, int, float]]:
    obs = schema.llm_usage_observations
    with store.read() as conn:
        rows = conn.execute(
            select(obs.c.observation_id, obs.c.input_tokens, obs.c.output_tokens, obs.c.cost_usd)
            .where(tenancy.scoped(obs, conn))
            .order_by(obs.c.observation_id)
        ).all()
    return [tuple(r) for r in rows]


def _truncated(spend: SpendAuthority, lane: LaneProvider, **kw: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        _call(spend, lane, **kw)
    assert caught.value.code == errors.PROVIDER_OUTPUT_TRUNCATED
    assert caught.value.retryable is False, "the same cap would cut it again: never retried"
    return caught.value


@pytest.mark.parametrize("output", MODES)
def test_a_truncated_answer_is_billed_once_and_never_asked_again(
    output: str, store, settings
) -> None:
    spend = SpendAuthority(store, settings)
    cap = MAX_OUTPUT_TOKENS["score"]
    with FakeOpenAI("ok", FIT, truncate=True) as server:
        lane = _lane(server, output)
        first = _truncated(spend, lane)
        assert server.requests[0]["max_tokens"] == cap, "the lane's cap is sent"
        assert f"{cap} tokens" in first.message
        _truncated(spend, lane, attempt=2)  # a later attempt of the same run
        _truncated(spend, lane, run_id="run2", interrupted_run="run1")  # its recovery
        assert len(server.requests) == 1, "paid once: the kept answer fails again, free"
        cost, priced = estimate_cost_usd("openai", MODEL, PROMPT_TOKENS, cap)
        assert priced and cost > 0
        assert _observations(store) == [("score:job1:run1:1", PROMPT_TOKENS, cap, cost)]
        with store.read() as conn:
            ls = schema.llm_spend
            billed = conn.execute(
                select(ls.c.calls, ls.c.output_tokens, ls.c.cost_usd).where(
                    tenancy.scoped(ls, conn)
                )
            ).all()
        assert [tuple(r) for r in billed] == [(1, cap, cost)], "the spend ledger, as billed"
        summary = spend.summary()
        assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0
        # A person's new run asks again (and pays again, knowingly).
        server.truncate = False
        again = _call(spend, lane, run_id="run3")
        assert again == Fit.model_validate(FIT) and len(server.requests) == 2


@pytest.mark.parametrize("output", MODES)
def test_spend_and_reuse_are_the_same_in_every_mode(output: str, store, settings) -> None:
    spend = SpendAuthority(store, settings)
    with FakeOpenAI("ok", FIT) as server:
        lane = _lane(server, output)
        first = _call(spend, lane)
        second = _call(spend, lane, attempt=2)  # this run's answer, stored
        recovered = _call(spend, lane, run_id="run2", interrupted_run="run1")
        assert len(server.requests) == 1
    assert first == second == recovered == Fit.model_validate(FIT)
    cost, _priced = estimate_cost_usd("openai", MODEL, PROMPT_TOKENS, COMPLETION_TOKENS)
    assert _observations(store) == [("score:job1:run1:1", PROMPT_TOKENS, COMPLETION_TOKENS, cost)]


def test_an_answer_in_one_mode_is_never_reused_for_another(store, settings) -> None:
    spend = SpendAuthority(store, settings)
    with FakeOpenAI("ok", FIT) as server:
        _call(spend, _lane(server, "tool"), same_request=True)
        _call(spend, _lane(server, "prompted"), run_id="run2", same_request=True)
        assert len(server.requests) == 2, "a tool-call answer is no answer to a prompted request"
        _call(spend, _lane(server, "prompted"), run_id="run3", same_request=True)
        _call(spend, _lane(server, "tool"), run_id="run4", same_request=True)
        assert len(server.requests) == 2, "each mode's own earlier answer is reused"
