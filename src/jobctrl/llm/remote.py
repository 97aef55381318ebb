"""Remote model calls through pydantic-ai: one structured request, errors mapped to codes.

``build_model`` turns a lane's provider settings into a pydantic-ai model whose SDK client
never retries (``max_retries=0``): the activity's retry policy, and the endpoint's pace
(``llm.pacing``, which ``observe`` feeds every HTTP response's status and headers), are
the retry layers.
``run_structured`` makes one request for a validated output and returns it with its token
usage; every failure becomes a ``ProviderError`` with a stable code, a retryable flag, the
provider's requested delay and the usage already spent. Messages never quote the prompt or
the provider's response. Keys come from environment variables only and are never logged.

A model's HTTP client belongs to the event loop it is first used on: build one per attempt.

The SDKs (anthropic, openai, pydantic-ai) are imported by ``remote_sdk`` on the first
remote call, not here: they take several seconds of CPU to import, which every worker and
command start would pay even when every lane is offline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from jobctrl.config import DEFAULT_KEY_ENV
from jobctrl.domain import errors
from jobctrl.llm.remote_types import (
    PLACEHOLDER_KEY,
    REQUEST_TIMEOUT_SECONDS,
    LaneModel,
    ObserveResponse,
    OnResponse,
    ProviderError,
    api_key,
)
from jobctrl.llm.spend import Usage

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = [
    "PLACEHOLDER_KEY",
    "REQUEST_TIMEOUT_SECONDS",
    "LaneModel",
    "ObserveResponse",
    "OnResponse",
    "ProviderError",
    "api_key",
    "build_model",
    "replay_structured",
    "run_structured",
]

T = TypeVar("T", bound=BaseModel)


def build_model(
    lane: LaneModel,
    observe: ObserveResponse | None = None,
    sent: Callable[[], None] | None = None,
) -> Model:
    """The pydantic-ai model for ``lane``, its SDK client built with retries off.
    ``sent`` (when given) is called as each request leaves and ``observe`` is told each
    response's status and headers, through event hooks on the SDK's own default HTTP
    client (its timeouts and limits kept)."""
    if lane.provider not in DEFAULT_KEY_ENV:
        raise ProviderError(
            errors.CONFIGURATION,
            f"unknown provider {lane.provider!r}; use one of offline, openai, anthropic",
        )
    key = api_key(lane)
    from jobctrl.llm import remote_sdk  # lazy: the SDKs cost seconds to import (see above)

    return remote_sdk.build_model(lane, key, observe, sent)


def run_structured(
    model: Model,
    output_type: type[T],
    *,
    system: str,
    prompt: str,
    max_output_tokens: int,
    timeout_s: float = REQUEST_TIMEOUT_SECONDS,
    on_response: OnResponse | None = None,
    lane: LaneModel | None = None,
) -> tuple[T, Usage]:
    """One request for a validated ``output_type``; raises ``ProviderError`` on any failure.

    ``on_response`` gets the usage of each response and the response as soon as it
    arrives (to record both before anything else can go wrong). ``lane`` (the one the
    model was built for) says how structured output is asked for (``LaneModel.output``;
    a tool call without it) and names the lane in a refusal's suggested command."""
    from jobctrl.llm import remote_sdk  # lazy: the SDKs cost seconds to import (see above)

    return remote_sdk.run_structured(
        model,
        output_type,
        system=system,
        prompt=prompt,
        max_output_tokens=max_output_tokens,
        timeout_s=timeout_s,
        on_response=on_response,
        lane=lane,
    )


def replay_structured(output_type: type[T], *, system: str, response: Any) -> T:
    """Parse a stored answer (what ``on_response`` was given) into ``output_type`` exactly
    as ``run_structured`` would have, without any request; raises ``ProviderError``
    (``PROVIDER_INVALID_OUTPUT``) when it does not fit."""
    from jobctrl.llm import remote_sdk  # lazy: the SDKs cost seconds to import (see above)

    return remote_sdk.replay_structured(output_type, system=system, response=response)
