"""Requests laid out for the providers' prompt caches (issue 31), against loopback fakes:
Anthropic gets cache points on the tool definitions, the instructions and after the
profile's facts; OpenAI gets the same leading text for every job of a lane, without the
mark; the cached tokens a provider reports are priced as the provider prices them."""

from __future__ import annotations

import json
from typing import Any

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.profile import Profile
from jobctrl.llm import prompts
from jobctrl.llm.remote import build_model, run_structured
from jobctrl.llm.remote_types import CACHE_BREAK, LaneModel
from jobctrl.llm.spend import Usage, estimate_cost_usd
from tests.support.fake_openai import FakeOpenAI
from tests.support.loopback import LoopbackServer, Request, Response

PROFILE = Profile.model_validate(DEMO_PROFILE)
POSTING = "Requirements\n\n- 5+ years of Python\n- PostgreSQL\n"
ANSWER = {"requirements": [{"requirement": "Python", "matched": False}], "score": 40}
USAGE = {"input_tokens": 300, "output_tokens": 50, "cache_read_input_tokens": 1500}


def _anthropic_answer(request: Request) -> Response:
    tool = request.json()["tools"][0]["name"]
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-5-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": tool, "input": ANSWER}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": USAGE,
    }
    return Response.json(body)


def _score_request(title: str) -> prompts.LaneRequest:
    return prompts.lane_request(
        "score", title=title, company="Acme", description=POSTING, profile=PROFILE
    )


def test_anthropic_gets_cache_points_and_its_cache_reads_are_priced_as_such(monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-ant-test-not-a-real-key")
    request = _score_request("Backend Engineer")
    seen: list[Usage] = []
    with LoopbackServer() as server:
        server.on("POST", "/v1/messages", _anthropic_answer)
        lane = LaneModel("anthropic", "claude-sonnet-5-5", server.url(""), "FAKE_KEY")
        answer, usage = run_structured(
            build_model(lane),
            request.output_type,
            system=request.system,
            prompt=request.prompt,
            max_output_tokens=2000,
            on_response=lambda used, _response: seen.append(used),
        )
        body: dict[str, Any] = json.loads(server.requests[-1].body)
    assert answer.score == 40  # type: ignore[attr-defined]
    assert body["tools"][-1]["cache_control"]["type"] == "ephemeral"
    assert body["system"][-1]["cache_control"]["type"] == "ephemeral"
    blocks = body["messages"][0]["content"]
    marked = [i for i, b in enumerate(blocks) if "cache_control" in b]
    assert marked and "Profile facts" in blocks[marked[0]]["text"]
    assert "Job title" not in blocks[marked[0]]["text"]  # the job comes after the point
    assert CACHE_BREAK not in json.dumps(body)
    assert usage.cache_read_tokens == 1500 and seen[0].cache_read_tokens == 1500
    full = estimate_cost_usd("anthropic", "claude-sonnet-5-5", 1800, 50)
    cached = estimate_cost_usd(
        "anthropic", "claude-sonnet-5-5", usage.input_tokens, 50,
        cache_read_tokens=usage.cache_read_tokens,
    )  # fmt: skip
    assert usage.input_tokens == 1800 and cached < 0.5 * full


def test_openai_gets_the_same_leading_text_for_every_job_without_the_mark(monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", ANSWER) as server:
        for title in ("Backend Engineer", "Data Engineer"):
            request = _score_request(title)
            run_structured(
                build_model(LaneModel("openai", "gpt-4o-mini", server.base_url, "FAKE_KEY")),
                request.output_type,
                system=request.system,
                prompt=request.prompt,
                max_output_tokens=2000,
            )
        one, two = (json.dumps(r["messages"], ensure_ascii=False) for r in server.requests)
    assert CACHE_BREAK not in one
    shared = next(i for i, (a, b) in enumerate(zip(one, two, strict=False)) if a != b)
    assert one[:shared].count("\\n") >= len(prompts.facts_listing(PROFILE).splitlines())
