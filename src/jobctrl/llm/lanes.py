"""One model call for one lane of one job's step, at most once.

Each lane (score, tailor, cover) names its provider and model in config.yaml. The offline
provider answers locally. A remote provider's attempt is admitted by the spend authority
(a strict reservation of its worst case). Its usage is recorded the moment the response
arrives, before it is parsed (settling the reservation); its validated output is stored
next, keyed by lane, job and workflow run, so a retried attempt of the same run (after a
crash, say) reuses that output instead of paying for the call again. A worker that dies
mid-call leaves its reservation unsettled: counted as assumed spend, never forgotten.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from jobctrl.config import LaneProvider, load_config
from jobctrl.home import Home
from jobctrl.llm.remote import LaneModel, ProviderError, build_model, run_structured
from jobctrl.llm.spend import SpendAuthority, Usage, record_in
from jobctrl.store import provider_results

T = TypeVar("T", bound=BaseModel)
MAX_OUTPUT_TOKENS = {"score": 2_000, "tailor": 3_000, "cover": 1_200}
# Fault injection for the crash test: exit right after a paid call's result is stored.
CRASH_AFTER_CALL = "JOBCTRL_FAULT_EXIT_AFTER_PROVIDER_CALL"


def lane_provider(home: Home, lane: str) -> LaneProvider:
    return load_config(home).providers.get(lane) or LaneProvider()


def estimate_tokens(text: str) -> int:
    """A conservative token estimate for the reservation (about four characters a token)."""
    return max(1, len(text) // 3)


def call_lane(
    spend: SpendAuthority,
    lane: str,
    config: LaneProvider,
    *,
    job_id: str,
    run_id: str,
    attempt: int,
    output_type: type[T],
    system: str,
    prompt: Callable[[], str],
    offline: Callable[[], T],
) -> T:
    """The lane's output for this step: offline, stored from an earlier attempt, or paid.

    ``config`` is the lane's provider as the caller read it once (``lane_provider``), so
    the provider recorded with the output is the one that was asked; ``spend`` admits
    the attempt and records what it cost."""
    observation_id = f"{lane}:{job_id}:{run_id}:{attempt}"
    if config.provider == "offline":
        return spend.guarded_call(
            lane=lane,
            observation_id=observation_id,
            provider="offline",
            model=config.model,
            call=lambda: (offline(), None),
        )
    key = f"{lane}:{job_id}:{run_id}"
    stored = provider_results.stored_output(spend.store, key)
    if stored is not None:
        return output_type.model_validate(stored)  # paid for already: never again
    text = prompt()
    max_out = MAX_OUTPUT_TOKENS.get(lane, 2_000)
    lane_model = LaneModel(config.provider, config.model, config.base_url, config.api_key_env)

    responses = 0

    def record_response(usage: Usage) -> None:
        # The first response settles the attempt's reservation (same id); a second one in
        # the same run (none expected: no tools, no output retries) is counted apart.
        nonlocal responses
        responses += 1
        spend.record(
            observation_id=observation_id if responses == 1 else f"{observation_id}#{responses}",
            lane=lane,
            provider=config.provider,
            model=config.model,
            usage=usage,
        )

    def call() -> tuple[T, Usage | None]:
        try:
            output, usage = run_structured(
                build_model(lane_model),
                output_type,
                system=system,
                prompt=text,
                max_output_tokens=max_out,
                on_response=record_response,
            )
        except ProviderError as error:
            if error.usage is not None and not responses:  # not recorded as it arrived
                spend.record(
                    observation_id=observation_id,
                    lane=lane,
                    provider=config.provider,
                    model=config.model,
                    usage=error.usage,
                )
            raise
        _store(spend, key, lane, job_id, run_id, observation_id, output, usage, config)
        if os.environ.get(CRASH_AFTER_CALL) == lane:
            os._exit(137)
        return output, None  # usage is already recorded: as it arrived, and with the output

    return spend.guarded_call(
        lane=lane,
        observation_id=observation_id,
        provider=config.provider,
        model=config.model,
        call=call,
        input_tokens=estimate_tokens(system + text),
        max_output_tokens=max_out,
    )


def _store(
    spend: SpendAuthority,
    key: str,
    lane: str,
    job_id: str,
    run_id: str,
    observation_id: str,
    output: BaseModel,
    usage: Usage,
    config: LaneProvider,
) -> None:
    """The output (and its usage, if the response tap did not record it already), in one
    transaction, before anything else uses them."""
    with spend.store.write(clock=spend.clock) as tx:
        provider_results.save_output(
            tx,
            key=key,
            lane=lane,
            job_id=job_id,
            run_id=run_id,
            observation_id=observation_id,
            output=json.loads(output.model_dump_json()),
        )
        record_in(
            tx,
            observation_id=observation_id,
            lane=lane,
            provider=config.provider,
            model=config.model,
            usage=usage,
        )
