"""A loopback web site that serves the demo postings (and benchmark pages) over real HTTP.

``DemoSite`` runs ``http.server.ThreadingHTTPServer`` on 127.0.0.1 in a daemon thread, so
the fetch stage and tests talk to a real server; ``serve_forever`` runs the same site in the
foreground for ``make demo``. Pages live in ``jobctrl/demo/pages`` (package data).
``LoopbackServer``, the threaded server underneath, serves the demo boards too.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

__all__ = ["DemoSite", "LoopbackServer", "demo_pages", "serve_forever"]

HOST = "127.0.0.1"


def _pages_dir() -> Any:
    return resources.files("jobctrl.demo").joinpath("pages")


def demo_pages() -> dict[str, str]:
    """The hand-written demo postings, keyed by path ("/jobs/<name>.html")."""
    pages = {}
    for entry in sorted(_pages_dir().iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".html"):
            pages[f"/jobs/{entry.name}"] = entry.read_text(encoding="utf-8")
    return pages


def _robots_txt() -> str:
    return str(_pages_dir().joinpath("robots.txt").read_text(encoding="utf-8"))


def _index(paths: list[str]) -> str:
    links = "".join(f'<li><a href="{html.escape(p)}">{html.escape(p)}</a></li>' for p in paths)
    head = "<!doctype html><html><head><title>Demo jobs</title></head>"
    return f"{head}<body><ul>{links}</ul></body></html>"


def _handler(routes: Mapping[str, tuple[str, bytes]]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "jobctrl-demo/1"
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to every response.
        disable_nagle_algorithm = True

        def _send(self, with_body: bool) -> None:
            path = urlsplit(self.path).path or "/"
            content_type, body = routes.get(path, ("text/plain; charset=utf-8", b"not found\n"))
            self.send_response(HTTPStatus.OK if path in routes else HTTPStatus.NOT_FOUND)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(with_body=True)

        def do_HEAD(self) -> None:
            self._send(with_body=False)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: no request lines on stderr

    return Handler


def _routes(extra_pages: Mapping[str, str] | None) -> dict[str, tuple[str, bytes]]:
    pages = {**demo_pages(), **(extra_pages or {})}
    html_type = "text/html; charset=utf-8"
    routes = {path: (html_type, body.encode("utf-8")) for path, body in pages.items()}
    routes["/robots.txt"] = ("text/plain; charset=utf-8", _robots_txt().encode("utf-8"))
    routes.setdefault("/", (html_type, _index(sorted(pages)).encode("utf-8")))
    return routes


class LoopbackServer:
    """``handler`` served on 127.0.0.1 by a ``ThreadingHTTPServer``: from a daemon thread
    (``start``/``stop``, or as a context manager) or in the foreground (``serve_forever``).
    The port (free unless given) is bound by ``bind`` or ``start``."""

    thread_name = "jobctrl-loopback"

    def __init__(self, handler: type[BaseHTTPRequestHandler], port: int = 0) -> None:
        self._handler, self._port = handler, port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not running; call start() first")
        return f"http://{HOST}:{self._server.server_address[1]}"

    def bind(self) -> ThreadingHTTPServer:
        if self._server is None:
            self._server = ThreadingHTTPServer((HOST, self._port), self._handler)
            self._server.daemon_threads = True
        return self._server

    def start(self) -> Self:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self.bind().serve_forever,
                kwargs={"poll_interval": 0.1},
                daemon=True,
                name=self.thread_name,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server, self._thread = None, None
        if server is not None:
            if thread is not None:
                server.shutdown()  # waits for serve_forever to return: only if it runs
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Serve in this thread until interrupted (Ctrl-C), then close the port."""
        try:
            self.bind().serve_forever(poll_interval=poll_interval)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class DemoSite(LoopbackServer):
    """The demo postings on a free loopback port; use as a context manager or start/stop."""

    thread_name = "jobctrl-demo-site"

    def __init__(self, extra_pages: Mapping[str, str] | None = None, port: int = 0) -> None:
        self._routes = _routes(extra_pages)
        super().__init__(_handler(self._routes), port)

    def urls(self) -> list[str]:
        """Absolute URLs of every posting page (demo and extra), sorted by path."""
        base = self.base_url
        return [f"{base}{p}" for p in sorted(self._routes) if p.startswith("/jobs/")]


def serve_forever(port: int = 0, ready: Callable[[str], None] | None = None) -> None:
    """Serve the demo site in the foreground until interrupted; ``ready(base_url)`` once up."""
    site = DemoSite(port=port)
    site.bind()
    if ready is not None:
        ready(site.base_url)
    site.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    serve_forever(8765, ready=lambda url: print(f"demo site on {url}/", flush=True))
