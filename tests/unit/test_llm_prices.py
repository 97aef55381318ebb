"""Cost estimates from genai-prices' bundled data, with a generic rate for unknown models."""

from __future__ import annotations

import socket

import pytest

from jobctrl.llm.prices import GENERIC_RATE, estimate_cost_usd, worst_case_cost_usd


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pricing must work offline: any connection attempt fails the test."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("price lookup tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize(
    ("provider", "model"), [("openai", "gpt-4o-mini"), ("anthropic", "claude-3-5-haiku")]
)
def test_known_models_are_priced_and_proportional_to_tokens(provider: str, model: str) -> None:
    one, priced = estimate_cost_usd(provider, model, 1_000, 500)
    double, _ = estimate_cost_usd(provider, model, 2_000, 1_000)
    assert priced is True
    assert one > 0
    assert double == pytest.approx(2 * one)


def test_output_tokens_cost_more_than_input_tokens_for_a_known_model() -> None:
    inp, _ = estimate_cost_usd("openai", "gpt-4o-mini", 1_000, 0)
    out, _ = estimate_cost_usd("openai", "gpt-4o-mini", 0, 1_000)
    assert 0 < inp < out


def test_unknown_model_falls_back_to_the_generic_rate_unpriced() -> None:
    usd, priced = estimate_cost_usd("openai", "no-such-model-7b", 1_000_000, 1_000_000)
    assert priced is False
    assert usd == pytest.approx(sum(GENERIC_RATE))


def test_unknown_provider_and_local_server_fall_back_to_the_generic_rate() -> None:
    assert estimate_cost_usd("someone", "gpt-4o-mini", 10, 10)[1] is False
    local = estimate_cost_usd("openai", "llama3.1:8b", 10, 10, base_url="http://127.0.0.1:11434/v1")
    assert local[1] is False


def test_a_known_api_address_prices_its_own_model_names() -> None:
    usd, priced = estimate_cost_usd(
        "openai", "openai/gpt-4o-mini", 1_000, 500, base_url="https://openrouter.ai/api/v1"
    )
    assert priced is True
    assert usd > 0


def test_offline_costs_nothing_and_counts_as_priced() -> None:
    assert estimate_cost_usd("offline", "offline-extractive-v1", 10_000, 10_000) == (0.0, True)
    assert worst_case_cost_usd("offline", "offline-extractive-v1", 10_000, 4_000) == 0.0


def test_worst_case_is_the_measured_input_plus_the_maximum_output() -> None:
    worst = worst_case_cost_usd("openai", "gpt-4o-mini", 2_000, 1_500)
    assert worst == pytest.approx(estimate_cost_usd("openai", "gpt-4o-mini", 2_000, 1_500)[0])
    assert worst > estimate_cost_usd("openai", "gpt-4o-mini", 2_000, 100)[0]
    unknown = worst_case_cost_usd("openai", "no-such-model-7b", 1_000_000, 1_000_000)
    assert unknown == pytest.approx(sum(GENERIC_RATE))


def test_a_reservation_covers_writing_the_whole_input_to_a_prompt_cache() -> None:
    # Anthropic charges 1.25x the input price to write to its cache (jobctrl sets cache
    # points): the worst case is every input token written, never less than plain input.
    plain = estimate_cost_usd("anthropic", "claude-sonnet-4-0", 10_000, 1_000)[0]
    written = estimate_cost_usd(
        "anthropic", "claude-sonnet-4-0", 10_000, 1_000, cache_write_tokens=10_000
    )[0]
    assert written > plain
    assert worst_case_cost_usd("anthropic", "claude-sonnet-4-0", 10_000, 1_000) == written
