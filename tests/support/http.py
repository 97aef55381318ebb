"""Loopback fixture servers for pages and JSON APIs, thin layers over ``LoopbackServer``.

``FixtureServer`` serves fixed pages by path (``Route``: status, body, headers, delay) and
allows every robots.txt reader by default; ``JsonApi`` answers JSON by path, fixed or as a
function of the query string, so a route can page the way a provider does (Lever's
skip/limit, SmartRecruiters' offset/limit). Both record every request and count hits per
path (see tests/support/loopback.py). ``posting_html`` builds a job posting page.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import Handler, LoopbackServer, Request, Response


@dataclass(frozen=True)
class Route(Response):
    """A fixed answer for one path; an HTML page unless ``headers`` says otherwise."""

    headers: Mapping[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})


ALLOW_ALL_ROBOTS = Route(body=b"User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})


class FixtureServer(LoopbackServer):
    """Pages by path for GET; unknown paths answer 404. Use it as a context manager."""

    def __init__(self) -> None:
        super().__init__()
        self.add("/robots.txt", ALLOW_ALL_ROBOTS)

    def add(self, path: str, route: Response | Handler) -> str:
        """Serve ``route`` (a fixed answer or a handler) at ``path``, replacing what was
        there; the page's URL."""
        return self.on("GET", path, route)


# A route that answers from the query string: (status, JSON payload).
Pager = Callable[[dict[str, str]], tuple[int, Any]]

JSON_TYPE = "application/json; charset=utf-8"


def _json_not_found(request: Request) -> Response:
    return Response.json({"error": "not found"}, status=404, content_type=JSON_TYPE)


class JsonApi(LoopbackServer):
    """A loopback JSON API; unknown paths answer 404 with a JSON error, like the providers."""

    def __init__(self) -> None:
        super().__init__(fallback=_json_not_found)

    def json(
        self,
        path: str,
        payload: Any,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> None:
        reply = Response.json(
            payload, status=status, headers=headers, delay=delay, content_type=JSON_TYPE
        )
        self.on("GET", path, reply)

    def raw(
        self, path: str, body: bytes, *, content_type: str = "application/json", status: int = 200
    ) -> None:
        self.on("GET", path, Response(status, body, {"Content-Type": content_type}))

    def paged(self, path: str, pager: Pager) -> None:
        def answer(request: Request) -> Response:
            status, payload = pager(request.query)
            return Response.json(payload, status=status, content_type=JSON_TYPE)

        self.on("GET", path, answer)

    def queries(self, path: str) -> list[dict[str, str]]:
        """The query of every request to ``path``, in order."""
        return [request.query for request in self.requests if request.path == path]


def posting_html(
    title: str, company: str, requirements: list[str], *, location: str = "Berlin"
) -> bytes:
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
