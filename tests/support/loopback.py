"""The loopback HTTP server every test that serves HTTP uses: routes by method and path.

``LoopbackServer`` binds 127.0.0.1 (and nothing else) on a free port and answers each
connection in its own thread, with Nagle's algorithm off: otherwise every response can wait
~40 ms for the client's delayed ACK. A route maps a method and a path to a handler, a
callable that gets the ``Request`` (method, path, query, headers, body) and returns a
``Response`` (status, headers, body), or to a fixed ``Response``. Unrouted paths go to the
``fallback`` handler (404 unless told otherwise); a routed path asked with another method
answers 405. Every request is kept in ``requests`` and counted by path in ``hits``.

A body may be an iterable of chunks, each written and flushed on its own, to trickle a
response or break one off (declare a ``Content-Length`` it never reaches); ``delay`` holds
an answer back. ``stall`` lets a handler or body wait; ``stop`` frees every stalled handler
at once (a delayed answer is then dropped, unanswered), so teardown never waits on them.
Clients that hang up (size caps, deadlines) are expected and not reported. A handler that
raises answers 500 and, used as a context manager, the server fails the test on exit.

The thin layers over it: ``FixtureServer``/``Route`` and ``JsonApi`` in tests/support/http.py,
``FakeOpenAI`` in tests/support/fake_openai.py and ``FixtureSite`` in the fetch fixtures.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import IO, Any, Self
from urllib.parse import parse_qsl, urlsplit

HOST = "127.0.0.1"
POLL_INTERVAL = 0.02  # how long stop() may wait for the accept loop to notice


@dataclass(frozen=True)
class Request:
    """One request as the server read it. Header names are lower-case (repeats joined)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes = b""

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


@dataclass(frozen=True)
class Response:
    """An answer. A bytes body gets a ``Content-Length`` unless ``headers`` sets one; an
    iterable body is sent chunk by chunk and the connection then closes. ``delay`` (seconds)
    holds the whole answer back."""

    status: int = 200
    body: bytes | Iterable[bytes] = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0

    @classmethod
    def json(
        cls,
        payload: Any,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
        content_type: str = "application/json",
    ) -> Self:
        """``payload`` serialised as a JSON body."""
        body = json.dumps(payload).encode()
        return cls(status, body, {"Content-Type": content_type, **(headers or {})}, delay)

    @classmethod
    def text(
        cls,
        body: str | bytes,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        content_type: str = "text/plain; charset=utf-8",
    ) -> Self:
        """A text body (str is encoded as UTF-8)."""
        data = body.encode() if isinstance(body, str) else body
        return cls(status, data, {"Content-Type": content_type, **(headers or {})})


Handler = Callable[[Request], Response]


def not_found(request: Request) -> Response:
    """The default fallback: 404 with a short plain-text body."""
    return Response.text("not found", status=404)


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1; ``start``/``stop`` it, or use it with ``with``."""

    def __init__(self, fallback: Handler = not_found) -> None:
        self.fallback = fallback
        self.requests: list[Request] = []
        self.hits: Counter[str] = Counter()  # requests per path, query left out
        self.errors: list[Exception] = []  # what handlers raised
        self._routes: dict[tuple[str, str], Handler] = {}
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._httpd = _HTTPServer(self)
        self.port: int = self._httpd.server_address[1]
        self.base_url = f"http://{HOST}:{self.port}"
        self._thread: threading.Thread | None = None

    # -- routes ------------------------------------------------------------------------------

    def on(self, method: str, path: str, answer: Handler | Response) -> str:
        """Answer ``method path`` with ``answer`` (a handler or a fixed response); its URL."""
        handler = _fixed(answer) if isinstance(answer, Response) else answer
        with self._lock:
            self._routes[(method.upper(), path)] = handler
        return self.url(path)

    def url(self, path: str) -> str:
        return self.base_url + path

    def stall(self, seconds: float) -> bool:
        """Wait up to ``seconds`` in a handler; True, at once, when the server is stopping."""
        return self._released.wait(seconds)

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": POLL_INTERVAL},
                name=f"loopback-{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Free stalled handlers, stop accepting and close the port; safe to call twice."""
        self._released.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        if exc_type is None and self.errors:
            error = self.errors[0]
            raise AssertionError(f"a loopback handler raised {error!r}") from error

    # -- serving (handler threads) -----------------------------------------------------------

    def _serve(self, conn: _Connection) -> None:
        request = _read_request(conn)
        with self._lock:
            self.requests.append(request)
            self.hits[request.path] += 1
            handler = self._route(request.method, request.path)
        try:
            response = handler(request)
        except Exception as error:
            self._failed(error)
            response = Response.text("loopback handler failed", status=500)
        if response.delay and self.stall(response.delay):
            return  # stopped while holding the answer back: hang up unanswered
        self._send(conn, response)

    def _route(self, method: str, path: str) -> Handler:
        handler = self._routes.get((method, path))
        if handler is None and method == "HEAD":
            handler = self._routes.get(("GET", path))
        if handler is not None:
            return handler
        allowed = sorted(m for m, p in self._routes if p == path)
        if allowed:
            return _fixed(
                Response.text(
                    "method not allowed", status=405, headers={"Allow": ", ".join(allowed)}
                )
            )
        return self.fallback

    def _send(self, conn: _Connection, response: Response) -> None:
        headers = dict(response.headers)
        body = response.body
        if isinstance(body, bytes) and not any(k.lower() == "content-length" for k in headers):
            headers["Content-Length"] = str(len(body))
        conn.send_response(response.status)
        for name, value in headers.items():
            conn.send_header(name, value)
        conn.end_headers()
        if conn.command == "HEAD":
            return
        if isinstance(body, bytes):
            conn.wfile.write(body)
            return
        chunks = iter(body)
        while True:
            try:
                chunk = next(chunks)
            except StopIteration:
                return
            except Exception as error:
                self._failed(error)
                return
            conn.wfile.write(chunk)
            conn.wfile.flush()

    def _failed(self, error: Exception) -> None:
        with self._lock:
            self.errors.append(error)


def _fixed(response: Response) -> Handler:
    return lambda request: response


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # a stalled handler never holds up stop()

    def __init__(self, loopback: LoopbackServer) -> None:
        self.loopback = loopback
        super().__init__((HOST, 0), _Connection)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, Exception) and not isinstance(error, OSError):
            self.loopback._failed(error)  # a bug in the server, not a client that hung up


class _Connection(BaseHTTPRequestHandler):
    server: _HTTPServer
    disable_nagle_algorithm = True  # no 40 ms Nagle/delayed-ACK stall per response

    def _dispatch(self) -> None:
        self.server.loopback._serve(self)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _dispatch

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _read_request(conn: _Connection) -> Request:
    headers: dict[str, str] = {}
    for name, value in conn.headers.items():
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _read_chunked(conn.rfile)
    else:
        body = conn.rfile.read(int(headers.get("content-length") or 0))
    target = urlsplit(conn.path)
    query = dict(parse_qsl(target.query, keep_blank_values=True))
    return Request(conn.command, target.path, query, headers, body)


def _read_chunked(stream: IO[bytes]) -> bytes:
    chunks: list[bytes] = []
    while size := int(stream.readline().split(b";", 1)[0], 16):
        chunks.append(stream.read(size))
        stream.readline()
    while stream.readline() not in (b"\r\n", b"\n", b""):
        pass  # trailers
    return b"".join(chunks)
