"""Remote provider calls: validated outputs with usage, and every failure mapped to a code.

pydantic-ai's ``FunctionModel`` stands in for a model; a loopback OpenAI-compatible server
(``tests.support.fake_openai``) stands in for a real endpoint reached through the OpenAI SDK.
"""

from __future__ import annotations

import json
import socket
from datetime import timedelta
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from jobctrl.domain import errors
from jobctrl.domain.facts import profile_facts
from jobctrl.domain.materials import CoverLetter, TailoredResume
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm import prompts
from jobctrl.llm.remote import LaneModel, ProviderError, build_model, run_structured
from jobctrl.llm.spend import Usage
from tests.support.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS, FakeOpenAI
from tests.support.profile import TEST_PROFILE

SECRET = "sk-fake-do-not-leak"
PROMPT = "Score this posting: PRIVATE-PROMPT-TEXT"

REPORT: dict[str, Any] = {
    "score": 80,
    "verdict": "strong fit",
    "requirements": [
        {
            "requirement": "Python",
            "kind": "must",
            "matched": True,
            "matched_terms": ["python"],
            "evidence": [{"source": "skills", "text": "Python", "ref": "skills[0]"}],
        }
    ],
    "provider": "openai",
    "model": "gpt-4o-mini",
}
LETTER: dict[str, Any] = {
    "company": "Acme",
    "role": "Backend Engineer",
    "greeting": "Dear Hiring Team at Acme,",
    "paragraphs": [
        {"sentences": [{"text": "I build reliable services.", "facts": ["sum-0123456789"]}]},
        {"sentences": [{"text": "I would like to build yours.", "facts": []}]},
    ],
    "signature": "Ada Lovelace",
}


def answering(args: dict[str, Any], usage: RequestUsage) -> FunctionModel:
    """A model that calls the output tool with ``args`` and reports ``usage``."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        tool = info.output_tools[0].name
        return ModelResponse(parts=[ToolCallPart(tool, args)], usage=usage)

    return FunctionModel(respond, model_name="function-model")


def call(model: Any, output_type: type = ScoreReport, **kwargs: Any) -> Any:
    return run_structured(
        model, output_type, system="You score jobs.", prompt=PROMPT, max_output_tokens=800, **kwargs
    )


@pytest.fixture
def fake_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("FAKE_KEY", SECRET)
    return SECRET


def lane(server: FakeOpenAI) -> LaneModel:
    return LaneModel("openai", "gpt-4o-mini", base_url=server.base_url, api_key_env="FAKE_KEY")


# FunctionModel: outputs and usage


@pytest.mark.parametrize(("output_type", "args"), [(ScoreReport, REPORT), (CoverLetter, LETTER)])
def test_valid_output_is_returned_with_its_usage(output_type: type, args: dict) -> None:
    model = answering(args, RequestUsage(input_tokens=120, output_tokens=45))
    output, usage = call(model, output_type)
    assert output == output_type.model_validate(args)
    assert usage == Usage(input_tokens=120, output_tokens=45)


def test_invalid_output_is_a_retryable_error_carrying_the_usage_spent() -> None:
    bad = {**LETTER, "paragraphs": "not a list", "secret_field": "PROVIDER-TEXT"}
    model = answering(bad, RequestUsage(input_tokens=300, output_tokens=70))
    with pytest.raises(ProviderError) as caught:
        call(model, CoverLetter)
    err = caught.value
    assert err.code == errors.PROVIDER_INVALID_OUTPUT
    assert err.retryable is True
    assert err.usage == Usage(input_tokens=300, output_tokens=70)
    assert "CoverLetter" in err.message and "paragraphs" in err.message
    assert "PROVIDER-TEXT" not in str(err) and "secret_field" not in str(err)
    assert "not a list" not in str(err) and "PRIVATE-PROMPT-TEXT" not in str(err)


def _required(schema: dict[str, Any], name: str) -> list[str]:
    return list(schema["$defs"][name]["required"])


@pytest.mark.parametrize("output_type", [TailoredResume, CoverLetter])
def test_the_materials_output_schema_requires_citations(output_type: type) -> None:
    seen: list[dict[str, Any]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.output_tools[0].parameters_json_schema)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {})])

    with pytest.raises(ProviderError):  # the empty answer is refused; the schema is what counts
        call(FunctionModel(respond), output_type)
    schema = seen[0]
    assert _required(schema, "Cited") == ["text", "facts"]
    if output_type is TailoredResume:
        assert "fact" in _required(schema, "TailoredExperience")
        assert "fact" in _required(schema, "TailoredEducation")


def test_a_line_without_its_facts_is_invalid_output() -> None:
    bad = {**LETTER, "paragraphs": [{"sentences": [{"text": "I build reliable services."}]}]}
    with pytest.raises(ProviderError) as caught:
        call(answering(bad, RequestUsage(input_tokens=10, output_tokens=5)), CoverLetter)
    assert caught.value.code == errors.PROVIDER_INVALID_OUTPUT


def test_the_materials_prompts_list_every_profile_fact_with_its_id_and_ask_for_citations() -> None:
    profile = Profile(**TEST_PROFILE)
    report = ScoreReport.model_validate(REPORT)
    prompt = prompts.materials_prompt("Backend Engineer", "Acme", report, profile)
    for fact in profile_facts(profile):
        assert f"{fact.id} [" in prompt and fact.text in prompt
    for system in (prompts.TAILOR_SYSTEM, prompts.COVER_SYSTEM):
        assert "lists in `facts` the ids of the profile facts it rests on" in system
        assert "a line about the employer, the role or politeness lists none" in system


def test_invalid_output_is_not_retried_inside_the_call() -> None:
    calls: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"score": "high"})])

    with pytest.raises(ProviderError):
        call(FunctionModel(respond))
    assert len(calls) == 1


# build_model: configuration


def test_build_model_turns_sdk_retries_off(fake_key: str) -> None:
    openai_model = build_model(LaneModel("openai", "gpt-4o-mini", api_key_env="FAKE_KEY"))
    anthropic_model = build_model(
        LaneModel("anthropic", "claude-3-5-haiku-latest", api_key_env="FAKE_KEY")
    )
    assert openai_model.client.max_retries == 0  # type: ignore[attr-defined]
    assert anthropic_model.client.max_retries == 0  # type: ignore[attr-defined]


def test_unknown_provider_is_a_configuration_error() -> None:
    with pytest.raises(ProviderError) as caught:
        build_model(LaneModel("mystery", "m"))
    assert caught.value.code == errors.CONFIGURATION
    assert caught.value.retryable is False


def test_missing_default_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderError) as caught:
        build_model(LaneModel("anthropic", "claude-3-5-haiku-latest"))
    assert caught.value.code == errors.CONFIGURATION
    assert "ANTHROPIC_API_KEY" in caught.value.message


def test_missing_key_env_fails_without_contacting_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FAKE_KEY", raising=False)
    with FakeOpenAI("ok", REPORT) as server, pytest.raises(ProviderError) as caught:
        build_model(lane(server))
    assert caught.value.code == errors.CONFIGURATION
    assert caught.value.retryable is False
    assert "FAKE_KEY" in caught.value.message
    assert server.requests == []


# The OpenAI-compatible server


def test_ok_returns_the_validated_report_and_server_usage(fake_key: str) -> None:
    with FakeOpenAI("ok", REPORT) as server:
        report, usage = call(build_model(lane(server)))
    assert report == ScoreReport.model_validate(REPORT)
    assert usage == Usage(input_tokens=PROMPT_TOKENS, output_tokens=COMPLETION_TOKENS)
    assert len(server.requests) == 1
    request = server.requests[0]
    assert request["model"] == "gpt-4o-mini"
    assert 800 in (request.get("max_completion_tokens"), request.get("max_tokens"))
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"


def test_a_base_url_without_a_key_variable_gets_a_placeholder_not_the_openai_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAI("ok", LETTER) as server:
        model = build_model(LaneModel("openai", "llama3.1:8b", base_url=server.base_url))
        letter, _ = call(model, CoverLetter)
    assert letter.company == "Acme"
    assert SECRET not in json.dumps(server.headers)


@pytest.mark.parametrize(
    ("mode", "code", "retryable"),
    [
        ("rate_limited", errors.PROVIDER_RATE_LIMITED, True),
        ("server_error", errors.PROVIDER_UNAVAILABLE, True),
        ("unauthorized", errors.PROVIDER_AUTH, False),
        ("malformed", errors.PROVIDER_INVALID_OUTPUT, True),
    ],
)
def test_server_failures_map_to_codes_with_exactly_one_request(
    fake_key: str, mode: str, code: str, retryable: bool
) -> None:
    with FakeOpenAI(mode, REPORT) as server, pytest.raises(ProviderError) as caught:
        call(build_model(lane(server)))
    err = caught.value
    assert (err.code, err.retryable) == (code, retryable)
    assert len(server.requests) == 1  # the SDK did not retry
    assert SECRET not in str(err) and "PRIVATE-PROMPT-TEXT" not in str(err)
    assert "fake " not in str(err)  # the provider's error body is not quoted
    if mode == "rate_limited":
        assert err.retry_after == timedelta(seconds=7)
    else:
        assert err.retry_after is None
    if mode == "malformed":
        assert err.usage == Usage(input_tokens=PROMPT_TOKENS, output_tokens=COMPLETION_TOKENS)
        assert "unexpected" not in str(err)
    else:
        assert err.usage is None


def test_a_timeout_is_retryable_unavailable(fake_key: str) -> None:
    with FakeOpenAI("ok", REPORT, delay=2.0) as server, pytest.raises(ProviderError) as caught:
        call(build_model(lane(server)), timeout_s=0.3)
    assert (caught.value.code, caught.value.retryable) == (errors.PROVIDER_UNAVAILABLE, True)
    assert len(server.requests) == 1


def test_a_refused_connection_is_retryable_unavailable(fake_key: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = build_model(
        LaneModel(
            "openai", "gpt-4o-mini", base_url=f"http://127.0.0.1:{port}/v1", api_key_env="FAKE_KEY"
        )
    )
    with pytest.raises(ProviderError) as caught:
        call(model)
    assert (caught.value.code, caught.value.retryable) == (errors.PROVIDER_UNAVAILABLE, True)
