"""A loopback HTTP fixture server with programmable routes (status, headers, body)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})
    delay: float = 0.0


class FixtureServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {
            "/robots.txt": Route(
                body=b"User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"}
            )
        }
        self.hits: dict[str, int] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # no 40 ms Nagle/delayed-ACK stall per response

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                server.hits[path] = server.hits.get(path, 0) + 1
                route = server.routes.get(path, Route(404, b"not found"))
                if route.delay:
                    threading.Event().wait(route.delay)
                self.send_response(route.status)
                for key, value in route.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                self.wfile.write(route.body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def add(self, path: str, route: Route) -> str:
        self.routes[path] = route
        return self.base_url + path

    def __enter__(self) -> FixtureServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def posting_html(
    title: str, company: str, requirements: list[str], *, location: str = "Berlin"
) -> bytes:
    import json

    bullets = "".join(f"<li>{r}</li>" for r in requirements)
    ld = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": title,
        "hiringOrganization": {"@type": "Organization", "name": company},
        "jobLocation": {"@type": "Place", "address": {"addressLocality": location}},
        "datePosted": "2026-11-01",
        "description": f"<p>Join {company}.</p><h3>Requirements</h3><ul>{bullets}</ul>",
    }
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    body = f"<h1>{title}</h1><p>Join {company}.</p><h3>Requirements</h3><ul>{bullets}</ul>"
    return f"<html><head><title>{title}</title>{script}</head><body>{body}</body></html>".encode()
