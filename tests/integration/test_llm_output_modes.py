"""A lane's output mode (`jobctrl llm set … --output tool|json|prompted`): how each mode
asks (a tool, a JSON-schema ``response_format``, the schema in the instructions with no
``response_format``), and the local servers' ways each is proven against on loopback
(tests/support/fake_openai.py): Ollama's and llama.cpp's refusals of ``tools`` fail once
with the command to switch, a server that ignores ``response_format`` needs ``prompted``,
and JSON in a Markdown fence is read. The lane's mode is kept in config.yaml and shown by
``llm list``."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import yaml
from pydantic import BaseModel, ConfigDict

from jobctrl.api.app import create_app
from jobctrl.app.configuration import list_lanes
from jobctrl.app.lanes import set_lane
from jobctrl.app.resume_structuring import request_ids
from jobctrl.config import LaneProvider
from jobctrl.domain import errors
from jobctrl.llm.lanes import call_lane
from jobctrl.llm.remote import LaneModel, ProviderError, build_model, run_structured
from jobctrl.llm.spend import SpendAuthority, Usage
from tests.support.fake_openai import (
    COMPLETION_TOKENS,
    PROMPT_TOKENS,
    PROMPTED_SCHEMA_MARK,
    FakeOpenAI,
)
from tests.support.processes import run_cli

MODES = ("tool", "json", "prompted")


class Requirement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    requirement: str
    matched: bool
    facts: list[str]


class Fit(BaseModel):
    """A structured answer of a lane's shape (the lanes' own schemas change with prompts)."""

    model_config = ConfigDict(extra="forbid")

    score: int
    requirements: list[Requirement]


FIT: dict[str, Any] = {
    "score": 81,
    "requirements": [{"requirement": "Python", "matched": True, "facts": ["skill-python"]}],
}


def _ask(server: FakeOpenAI, output: str) -> tuple[Fit, Usage]:
    lane = LaneModel("openai", "gemma:2b", base_url=server.base_url, output=output, lane="score")
    return run_structured(
        build_model(lane), Fit, system="You score jobs.", prompt="Score it.",
        max_output_tokens=800, lane=lane,
    )  # fmt: skip


def _lane(server: FakeOpenAI, output: str) -> LaneProvider:
    return LaneProvider.model_validate(
        {"provider": "openai", "model": "gemma:2b", "base_url": server.base_url, "output": output}
    )


def _call(spend: SpendAuthority, lane: LaneProvider, attempt: int = 1) -> Any:
    return call_lane(
        spend, "score", lane, job_id="job1", run_id="run1", attempt=attempt,
        output_type=Fit, system="s", prompt=lambda: "p",
        offline=lambda: Fit.model_validate(FIT),
    )  # fmt: skip


@pytest.mark.parametrize("output", MODES)
def test_each_mode_asks_as_its_name_says_and_reads_the_same_answer(output: str) -> None:
    with FakeOpenAI("ok", FIT) as server:
        report, usage = _ask(server, output)
        (sent,) = server.requests
    assert report == Fit.model_validate(FIT)
    assert usage == Usage(PROMPT_TOKENS, COMPLETION_TOKENS)
    # The cap as ``max_tokens``: what local servers read (they ignore max_completion_tokens).
    assert sent["max_tokens"] == 800 and "max_completion_tokens" not in sent
    instructions = " ".join(str(m.get("content")) for m in sent["messages"])
    if output == "tool":
        assert sent["tools"] and "response_format" not in sent
    elif output == "json":
        assert "tools" not in sent and sent["response_format"]["type"] == "json_schema"
        assert "score" in sent["response_format"]["json_schema"]["schema"]["properties"]
    else:  # the schema in the instructions, and no response_format for a server to refuse
        assert "tools" not in sent and "response_format" not in sent
        assert PROMPTED_SCHEMA_MARK in instructions and '"requirements"' in instructions


@pytest.mark.parametrize("server_kind", ["ollama", "llama.cpp"])
def test_a_server_that_refuses_tools_fails_once_with_the_flag_to_set(
    server_kind: str, store, settings
) -> None:
    spend = SpendAuthority(store, settings)
    with FakeOpenAI("ok", FIT, refuse_tools=server_kind) as server:
        with pytest.raises(ProviderError) as caught:
            _call(spend, _lane(server, "tool"))
        assert len(server.requests) == 1, "asked once: no retry loop"
        error = caught.value
        assert error.code == errors.PROVIDER_TOOLS_UNSUPPORTED and error.retryable is False
        assert "does not support tool calls" in error.message
        assert f"jobctrl llm set score openai gemma:2b --base-url {server.base_url}" in (
            error.message
        )
        assert "--output json" in error.message and "--output prompted" in error.message
        assert error.usage is None
        # The command it names works: the same server answers without tools.
        for output in ("json", "prompted"):
            report, _usage = _ask(server, output)
            assert report.score == FIT["score"]
    summary = spend.summary()
    assert summary["spentUsd"] == 0 and summary["openReservations"]["count"] == 0
    assert errors.status_of(errors.PROVIDER_TOOLS_UNSUPPORTED).exit == 1


def test_a_server_that_ignores_response_format_needs_the_prompted_mode() -> None:
    with FakeOpenAI("ok", FIT, ignore_response_format=True) as server:
        with pytest.raises(ProviderError) as caught:
            _ask(server, "json")
        report, _usage = _ask(server, "prompted")
    error = caught.value
    assert error.code == errors.PROVIDER_INVALID_OUTPUT
    assert "--output prompted" in error.message, "the invalid answer names the mode to try"
    assert "good fit" not in error.message, "never the provider's text"
    assert report == Fit.model_validate(FIT)


@pytest.mark.parametrize("output", ["json", "prompted"])
def test_json_in_a_markdown_fence_is_read(output: str) -> None:
    with FakeOpenAI("ok", FIT, fence=True) as server:
        report, _usage = _ask(server, output)
        assert server.completion({"response_format": {}})["choices"][0]["message"][
            "content"
        ].startswith("Here is the JSON:\n```json\n")
    assert report == Fit.model_validate(FIT)


def test_llm_set_keeps_the_output_mode_and_llm_list_shows_it(home) -> None:
    url = "http://127.0.0.1:11434/v1"
    ran = run_cli(
        "llm", "set", "score", "openai", "gemma:2b", "--base-url", url, "--output", "prompted"
    )
    assert ran.returncode == 0, ran.stderr
    assert "output prompted" in ran.stdout
    written = yaml.safe_load(home.config_path.read_text())["providers"]["score"]
    assert written == {
        "provider": "openai", "model": "gemma:2b", "base_url": url, "output": "prompted"
    }  # fmt: skip
    listed = run_cli("llm", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["lane"]: row for row in yaml.safe_load(listed.stdout)}
    assert rows["score"]["output"] == "prompted" and rows["tailor"]["output"] == "tool"
    assert "output prompted" in run_cli("llm", "list").stdout
    # The default writes nothing new: config.yaml as it was before output modes.
    set_lane(home, "score", "openai", "gemma:2b", url, None)
    assert "output" not in yaml.safe_load(home.config_path.read_text())["providers"]["score"]
    assert [r.output for r in list_lanes(home) if r.lane == "score"] == ["tool"]
    refused = run_cli("llm", "set", "score", "openai", "gemma:2b", "--output", "xml")
    assert refused.returncode != 0 and "xml" in refused.stderr


def test_openai_itself_gets_the_cap_as_max_completion_tokens(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    for base_url, newer in [
        (None, True),
        ("https://api.openai.com/v1", True),
        ("http://127.0.0.1:1234/v1", False),
    ]:
        profile = build_model(LaneModel("openai", "gpt-4o-mini", base_url=base_url)).profile
        assert profile.get("openai_chat_supports_max_completion_tokens", True) is newer


def test_json_mode_on_a_model_without_json_schema_output_names_the_prompted_mode(
    monkeypatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", FIT) as server:  # never reached: refused before sending
        lane = LaneModel("anthropic", "claude-local-test", base_url=server.url, output="json")
        with pytest.raises(ProviderError) as caught:
            run_structured(
                build_model(lane), Fit, system="s", prompt="p", max_output_tokens=100, lane=lane
            )
        assert server.requests == []
    assert caught.value.code == errors.CONFIGURATION
    assert "does not support --output json" in caught.value.message
    assert "--output prompted" in caught.value.message


async def test_the_settings_page_says_how_a_lane_answers(home) -> None:
    set_lane(home, "cover", "openai", "gemma:2b", "http://127.0.0.1:11434/v1", None, "prompted")
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as http:
        page = (await http.get("/settings")).text
    assert page.count("answers in text, shown the form to fill") == 1, "the cover lane only"
    assert "--output prompted" in page


def test_a_resume_read_in_another_output_mode_is_another_request() -> None:
    lanes = {
        m: LaneProvider.model_validate({"provider": "openai", "model": "m", "output": m})
        for m in MODES
    }
    ids = {m: request_ids("local", lane, "Ada Lovelace\nPython") for m, lane in lanes.items()}
    assert len({job for job, _run in ids.values()}) == 1, "the same document"
    assert len({run for _job, run in ids.values()}) == 3, "asked anew in each mode"


def test_prompted_output_works_with_a_server_that_refuses_json_object() -> None:
    """LM Studio refuses ``response_format: json_object`` (what pydantic-ai's prompted
    output sends by default): the prompted mode sends no response_format at all."""
    with FakeOpenAI("ok", FIT, refuse_json_object=True) as server:
        refused = httpx.post(
            f"{server.base_url}/chat/completions",
            json={"model": "m", "messages": [], "response_format": {"type": "json_object"}},
        )
        report, _usage = _ask(server, "prompted")
    assert refused.status_code == 400 and "json_schema" in refused.text
    assert report == Fit.model_validate(FIT)
