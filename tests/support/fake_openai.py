"""A loopback OpenAI-compatible chat-completions server for provider tests.

``POST /v1/chat/completions`` answers in the OpenAI response shape, with ``usage``. The
``mode`` decides the answer: ``ok`` fills whatever the request asks for (the first offered
tool's call, or JSON content when it sent a ``response_format`` or no tools) with
``payload``; ``malformed`` answers the same way with arguments that fail validation;
``rate_limited`` (429 with ``Retry-After``), ``server_error`` (500) and ``unauthorized``
(401) answer with an OpenAI error body. ``delay`` holds every answer back (for timeouts).
``answer``, when given, chooses the ``ok`` payload per request (``requested_fields`` tells
a resume from a letter), so one server can play every lane, and lie in some of them.
Every POST is kept in ``requests`` (its JSON body), its headers in ``headers``. A thin layer
over ``LoopbackServer`` (tests/support/loopback.py), which is in ``server``.

Local servers' ways, each an option (off by default): ``refuse_tools`` ("ollama" or
"llama.cpp") answers a request that offers ``tools`` with that server's refusal;
``ignore_response_format`` reads no schema from ``response_format`` (as a server without
structured output does): it answers JSON only when the prompt itself holds the schema
(prompted output), else a sentence of prose; ``fence`` wraps a JSON text answer in a
Markdown fence; ``truncate`` cuts the answer off at the request's token cap
(``finish_reason: "length"``, billed as ``usage.completion_tokens`` = the cap);
``refuse_json_object`` answers a ``response_format`` of type ``json_object`` with LM
Studio's refusal (it takes only ``json_schema`` or ``text``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from types import TracebackType
from typing import Any

from jobctrl.domain.facts import profile_facts
from jobctrl.domain.profile import Profile
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.profile import TEST_PROFILE

PROMPT_TOKENS = 321
COMPLETION_TOKENS = 54
CHAT_COMPLETIONS = "/v1/chat/completions"

_ERRORS: dict[str, tuple[int, str, str, dict[str, str]]] = {
    "rate_limited": (
        429,
        "rate_limit_exceeded",
        "requests",
        {"Retry-After": "7", "x-should-retry": "true"},
    ),
    "server_error": (500, "server_error", "server_error", {}),
    "unauthorized": (401, "invalid_api_key", "invalid_request_error", {}),
}


# A score as a provider answers it (the Score lane's schema, ``llm.answers.ScoreAnswer``):
# one matched requirement, shown by the test profile's Python skill; the tests that need a
# paid Score answer with it.
PYTHON_SKILL = next(
    f.id
    for f in profile_facts(Profile.model_validate(TEST_PROFILE))
    if f.kind == "skill" and f.text == "Python"
)
SCORE_REPORT: dict[str, Any] = {
    "score": 81,
    "requirements": [
        {"requirement": "Python", "kind": "must", "matched": True, "facts": [PYTHON_SKILL]},
    ],
}


def requested_fields(request: dict[str, Any]) -> frozenset[str]:
    """The top-level fields of the output a chat-completions request asks for (its first
    tool's parameters, its JSON response format, or the schema its prompt holds):
    ``paragraphs`` is a letter."""
    tools = request.get("tools") or []
    if tools:
        schema = tools[0]["function"].get("parameters") or {}
    else:
        schema = (request.get("response_format") or {}).get("json_schema", {}).get("schema", {})
        schema = schema or prompted_schema(request) or {}
    return frozenset(schema.get("properties") or {})


# How pydantic-ai's prompted output puts the schema in the instructions.
PROMPTED_SCHEMA_MARK = "compatible with this schema:"
# What a model that was shown no schema answers.
PROSE_ANSWER = "The candidate looks like a good fit for this role."
# How llama.cpp's server without --jinja, and Ollama, refuse a request that offers tools.
TOOLS_REFUSALS: dict[str, tuple[int, dict[str, Any]]] = {
    "ollama": (
        400,
        {
            "error": {
                "message": "registry.ollama.ai/library/gemma:2b does not support tools",
                "type": "api_error",
                "param": None,
                "code": None,
            }
        },
    ),
    "llama.cpp": (
        500,
        {
            "error": {
                "code": 500,
                "message": "tools param requires --jinja flag",
                "type": "server_error",
            }
        },
    ),
}


# LM Studio's answer to ``response_format: {"type": "json_object"}``.
LM_STUDIO_JSON_OBJECT_REFUSAL = {"error": "'response_format.type' must be 'json_schema' or 'text'"}


def prompted_schema(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request's prompt holds (prompted output), or None."""
    text = prompt_text(request)
    at = text.find(PROMPTED_SCHEMA_MARK)
    start = text.find("{", at) if at >= 0 else -1
    if start < 0:
        return None
    try:
        schema, _end = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return None
    return schema if isinstance(schema, dict) else None


def prompt_text(request: dict[str, Any]) -> str:
    """The text of a chat-completions request's messages."""
    parts = []
    for message in request.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "\n".join(parts)


class FakeOpenAI:
    """Use as a context manager; ``base_url`` ends in ``/v1``, as an OpenAI client expects."""

    def __init__(
        self,
        mode: str = "ok",
        payload: dict[str, Any] | None = None,
        *,
        delay: float = 0.0,
        on_answer: Callable[[], None] | None = None,
        answer: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        refuse_tools: str | None = None,
        ignore_response_format: bool = False,
        fence: bool = False,
        truncate: bool = False,
        refuse_json_object: bool = False,
        retry_after: int = 7,
    ) -> None:
        """``on_answer`` is called as each answer is handed to the server to send;
        ``answer(request body)`` is the payload of an ``ok`` answer (else ``payload``);
        ``retry_after`` is the seconds a ``rate_limited`` answer's Retry-After asks for;
        the local servers' ways (module docstring) are off unless asked for."""
        assert refuse_tools in (None, *TOOLS_REFUSALS), refuse_tools
        self.refuse_tools = refuse_tools
        self.ignore_response_format = ignore_response_format
        self.fence = fence
        self.truncate = truncate
        self.refuse_json_object = refuse_json_object
        self.retry_after = retry_after
        self.mode = mode
        self.delay = delay
        self.on_answer = on_answer
        self.answer = answer
        self.payload: dict[str, Any] = payload or {}
        self.server = LoopbackServer(fallback=self._not_found)
        self.server.on("POST", CHAT_COMPLETIONS, self._answer)
        self.server.on("POST", CHAT_COMPLETIONS + "/", self._answer)
        self.url = self.server.base_url
        self.base_url = self.url + "/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON body of every POST, in order."""
        return [json.loads(r.body or b"{}") for r in self.server.requests if r.method == "POST"]

    @property
    def headers(self) -> list[dict[str, str]]:
        """The headers (lower-case names) of every POST, in order."""
        return [r.headers for r in self.server.requests if r.method == "POST"]

    def _answer(self, request: Request) -> Response:
        if self.mode in _ERRORS:
            status, code, kind, headers = _ERRORS[self.mode]
            if "Retry-After" in headers:
                headers = {**headers, "Retry-After": str(self.retry_after)}
            error = {"message": f"fake {code}", "type": kind, "code": code}
            return Response.json({"error": error}, status=status, headers=headers, delay=self.delay)
        body = json.loads(request.body or b"{}")
        if self.refuse_tools is not None and body.get("tools"):
            status, refusal = TOOLS_REFUSALS[self.refuse_tools]
            return Response.json(refusal, status=status, delay=self.delay)
        asked_format = (body.get("response_format") or {}).get("type")
        if self.refuse_json_object and asked_format == "json_object":
            return Response.json(LM_STUDIO_JSON_OBJECT_REFUSAL, status=400, delay=self.delay)
        response = Response.json(self.completion(body), delay=self.delay)
        if self.on_answer is not None:
            self.on_answer()
        return response

    def _not_found(self, request: Request) -> Response:
        error = {"message": "not found", "type": "not_found"}
        return Response.json({"error": error}, status=404, delay=self.delay)

    def completion(self, request: dict[str, Any]) -> dict[str, Any]:
        """The chat completion answering ``request`` in the form it asked for."""
        if self.mode == "malformed":
            arguments: dict[str, Any] = {"unexpected": True}
        else:
            arguments = self.answer(request) if self.answer is not None else self.payload
        message: dict[str, Any] = {"role": "assistant", "content": None}
        tools = request.get("tools") or []
        completion_tokens = COMPLETION_TOKENS
        if tools and "response_format" not in request:
            said = json.dumps(arguments)
            if self.truncate:
                said = said[: len(said) // 2]
            message["tool_calls"] = [
                {
                    "id": "call_fake_1",
                    "type": "function",
                    "function": {"name": tools[0]["function"]["name"], "arguments": said},
                }
            ]
            finish_reason = "tool_calls"
        else:
            shown_schema = "response_format" in request and not self.ignore_response_format
            if self.ignore_response_format and not shown_schema and not prompted_schema(request):
                said = PROSE_ANSWER
            else:
                said = json.dumps(arguments)
            if self.truncate:
                said = said[: len(said) // 2]
            elif self.fence and said != PROSE_ANSWER:
                said = f"Here is the JSON:\n```json\n{said}\n```"
            message["content"] = said
            finish_reason = "stop"
        if self.truncate:
            finish_reason = "length"
            cap = request.get("max_completion_tokens") or request.get("max_tokens")
            completion_tokens = int(cap or COMPLETION_TOKENS)
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1_767_225_600,
            "model": request.get("model", "fake"),
            "choices": [
                {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
            ],
            "usage": {
                "prompt_tokens": PROMPT_TOKENS,
                "completion_tokens": completion_tokens,
                "total_tokens": PROMPT_TOKENS + completion_tokens,
            },
        }

    def __enter__(self) -> FakeOpenAI:
        self.server.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.__exit__(exc_type, exc, tb)
