"""The SDK side of ``llm.remote`` (anthropic, openai, pydantic-ai), imported on the first
remote call: building a lane's model, one structured request, a stored answer replayed,
and every SDK failure mapped to a ``ProviderError``.

A lane's ``output`` mode picks pydantic-ai's output marker: ``tool`` a tool call
(``ToolOutput``), ``json`` the server's JSON-schema output (``NativeOutput``:
``response_format``), ``prompted`` the schema in the instructions and JSON read from the
text, a Markdown fence around it removed (``PromptedOutput``; sent with no
``response_format`` at all, which LM Studio and others refuse in its ``json_object`` form).
A server that refuses tools fails ``PROVIDER_TOOLS_UNSUPPORTED`` with the command to switch;
an answer cut off at its token cap fails ``PROVIDER_OUTPUT_TRUNCATED``: never retried (the
same cap would cut it again), its usage recorded as billed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anthropic
import openai
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI
from pydantic import BaseModel, ValidationError
from pydantic_ai import Agent, NativeOutput, PromptedOutput, ToolOutput
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelFeatureUnsupportedError,
    ModelHTTPError,
    ModelQuotaExceededError,
    ModelRateLimitError,
    ModelRequestRejectedError,
    OutputTokenLimitExceeded,
    UnexpectedModelBehavior,
    UserError,
)
from pydantic_ai.messages import (
    CachePoint,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    ToolCallPart,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.output import OutputSpec
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RunUsage

from jobctrl.domain import errors
from jobctrl.llm.remote_types import (
    CACHE_BREAK,
    REQUEST_TIMEOUT_SECONDS,
    LaneModel,
    ObserveResponse,
    OnResponse,
    ProviderError,
)
from jobctrl.llm.spend import Usage

T = TypeVar("T", bound=BaseModel)


def build_model(
    lane: LaneModel,
    key: str,
    observe: ObserveResponse | None = None,
    sent: Callable[[], None] | None = None,
) -> Model:
    """``remote.build_model`` once the lane's provider and key are known good."""
    hooks: dict[str, list[Callable[[Any], Any]]] = {}
    if sent is not None:
        hooks["request"] = [_request_hook(sent)]
    if observe is not None:
        hooks["response"] = [_response_hook(observe)]
    if lane.provider == "openai":
        http = openai.DefaultAsyncHttpxClient(event_hooks=hooks) if hooks else None
        client = AsyncOpenAI(api_key=key, base_url=lane.base_url, max_retries=0, http_client=http)
        return OpenAIChatModel(
            lane.model,
            provider=OpenAIProvider(openai_client=client),
            profile=_openai_profile(lane),
        )
    http = anthropic.DefaultAsyncHttpxClient(event_hooks=hooks) if hooks else None
    sdk = AsyncAnthropic(api_key=key, base_url=lane.base_url, max_retries=0, http_client=http)
    return AnthropicModel(lane.model, provider=AnthropicProvider(anthropic_client=sdk))


def _openai_profile(lane: LaneModel) -> OpenAIModelProfile:
    """What a lane's OpenAI-compatible server is told differently from OpenAI's own API.
    Any other server gets the output cap as ``max_tokens``: Ollama, LM Studio, llama.cpp and
    OpenRouter ignore OpenAI's newer ``max_completion_tokens``, and an uncapped local
    model can run on to its context's end. Prompted output sends no ``response_format``
    (the mode for any server)."""
    profile = OpenAIModelProfile()
    host = urlsplit(lane.base_url).hostname if lane.base_url else "api.openai.com"
    if host != "api.openai.com":
        profile["openai_chat_supports_max_completion_tokens"] = False
    if lane.output == "prompted":
        profile["supports_json_object_output"] = False
    return profile


def _request_hook(sent: Callable[[], None]) -> Callable[[Any], Any]:
    async def hook(_request: Any) -> None:
        sent()

    return hook


def _response_hook(observe: ObserveResponse) -> Callable[[Any], Any]:
    async def hook(response: Any) -> None:  # an httpx2 response, refusals included
        observe(response.status_code, response.headers)

    return hook


class _UsageTap(WrapperModel):
    """Hands each response's token usage and the response itself to ``on_response`` the
    moment it arrives, before the agent parses or validates anything: what a call cost and
    what it answered are known (and recorded by the caller, together) even if the process
    dies a moment later."""

    def __init__(self, wrapped: Model, on_response: OnResponse) -> None:
        super().__init__(wrapped)
        self._on_response = on_response

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        response = await super().request(messages, model_settings, model_request_parameters)
        used = response.usage
        self._on_response(
            Usage(
                input_tokens=used.input_tokens,
                output_tokens=used.output_tokens,
                cache_read_tokens=used.cache_read_tokens,
                cache_write_tokens=used.cache_write_tokens,
            ),
            ModelMessagesTypeAdapter.dump_python([response], mode="json"),
        )
        return response


def output_spec(output_type: type[T], output: str) -> OutputSpec[T]:
    """pydantic-ai's output marker for a lane's ``output`` mode (tool, json, prompted)."""
    if output == "json":
        return NativeOutput(output_type)
    if output == "prompted":
        return PromptedOutput(output_type)
    return ToolOutput(output_type)


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
    """``remote.run_structured``."""
    if on_response is not None:
        model = _UsageTap(model, on_response)
    output = lane.output if lane is not None else "tool"
    # No output retries: an invalid output ends the attempt, and the activity retries it.
    agent = Agent(
        model,
        output_type=output_spec(output_type, output),
        instructions=system,
        retries={"output": 0},
    )
    settings = _settings(model, max_output_tokens, timeout_s)
    # The run adds each response's usage to this object as it arrives, so it still holds
    # the tokens a failed run spent.
    spent = RunUsage()
    try:
        result = agent.run_sync(_prompt(model, prompt), model_settings=settings, usage=spent)
    except (ModelAPIError, UnexpectedModelBehavior, UserError) as exc:
        raise _provider_error(
            exc, model.model_name, output_type, _usage(spent), lane, max_output_tokens
        ) from None
    return result.output, _usage(spent)


def _anthropic(model: Model) -> bool:
    while isinstance(model, WrapperModel):
        model = model.wrapped
    return isinstance(model, AnthropicModel)


def _settings(model: Model, max_output_tokens: int, timeout_s: float) -> ModelSettings:
    """The request's settings; for Anthropic, cache points on the tool definitions and the
    instructions (OpenAI caches a request's identical leading tokens by itself)."""
    if _anthropic(model):
        return AnthropicModelSettings(
            max_tokens=max_output_tokens,
            timeout=timeout_s,
            anthropic_cache_tool_definitions=True,
            anthropic_cache_instructions=True,
        )
    return ModelSettings(max_tokens=max_output_tokens, timeout=timeout_s)


def _prompt(model: Model, prompt: str) -> str | list[str | CachePoint]:
    """The prompt as sent: at ``CACHE_BREAK`` (after the part every job of a lane shares) a
    cache point for Anthropic; for other providers the mark is dropped."""
    if CACHE_BREAK not in prompt:
        return prompt
    stable, _, rest = prompt.partition(CACHE_BREAK)
    if _anthropic(model):
        return [stable, CachePoint(), rest]
    return stable + rest


def replay_structured(output_type: type[T], *, system: str, response: Any) -> T:
    """``remote.replay_structured``."""
    try:
        answer = ModelMessagesTypeAdapter.validate_python(response)[-1]
    except (ValidationError, IndexError):
        raise ProviderError(
            errors.PROVIDER_INVALID_OUTPUT, "the stored answer is unreadable", retryable=True
        ) from None
    if not isinstance(answer, ModelResponse):
        raise ProviderError(
            errors.PROVIDER_INVALID_OUTPUT, "the stored answer is not a response", retryable=True
        )

    def again(_messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        return answer

    # Parsed as it was asked for: a tool call as a tool's arguments, any other answer as
    # JSON text (native and prompted output are read alike).
    called = any(isinstance(part, ToolCallPart) for part in answer.parts)
    agent = Agent(
        FunctionModel(again),
        output_type=output_spec(output_type, "tool" if called else "prompted"),
        instructions=system,
        retries={"output": 0},
    )
    try:
        return agent.run_sync("").output
    except (ModelAPIError, UnexpectedModelBehavior, UserError) as exc:
        raise _provider_error(exc, "stored answer", output_type, Usage(0, 0)) from None


def _usage(spent: RunUsage) -> Usage:
    return Usage(
        input_tokens=spent.input_tokens,
        output_tokens=spent.output_tokens,
        cache_read_tokens=spent.cache_read_tokens,
        cache_write_tokens=spent.cache_write_tokens,
    )


# What local servers answer when the model cannot take ``tools``: Ollama (400, "<model> does
# not support tools"), llama.cpp's server without --jinja (500, "tools param requires
# --jinja flag"; older builds "Unsupported param: tools").
_TOOLS_REFUSED = ("does not support tools", "tools param requires", "unsupported param: tools")


def _refuses_tools(exc: Exception) -> bool:
    if not isinstance(exc, ModelHTTPError):
        return False
    said = f"{exc.body} {exc.message}".lower()
    return any(words in said for words in _TOOLS_REFUSED)


def _provider_error(
    exc: Exception,
    model: str,
    output_type: type[BaseModel],
    usage: Usage,
    lane: LaneModel | None = None,
    max_output_tokens: int | None = None,
) -> ProviderError:
    used = usage if usage.input_tokens or usage.output_tokens else None
    if isinstance(exc, OutputTokenLimitExceeded):
        cap = f" of {max_output_tokens} tokens" if max_output_tokens else ""
        return ProviderError(
            errors.PROVIDER_OUTPUT_TRUNCATED,
            f"{model}'s answer was cut off at its output limit{cap} before "
            f"{output_type.__name__} was whole; it is billed and kept, and not asked again",
            usage=used,
        )
    if (lane is None or lane.output == "tool") and _refuses_tools(exc):
        command = (
            lane.set_command("json") if lane is not None else "jobctrl llm set … --output json"
        )
        return ProviderError(
            errors.PROVIDER_TOOLS_UNSUPPORTED,
            f"This model ({model}) does not support tool calls; run `{command}` "
            "or the same with `--output prompted`",
            usage=used,
        )
    if isinstance(exc, UnexpectedModelBehavior):
        # A server that ignores ``response_format`` answers prose: the schema must be shown.
        hint = (
            f"; if the server ignores the JSON schema, run `{lane.set_command('prompted')}`"
            if lane is not None and lane.output == "json"
            else ""
        )
        return ProviderError(
            errors.PROVIDER_INVALID_OUTPUT,
            f"{model} returned output that does not fit {output_type.__name__}"
            f"{_validation_summary(exc)}{hint}",
            retryable=True,
            usage=usage,
        )
    if isinstance(exc, ModelFeatureUnsupportedError) and lane is not None and lane.output != "tool":
        # Refused before sending: the SDK knows this model has no JSON-schema output.
        return ProviderError(
            errors.CONFIGURATION,
            f"{model} does not support --output {lane.output}; run "
            f"`{lane.set_command('prompted' if lane.output == 'json' else 'tool')}`",
            usage=used,
        )
    if isinstance(exc, UserError):
        return ProviderError(
            errors.CONFIGURATION, f"{model}: pydantic-ai refused the request setup", usage=used
        )
    status = exc.status_code if isinstance(exc, ModelHTTPError) else None
    http = f" (HTTP {status})" if status else ""
    if isinstance(exc, ModelQuotaExceededError):
        return ProviderError(
            errors.PROVIDER_REQUEST_REJECTED,
            f"{model}: the provider says the account's quota or credits are spent{http}",
            usage=used,
        )
    if isinstance(exc, ModelRateLimitError) or status == 429:
        after = exc.retry_after if isinstance(exc, ModelAPIError) else None
        return ProviderError(
            errors.PROVIDER_RATE_LIMITED,
            f"{model}: rate limited{http}",
            retryable=True,
            retry_after=timedelta(seconds=after) if after is not None else None,
            usage=used,
        )
    if isinstance(exc, ModelAuthenticationError) or status in (401, 403):
        return ProviderError(
            errors.PROVIDER_AUTH,
            f"{model}: the provider refused the lane's API key{http}",
            usage=used,
        )
    if isinstance(exc, ModelRequestRejectedError) or (status and 400 <= status < 500):
        return ProviderError(
            errors.PROVIDER_REQUEST_REJECTED,
            f"{model}: the provider rejected the request{http}",
            usage=used,
        )
    # Server errors, connection failures and timeouts: another attempt may succeed.
    return ProviderError(
        errors.PROVIDER_UNAVAILABLE,
        f"{model}: the provider is unavailable ({type(exc).__name__}{http})",
        retryable=True,
        usage=used,
    )


def _validation_summary(exc: BaseException) -> str:
    """The count and schema paths of the validation errors, never the values or extra keys."""
    cause: BaseException | None = exc
    for _ in range(8):  # a short walk down the chain; chains can be cyclic
        if cause is None or isinstance(cause, ValidationError):
            break
        cause = cause.__cause__ or cause.__context__
    if not isinstance(cause, ValidationError):
        return ""
    paths = [
        ".".join(str(part) for part in err["loc"]) or "(root)"
        for err in cause.errors(include_input=False, include_url=False)
        if err["type"] != "extra_forbidden"
    ]
    shown = ", ".join(dict.fromkeys(paths[:3]))
    return f" ({cause.error_count()} validation error(s){': ' + shown if shown else ''})"
