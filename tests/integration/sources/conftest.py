"""Fixtures for the ATS adapters: a loopback JSON API and a fetcher allowed to reach it.

``JsonApi`` answers each path with a fixed reply or with a function of the query string, so
a route can page the way the provider does (Lever's skip/limit, SmartRecruiters'
offset/limit). It records every request, query included. tests/support/http.py's
FixtureServer routes on the path alone, which cannot serve pages.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from jobctrl.fetch.safe import FetchPolicy, SafeFetcher


@dataclass(frozen=True)
class _Reply:
    status: int
    body: bytes
    content_type: str = "application/json; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


# A route that answers from the query string: (status, JSON payload).
Pager = Callable[[dict[str, str]], tuple[int, Any]]


class JsonApi:
    """A loopback HTTP server; unknown paths answer 404 with a JSON error, like the APIs."""

    def __init__(self) -> None:
        self._routes: dict[str, _Reply | Pager] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.release = threading.Event()  # set at teardown to end delayed replies early
        api = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = dict(parse_qsl(parts.query))
                api.requests.append((parts.path, query))
                reply = api._reply(parts.path, query)
                if reply.delay:
                    api.release.wait(reply.delay)
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class QuietServer(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (the timeout test) breaks the pipe on purpose

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def json(
        self,
        path: str,
        payload: Any,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> None:
        body = json.dumps(payload).encode()
        self._routes[path] = _Reply(status, body, headers=headers or {}, delay=delay)

    def raw(
        self, path: str, body: bytes, *, content_type: str = "application/json", status: int = 200
    ) -> None:
        self._routes[path] = _Reply(status, body, content_type=content_type)

    def paged(self, path: str, pager: Pager) -> None:
        self._routes[path] = pager

    def queries(self, path: str) -> list[dict[str, str]]:
        return [query for seen, query in self.requests if seen == path]

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _reply(self, path: str, query: dict[str, str]) -> _Reply:
        route = self._routes.get(path)
        if route is None:
            return _Reply(404, b'{"error": "not found"}')
        if isinstance(route, _Reply):
            return route
        status, payload = route(query)
        return _Reply(status, json.dumps(payload).encode())


@pytest.fixture
def api() -> Iterator[JsonApi]:
    server = JsonApi()
    yield server
    server.stop()


@pytest.fixture
def make_fetcher() -> Iterator[Callable[..., SafeFetcher]]:
    """Fetchers that may reach 127.0.0.1 without politeness delays; policy fields overridable."""
    fetchers: list[SafeFetcher] = []

    def make(**overrides: Any) -> SafeFetcher:
        settings: dict[str, Any] = {
            "allow_hosts": frozenset({"127.0.0.1"}),
            "min_host_interval_seconds": 0,
        }
        settings.update(overrides)
        fetchers.append(SafeFetcher(FetchPolicy(**settings)))
        return fetchers[-1]

    yield make
    for fetcher in fetchers:
        fetcher.close()


@pytest.fixture
def fetcher(make_fetcher: Callable[..., SafeFetcher]) -> SafeFetcher:
    return make_fetcher()
