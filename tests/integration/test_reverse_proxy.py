"""The web app behind a reverse proxy (``JOBCTRL_PUBLIC_URL``), over real HTTP.

The app is served as ``jobctrl up`` serves it (``api.server.serve_app``: uvicorn on a free
127.0.0.1 port, X-Forwarded-* ignored) and each request carries the ``Host`` and ``Origin``
a proxy in front of ``https://jobs.example.org`` would forward. Nothing leaves loopback:
the connection always goes to 127.0.0.1, only the headers name the public host.
"""

from __future__ import annotations

import asyncio
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from jobctrl.api.security import PublicOrigin, public_origins
from jobctrl.api.server import bind, serve_app
from jobctrl.home import Home
from tests.support.processes import WorkerProcess, run_cli

PUBLIC = "jobs.example.org"
PUBLIC_URL = f"https://{PUBLIC}"
# What a browser on the proxied page sends with a form's fetch.
SAME_ORIGIN = {"Host": PUBLIC, "Origin": PUBLIC_URL, "Sec-Fetch-Site": "same-origin"}


@contextmanager
def served(home: Home, public: tuple[PublicOrigin, ...] = ()) -> Iterator[httpx.Client]:
    """``serve_app`` on 127.0.0.1 in a thread; a client bound to it."""
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    ready = threading.Event()
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(
            serve_app(home, sock, stop, on_ready=lambda _: ready.set(), public=public)
        )

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        assert ready.wait(10), "the app did not start"
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            yield http
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        sock.close()
        loop.close()
    assert not thread.is_alive(), "the app did not stop"


def _token(home: Home) -> dict[str, str]:
    return {"Authorization": f"Bearer {(home.root / 'api-token').read_text().strip()}"}


def _code(r: httpx.Response) -> str:
    return r.json()["error"]["code"]


def test_without_a_public_url_the_proxied_host_is_refused(home):
    with served(home) as http:
        for path in ("/jobs", "/v1/jobs", "/v1/events/stream"):
            r = http.get(path, headers={"Host": PUBLIC})
            assert r.status_code == 403 and _code(r) == "forbidden_host", path
        r = http.post("/v1/jobs", json={}, headers={**SAME_ORIGIN, **_token(home)})
        assert r.status_code == 403 and _code(r) == "forbidden_host"
        # The default is unchanged: the loopback name still answers, writes still need
        # the token or the loopback page's own origin.
        assert http.get("/jobs").status_code == 200
        r = http.post(
            "/v1/jobs", json={}, headers={"Origin": PUBLIC_URL, "Sec-Fetch-Site": "same-origin"}
        )
        assert r.status_code == 403 and _code(r) == "cross_site"


def test_with_a_public_url_the_proxied_page_reads_and_writes(home):
    with served(home, public_origins(PUBLIC_URL)) as http:
        assert http.get("/jobs", headers={"Host": PUBLIC}).status_code == 200
        # Some proxies spell the default port.
        assert http.get("/v1/jobs", headers={"Host": f"{PUBLIC}:443"}).status_code == 200
        with http.stream("GET", "/v1/events/stream", headers={"Host": PUBLIC}) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
        # The page's own fetch and a script with the token get past the checks (422: the
        # empty body is what is refused, not the request).
        r = http.post("/v1/jobs", json={}, headers=SAME_ORIGIN)
        assert r.status_code == 422, r.text
        r = http.post("/v1/jobs", json={}, headers={"Host": PUBLIC, **_token(home)})
        assert r.status_code == 422, r.text
        # Loopback keeps working beside it.
        assert http.get("/jobs").status_code == 200


def test_with_a_public_url_other_sites_still_cannot_write(home):
    with served(home, public_origins(PUBLIC_URL)) as http:
        refused = {
            "plain http, the same name": {"Origin": f"http://{PUBLIC}"},
            "another port": {"Origin": f"{PUBLIC_URL}:8443"},
            "a longer name": {"Origin": f"{PUBLIC_URL}.evil.example"},
            "a sub-domain": {"Origin": f"https://x.{PUBLIC}"},
            "a foreign site": {"Origin": "https://evil.example"},
        }
        for why, origin in refused.items():
            r = http.post("/v1/jobs", json={}, headers={"Host": PUBLIC, **origin})
            assert r.status_code == 403 and _code(r) == "cross_site", why
        # The right Origin on a cross-site fetch (another site's page naming ours).
        r = http.post("/v1/jobs", json={}, headers={**SAME_ORIGIN, "Sec-Fetch-Site": "cross-site"})
        assert r.status_code == 403 and _code(r) == "cross_site"
        r = http.post("/v1/jobs", json={}, headers={"Host": PUBLIC})
        assert r.status_code == 401 and _code(r) == "unauthorized"
        r = http.post(
            "/v1/jobs", json={}, headers={"Host": PUBLIC, "Authorization": "Bearer wrong"}
        )
        assert r.status_code == 403 and _code(r) == "forbidden"


def test_a_rebinding_host_is_still_refused_with_a_public_url(home):
    with served(home, public_origins(PUBLIC_URL)) as http:
        for host in (
            "evil.example",
            f"{PUBLIC}.evil.example",
            f"x.{PUBLIC}",
            f"{PUBLIC}:8765",  # the name, but not a port the proxy serves it on
            f"{PUBLIC}.",
            "",
        ):
            for method in ("GET", "POST"):
                r = http.request(method, "/v1/jobs", headers={"Host": host, **_token(home)})
                assert r.status_code == 403 and _code(r) == "forbidden_host", (host, method)


def test_forwarded_headers_are_never_trusted(home):
    """Neither X-Forwarded-Host (a foreign Host stays foreign) nor X-Forwarded-Proto (the
    scheme of a URL the app builds comes from JOBCTRL_PUBLIC_URL, never from a header)."""
    with served(home, public_origins(PUBLIC_URL)) as http:
        r = http.get("/v1/jobs", headers={"Host": "evil.example", "X-Forwarded-Host": PUBLIC})
        assert r.status_code == 403 and _code(r) == "forbidden_host"
        # Starlette's trailing-slash redirect is the one absolute URL the app builds.
        r = http.get("/jobs/", headers={"Host": PUBLIC})
        assert r.status_code == 307 and r.headers["location"] == f"{PUBLIC_URL}/jobs"
        r = http.get("/jobs/", headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": PUBLIC})
        assert (
            r.status_code == 307
            and r.headers["location"] == f"{str(http.base_url).rstrip('/')}/jobs"
        )


@pytest.mark.parametrize(
    "value",
    ["https://*.example.org", "jobs.example.org", "https://jobs.example.org/jobctrl"],
)
def test_up_refuses_a_public_url_it_cannot_use_before_starting_anything(home, monkeypatch, value):
    monkeypatch.setenv("JOBCTRL_PUBLIC_URL", value)
    result = run_cli("up", "--port", "0", timeout=60)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("error: JOBCTRL_PUBLIC_URL"), result.stderr
    assert "worker ready" not in result.stdout and "jobctrl is up" not in result.stdout


def test_up_serves_the_public_host_from_the_environment(
    home, monkeypatch, temporal_address, task_queue
):
    monkeypatch.setenv("JOBCTRL_PUBLIC_URL", PUBLIC_URL)
    up = WorkerProcess("up", "--port", "0", ready="jobctrl is up")
    try:
        up.wait_ready()
        line = next(line for line in up.lines if "jobctrl is up" in line)
        assert f"as {PUBLIC_URL} through your proxy" in line
        found = re.search(r"jobctrl is up: (http://127\.0\.0\.1:\d+)", line)
        assert found, line
        with httpx.Client(base_url=found.group(1), timeout=10) as http:
            assert http.get("/jobs", headers={"Host": PUBLIC}).status_code == 200
            r = http.get("/jobs", headers={"Host": "evil.example"})
            assert r.status_code == 403
    finally:
        code = up.stop(signal.SIGTERM)
    assert code == 0, "\n".join(up.lines)
