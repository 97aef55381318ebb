"""The demo site: serves the posting pages and robots.txt over loopback HTTP, stops cleanly."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from jobctrl.demo.postings import generate_postings
from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.demo.site import DemoSite, demo_pages
from jobctrl.domain.profile import Profile


def _get(url: str, method: str = "GET") -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["Content-Type"], error.read()


def test_serves_each_demo_page() -> None:
    pages = demo_pages()
    assert len(pages) == 6
    with DemoSite() as site:
        assert site.base_url.startswith("http://127.0.0.1:")
        urls = site.urls()
        assert urls == [site.base_url + path for path in sorted(pages)]
        for url in urls:
            status, content_type, body = _get(url)
            assert status == 200
            assert content_type == "text/html; charset=utf-8"
            assert body.decode("utf-8") == pages[url.removeprefix(site.base_url)]


def test_serves_robots_txt_allowing_all() -> None:
    with DemoSite() as site:
        status, content_type, body = _get(site.base_url + "/robots.txt")
    assert status == 200 and content_type.startswith("text/plain")
    assert body.decode().splitlines() == ["User-agent: *", "Allow: /"]


def test_unknown_path_is_404_and_query_strings_are_ignored() -> None:
    with DemoSite() as site:
        assert _get(site.base_url + "/jobs/nope.html")[0] == 404
        assert _get(site.urls()[0] + "?utm_source=test")[0] == 200
        status, _, body = _get(site.urls()[0], method="HEAD")
        assert (status, body) == (200, b"")


def test_extra_pages_are_served_and_listed() -> None:
    extra = generate_postings(5, seed=1)
    with DemoSite(extra_pages=extra) as site:
        assert len(site.urls()) == 11
        path = next(iter(extra))
        assert _get(site.base_url + path)[2].decode() == extra[path]


def test_stop_closes_the_port_and_thread() -> None:
    site = DemoSite().start()
    url = site.urls()[0]
    thread = site._thread
    site.stop()
    assert thread is not None and not thread.is_alive()
    with pytest.raises(urllib.error.URLError):
        _get(url)
    with pytest.raises(RuntimeError):
        _ = site.base_url
    site.stop()  # stopping twice is harmless


def test_serve_forever_blocks_until_interrupted() -> None:
    code = (
        "from jobctrl.demo.site import serve_forever\n"
        "serve_forever(0, ready=lambda url: print(url, flush=True))\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell's background job starts with Ctrl-C ignored, and Python then installs no
        # KeyboardInterrupt: give the child the default, as a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stdout is not None
        base = process.stdout.readline().strip()
        assert base.startswith("http://127.0.0.1:")
        assert _get(base + "/robots.txt")[0] == 200
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)  # a loaded CI machine: not 10 s
    assert process.returncode == 0
    assert stderr == ""  # quiet: no request log lines


def test_generated_postings_are_deterministic_and_varied() -> None:
    pages = generate_postings(50, seed=7)
    assert pages == generate_postings(50, seed=7)
    assert pages != generate_postings(50, seed=8)
    assert list(generate_postings(10, seed=7).items()) == list(pages.items())[:10]
    assert all(p.startswith("/jobs/") and p.endswith(".html") for p in pages)
    without_json_ld = [p for p, body in pages.items() if "application/ld+json" not in body]
    assert len(without_json_ld) == 5
    assert sum('"@graph"' in body for body in pages.values()) >= 3
    assert sum("TELECOMMUTE" in body for body in pages.values()) >= 3
    assert sum("baseSalary" in body for body in pages.values()) >= 5


def test_demo_profile_is_a_valid_profile() -> None:
    profile = Profile.model_validate(DEMO_PROFILE)
    assert profile.name and profile.skills and profile.education
    assert all(job.bullets and job.start for job in profile.experience)
    json.dumps(DEMO_PROFILE)  # plain data, usable as a config.yaml block
