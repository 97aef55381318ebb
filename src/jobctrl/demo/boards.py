"""Demo job boards on loopback in the Greenhouse, Lever and Ashby API shapes.

The postings are written by the project (roles, seniorities, locations and descriptions
from ``demo.postings``); some are cross-posted on two boards under different URLs so that
dedupe has real work, and one board always answers 500 so that a partial run can be seen.
Every posting's own page is served too, with JobPosting JSON-LD, so Enrich reads it.
"""

from __future__ import annotations

import html
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

from jobctrl.demo.postings import COMPANIES, draw_opening, posting_description, posting_page
from jobctrl.demo.site import HOST, LoopbackServer


@dataclass(frozen=True)
class DemoPosting:
    id: str
    title: str
    company: str
    location: str
    remote: bool
    description_html: str
    origin: str = ""  # the posting this one lists again ("" = it is the original)


@dataclass
class Board:
    kind: str  # greenhouse | lever | ashby
    name: str
    company: str
    postings: list[DemoPosting] = field(default_factory=list)
    broken: bool = False


def _make_posting(rng: random.Random, company: tuple[str, str], n: int) -> DemoPosting:
    o = draw_opening(rng, remote_share=0.2)
    description = posting_description(rng, company, o.role, o.years)
    return DemoPosting(f"{n:06d}", o.title, company[0], o.location, o.remote, description)


def build_boards(
    boards: int = 4, per_board: int = 8, duplicate_share: float = 0.25, seed: int = 1
) -> list[Board]:
    """``boards`` working boards, in pairs of one company on two different ATSs: the
    second board of a pair lists ``duplicate_share`` of the first one's postings again
    (new ids and URLs). One more board is broken (it always answers 500)."""
    rng = random.Random(f"jobctrl-boards:{seed}")
    kinds = ("greenhouse", "lever", "ashby")
    result: list[Board] = []
    counter = 0
    for b in range(boards):
        blurb = COMPANIES[(b // 2) % len(COMPANIES)]
        word = blurb[0].split()[0]
        cycle = b // (2 * len(COMPANIES))
        company = f"{word}{cycle or ''}"
        board = Board(kinds[b % 3], company.lower(), company)
        if b % 2 == 1:
            for p in result[-1].postings[: int(per_board * duplicate_share)]:
                counter += 1
                board.postings.append(
                    DemoPosting(
                        f"{counter:06d}",
                        _relisted_title(p.title, counter),
                        p.company,
                        _relisted_location(p.location, counter),
                        p.remote,
                        p.description_html,
                        origin=p.origin or p.id,
                    )
                )
        taken = {
            (p.title, p.location) for b2 in result if b2.company == company for p in b2.postings
        }
        tries = 0
        while len(board.postings) < per_board:
            counter += 1
            posting = _make_posting(rng, (company, blurb[1]), counter)
            tries += 1
            # Distinct postings of one company differ in title or place (else they are
            # the same job by any reasonable rule, and the ground truth would be wrong).
            if (posting.title, posting.location) in taken and tries < 1000:
                continue
            taken.add((posting.title, posting.location))
            board.postings.append(posting)
        result.append(board)
    result.append(Board("greenhouse", "brokenco", "Brokenco", broken=True))
    return result


def _relisted_title(title: str, n: int) -> str:
    """How another ATS might spell the same title (so dedupe's fuzzy rule is exercised)."""
    variant = n % 4
    if variant == 1:
        return f"{title} (m/f/d)"
    if variant == 2 and title.startswith("Senior "):
        return "Sr. " + title.removeprefix("Senior ")
    if variant == 3:
        return f"{title} - Full-time"
    return title


def _relisted_location(location: str, n: int) -> str:
    """ "Berlin, DE" is sometimes listed as just "Berlin"."""
    return location.split(", ")[0] if n % 3 == 0 and not location.startswith("Remote") else location


def duplicate_pairs(boards: list[Board]) -> int:
    """How many listings repeat a posting listed elsewhere (the dedupe ground truth)."""
    return sum(1 for board in boards for p in board.postings if p.origin)


def _iso(n: int) -> str:
    return f"2025-{1 + n % 6:02d}-{1 + n % 27:02d}T09:00:00Z"


def posting_url_paths(boards: list[Board]) -> dict[str, str]:
    """Each posting's page path → the id of the original posting (dedupe ground truth)."""
    return {_posting_path(b, p): p.origin or p.id for b in boards for p in b.postings}


def _posting_path(board: Board, p: DemoPosting) -> str:
    return f"/postings/{board.kind}/{board.name}/{p.id}.html"


def _greenhouse(board: Board, base: str) -> Any:
    jobs = [
        {
            "id": int(p.id),
            "internal_job_id": int(p.id) + 1000,
            "title": p.title,
            "absolute_url": base + _posting_path(board, p),
            "location": {"name": p.location},
            "updated_at": _iso(int(p.id)),
            "first_published": _iso(int(p.id)),
            "content": html.escape(p.description_html),
            "departments": [{"id": 1, "name": "R&D"}],
            "offices": [{"id": 1, "name": p.location}],
            "company_name": p.company,
        }
        for p in board.postings
    ]
    return {"jobs": jobs, "meta": {"total": len(jobs)}}


def _lever(board: Board, base: str, skip: int, limit: int) -> Any:
    page = board.postings[skip : skip + limit]
    return [
        {
            "id": f"lv-{p.id}",
            "text": p.title,
            "hostedUrl": base + _posting_path(board, p),
            "applyUrl": base + _posting_path(board, p) + "/apply",
            "categories": {
                "location": p.location,
                "team": "Engineering",
                "commitment": "Full-time",
                "allLocations": [p.location],
            },
            "workplaceType": "remote" if p.remote else "on-site",
            "createdAt": 1735722000000 + int(p.id) * 86_400_000,
            "description": p.description_html,
            "descriptionPlain": "",
            "lists": [],
        }
        for p in page
    ]


def _ashby(board: Board, base: str) -> Any:
    return {
        "apiVersion": "1",
        "jobs": [
            {
                "id": f"ab-{p.id}",
                "title": p.title,
                "location": p.location,
                "department": "Engineering",
                "team": "Platform",
                "employmentType": "FullTime",
                "isRemote": p.remote,
                "isListed": True,
                "descriptionHtml": p.description_html,
                "descriptionPlain": "",
                "publishedAt": _iso(int(p.id)),
                "jobUrl": base + _posting_path(board, p),
                "applyUrl": base + _posting_path(board, p) + "/application",
                "secondaryLocations": [],
            }
            for p in board.postings
        ],
    }


def _posting_page(p: DemoPosting, url: str) -> str:
    ld: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": p.title,
        "description": p.description_html,
        "datePosted": "2025-05-01",
        "hiringOrganization": {"@type": "Organization", "name": p.company},
        "url": url,
    }
    if p.remote:
        ld["jobLocationType"] = "TELECOMMUTE"
    else:
        city, _, country = p.location.rpartition(", ")
        ld["jobLocation"] = {
            "@type": "Place",
            "address": {"addressLocality": city, "addressCountry": country},
        }
    return posting_page(p.title, p.company, p.location, p.description_html, ld, url + "/apply")


class DemoBoards(LoopbackServer):
    """Serves ``boards`` on 127.0.0.1: ``.base_url`` (bound at once), ``.sources()`` for
    config; start/stop or use as a context manager."""

    thread_name = "jobctrl-demo-boards"

    def __init__(
        self, boards: list[Board] | None = None, port: int = 0, api_delay: float = 0.0
    ) -> None:
        """``api_delay`` seconds before each board API answer (a slow provider)."""
        self.boards = boards if boards is not None else build_boards()
        self.requests = 0
        by_api = {(b.kind, b.name): b for b in self.boards}
        pages = {_posting_path(b, p): p for b in self.boards for p in b.postings}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                outer.requests += 1
                parts = urlsplit(self.path)
                query = parse_qs(parts.query)
                segs = [s for s in parts.path.split("/") if s]
                # This request's server, not the site's: a request still in flight when
                # the site stops is answered, not failed with a traceback.
                _, port = cast(tuple[str, int], self.server.server_address)
                base = f"http://{HOST}:{port}"
                status, ctype, body = HTTPStatus.NOT_FOUND, "application/json", b'{"error":1}'
                if parts.path == "/robots.txt":
                    status, ctype, body = HTTPStatus.OK, "text/plain", b"User-agent: *\nAllow: /\n"
                elif parts.path in pages:
                    url = base + parts.path
                    status, ctype = HTTPStatus.OK, "text/html; charset=utf-8"
                    body = _posting_page(pages[parts.path], url).encode()
                else:
                    board: Board | None = None
                    payload: Callable[[Board], Any] | None = None
                    if segs[:2] == ["v1", "boards"] and len(segs) == 4:
                        board = by_api.get(("greenhouse", segs[2]))
                        payload = lambda b: _greenhouse(b, base)  # noqa: E731
                    elif segs[:2] == ["v0", "postings"] and len(segs) == 3:
                        board = by_api.get(("lever", segs[2]))
                        skip = int(query.get("skip", ["0"])[0])
                        limit = int(query.get("limit", ["100"])[0])
                        payload = lambda b: _lever(b, base, skip, limit)  # noqa: E731
                    elif segs[:2] == ["posting-api", "job-board"] and len(segs) == 3:
                        board = by_api.get(("ashby", segs[2]))
                        payload = lambda b: _ashby(b, base)  # noqa: E731
                    if board is not None and api_delay:
                        time.sleep(api_delay)
                    if board is not None and board.broken:
                        status, body = HTTPStatus.INTERNAL_SERVER_ERROR, b'{"error":"down"}'
                    elif board is not None and payload is not None:
                        status, body = HTTPStatus.OK, json.dumps(payload(board)).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(Handler, port)
        self.bind()

    def sources(self) -> list[dict[str, str]]:
        return [{"kind": b.kind, "name": b.name, "base_url": self.base_url} for b in self.boards]


def serve_forever(port: int = 8766) -> None:
    """`jobctrl demo-boards`: serve the demo boards in the foreground until Ctrl-C."""
    boards = DemoBoards(port=port)
    print(f"demo boards on {boards.base_url}; add them with:", flush=True)
    for s in boards.sources():
        print(f"  jobctrl sources add {s['kind']} {s['name']} --base-url {s['base_url']}")
    boards.serve_forever()
