"""Estimated USD cost of a provider call, from genai-prices' bundled price data.

The data ships with the package and is read offline (no price update is ever fetched).
A model genai-prices does not know is charged a generic rate and reported as unpriced,
so the ledger can say its total is an estimate. The offline provider costs nothing.
"""

from __future__ import annotations

# USD per million tokens (input, output) for models without a known price.
GENERIC_RATE = (1.00, 4.00)


def estimate_cost_usd(
    provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    *,
    base_url: str | None = None,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> tuple[float, bool]:
    """(usd, priced): ``priced`` is False when the generic fallback rate was used.

    ``input_tokens`` counts every input token; of them, ``cache_read_tokens`` were read
    from the provider's prompt cache and ``cache_write_tokens`` written to it, each priced
    as the provider prices it (a model without cache prices pays its input price).

    ``base_url`` (a lane's OpenAI-compatible server) picks the provider by its API address,
    e.g. OpenRouter's; a server genai-prices does not know falls back to the generic rate.
    """
    if provider == "offline":
        return 0.0, True
    # Here, not at the top: reads (`jobctrl jobs`, via the spend query) import this module,
    # and the price data is a tenth of a second of start-up only a priced call needs (its
    # reservation, before the call, loads it: never between an answer and its record)
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    usage = PriceUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read_tokens or None,
        cache_write_tokens=cache_write_tokens or None,
    )
    try:
        price = (
            calc_price(usage, model, provider_api_url=base_url)
            if base_url
            else calc_price(usage, model, provider_id=provider)
        )
    except LookupError:
        usd = (input_tokens * GENERIC_RATE[0] + output_tokens * GENERIC_RATE[1]) / 1_000_000
        return usd, False
    return float(price.total_price), True


def worst_case_cost_usd(
    provider: str,
    model: str,
    input_tokens: int,
    max_output_tokens: int,
    *,
    base_url: str | None = None,
) -> float:
    """What a budget reservation holds: the measured input plus the maximum output, the
    input at the dearer of its plain price and its cache-write price (a request with cache
    points may write all of it to the provider's cache: Anthropic charges 1.25× for that)."""
    plain, _ = estimate_cost_usd(
        provider, model, input_tokens, max_output_tokens, base_url=base_url
    )
    written, _ = estimate_cost_usd(
        provider,
        model,
        input_tokens,
        max_output_tokens,
        base_url=base_url,
        cache_write_tokens=input_tokens,
    )
    return max(plain, written)
