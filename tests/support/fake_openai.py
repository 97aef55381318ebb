"""A loopback OpenAI-compatible chat-completions server for provider tests.

``POST /v1/chat/completions`` answers in the OpenAI response shape, with ``usage``. The
``mode`` decides the answer: ``ok`` fills whatever the request asks for (the first offered
tool's call, or JSON content when it sent a ``response_format`` or no tools) with
``payload``; ``malformed`` answers the same way with arguments that fail validation;
``rate_limited`` (429 with ``Retry-After``), ``server_error`` (500) and ``unauthorized``
(401) answer with an OpenAI error body. ``delay`` holds every answer back (for timeouts).
Every request is kept in ``requests``, its headers in ``headers``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROMPT_TOKENS = 321
COMPLETION_TOKENS = 54

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


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that timed out and hung up is expected, not a test failure


class FakeOpenAI:
    """Use as a context manager; ``base_url`` ends in ``/v1``, as an OpenAI client expects."""

    def __init__(
        self, mode: str = "ok", payload: dict[str, Any] | None = None, *, delay: float = 0.0
    ) -> None:
        self.mode = mode
        self.delay = delay
        self.payload: dict[str, Any] = payload or {}
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                if fake.delay:
                    threading.Event().wait(fake.delay)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found", "type": "not_found"}})
                elif fake.mode in _ERRORS:
                    status, code, kind, headers = _ERRORS[fake.mode]
                    error = {"message": f"fake {code}", "type": kind, "code": code}
                    self._send(status, {"error": error}, headers)
                else:
                    self._send(200, fake.completion(body))

            def _send(
                self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.base_url = self.url + "/v1"
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def completion(self, request: dict[str, Any]) -> dict[str, Any]:
        """The chat completion answering ``request`` in the form it asked for."""
        arguments = {"unexpected": True} if self.mode == "malformed" else self.payload
        message: dict[str, Any] = {"role": "assistant", "content": None}
        tools = request.get("tools") or []
        if tools and "response_format" not in request:
            message["tool_calls"] = [
                {
                    "id": "call_fake_1",
                    "type": "function",
                    "function": {
                        "name": tools[0]["function"]["name"],
                        "arguments": json.dumps(arguments),
                    },
                }
            ]
            finish_reason = "tool_calls"
        else:
            message["content"] = json.dumps(arguments)
            finish_reason = "stop"
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
                "completion_tokens": COMPLETION_TOKENS,
                "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
            },
        }

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
