"""What ``llm.remote`` and its SDK side (``remote_sdk``) share, light to import: a lane's
model settings, the provider failure, its key, and the hooks' shapes."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from jobctrl.config import key_env_for
from jobctrl.domain import errors
from jobctrl.domain.errors import StageError
from jobctrl.llm.spend import Usage

# Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LM Studio) take any key, but
# the SDK requires a non-empty one.
PLACEHOLDER_KEY = "not-needed"
# How long one request may take before the client gives up on it.
REQUEST_TIMEOUT_SECONDS = 120.0
# In a lane's prompt, the end of what every job of the lane sends alike (the profile's
# facts): a cache point there for Anthropic, dropped for other providers.
CACHE_BREAK = "\x1f"


@dataclass(frozen=True)
class LaneModel:
    """The provider and model a lane names in config.yaml."""

    provider: str  # "openai" | "anthropic"
    model: str
    base_url: str | None = None
    api_key_env: str | None = None  # None: the provider's default variable, or none at a base URL
    output: str = "tool"  # how structured output is asked for: tool | json | prompted
    lane: str = ""  # the lane's name, for the command an error suggests ("" when none)

    def set_command(self, output: str) -> str:
        """The ``jobctrl llm set`` command that keeps this lane's settings and asks for
        structured output as ``output`` says."""
        parts = ["jobctrl llm set", self.lane or "LANE", self.provider, self.model]
        if self.base_url:
            parts += ["--base-url", self.base_url]
        if self.api_key_env:
            parts += ["--api-key-env", self.api_key_env]
        return " ".join([*parts, "--output", output])


class ProviderError(StageError):
    """A provider call failed; ``usage`` is what it spent (``None`` when nothing was)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        retry_after: timedelta | None = None,
        usage: Usage | None = None,
    ) -> None:
        super().__init__(code, message, retryable=retryable, retry_after=retry_after)
        self.usage = usage


def api_key(lane: LaneModel) -> str:
    """The lane's key from its environment variable (a placeholder where none is needed);
    ``ProviderError`` (configuration) when it is missing. Never log it."""
    env = key_env_for(lane.provider, lane.base_url, lane.api_key_env)
    if env is None:
        return PLACEHOLDER_KEY
    key = os.environ.get(env, "")
    if not key:
        raise ProviderError(
            errors.CONFIGURATION,
            f"the {lane.provider} provider needs an API key in the environment variable {env}",
        )
    return key


# Told each HTTP response's status and headers as it arrives (rate-limit figures).
ObserveResponse = Callable[[int, Mapping[str, str]], None]
# The usage of a response and the response itself (JSON, for ``replay_structured``).
OnResponse = Callable[[Usage, Any], None]
