"""`POST /v1/apply/{job}/browser` (the Apply page's "Open the form in a browser" and "Dry
run" buttons), httpx against the real app and a real headless Chromium on a loopback
fixture form: a dry run answers with the fields filled and left and the screenshot, nothing
submitted or recorded; no display → APPLY_NO_DISPLAY and nothing recorded; one prefill per
job at a time (409); a form that cannot be used is an error body with its code; the
buttons on the Apply page; the security rules."""

from __future__ import annotations

import os
import re
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from playwright.async_api import expect

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.app import apply_browser_runs
from jobctrl.app.materials import decide_materials
from jobctrl.domain.errors import (
    APPLY_ATTEMPT_LIVE,
    APPLY_FORM_UNAVAILABLE,
    APPLY_NO_DISPLAY,
)
from jobctrl.stages.apply_browser import CHROMIUM
from jobctrl.store import applications
from tests.support.app import live_server
from tests.support.browser import chromium_page, screenshot
from tests.support.forms import FormSite
from tests.support.materials import prepared_job

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)


@pytest.fixture
def site():
    with FormSite() as server:
        yield server


@pytest.fixture
def job(home, store, site, fast_settings) -> str:
    job_id = prepared_job(home, store, site, "/jobs/backend.html")
    decide_materials(home, job_id, "approve")
    return job_id


@pytest.fixture
async def api(home) -> AsyncIterator[httpx.AsyncClient]:
    token = api_token(home.token_path)
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(
        transport=transport,
        base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    ) as client:
        yield client


async def test_a_dry_run_answers_with_the_fields_and_the_screenshot(
    home, store, site, job, api
) -> None:
    response = await api.post(
        f"/v1/apply/{job}/browser", json={"url": site.form("greenhouse"), "dryRun": True}
    )

    assert response.status_code == 200, response.text
    result = response.json()
    assert (result["status"], result["dryRun"], result["watching"]) == ("prefilled", True, False)
    filled = {f["slot"]: f["value"] for f in result["filled"]}
    assert {"first_name", "last_name", "email"} <= set(filled) and all(filled.values())
    assert {f["slot"] for f in result["files"]} >= {"resume"}
    assert "Why do you want to work at Acme?" in [f["field"] for f in result["left"]]
    shot = result["screenshot"]
    assert shot["mediaType"] == "image/png"
    assert store.artifacts.get(shot["artifactId"]).startswith(b"\x89PNG")
    assert result["message"].startswith("dry run:")
    assert site.submissions() == []  # nothing submitted
    assert applications.get(store, job) is None  # a dry run records nothing
    assert apply_browser_runs.running(home) == []


async def test_a_window_needs_a_display_and_nothing_is_recorded_without_one(
    home, store, site, job, api, monkeypatch
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)

    refused = await api.post(f"/v1/apply/{job}/browser", json={"url": site.form("lever")})

    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == APPLY_NO_DISPLAY
    assert applications.get(store, job) is None
    assert "/lever.html" not in [r.path for r in site.requests]  # no browser started


async def test_one_prefill_per_job_at_a_time(home, store, site, job, api, monkeypatch) -> None:
    # The "window" headless (no display in a test), the person's time short.
    monkeypatch.setattr(apply_browser_runs, "WINDOW_HEADLESS", True)
    monkeypatch.setattr(apply_browser_runs, "WATCH_SECONDS", 4.0)
    url = site.form("lever")

    opened = await api.post(f"/v1/apply/{job}/browser", json={"url": url})

    assert opened.status_code == 200, opened.text
    result = opened.json()
    assert (result["status"], result["watching"]) == ("prefilled", True)
    assert result["message"].endswith("submit it yourself")
    assert apply_browser_runs.running(home) == [job]
    again = await api.post(f"/v1/apply/{job}/browser", json={"url": url})
    dry = await api.post(f"/v1/apply/{job}/browser", json={"url": url, "dryRun": True})
    assert (again.status_code, dry.status_code) == (409, 409)
    assert again.json()["error"]["code"] == APPLY_ATTEMPT_LIVE
    assert applications.get(store, job)["status"] == "prefilled"

    deadline = time.monotonic() + 30
    while apply_browser_runs.running(home) and time.monotonic() < deadline:
        time.sleep(0.2)  # the person's time runs out: the window closes
    assert apply_browser_runs.running(home) == []
    assert site.submissions() == []  # the program never submitted


async def test_a_form_that_cannot_be_used_is_an_error_body_with_its_code(
    home, store, site, job, api
) -> None:
    response = await api.post(
        f"/v1/apply/{job}/browser", json={"url": site.base_url + "/gone.html", "dryRun": True}
    )
    assert response.status_code >= 400
    body = response.json()
    assert body["error"]["code"] == APPLY_FORM_UNAVAILABLE == body["code"]
    assert body["status"] == "form_unavailable"


async def test_the_apply_page_has_the_buttons_and_the_route_its_security(home, job, api) -> None:
    prepared = await api.post(f"/v1/apply/{job}/prepare", json={"channel": "browser"})
    assert prepared.status_code == 200, prepared.text
    page = (await api.get("/apply")).text
    assert f'data-post="/v1/apply/{job}/browser"' in page
    assert "Open the form in a browser" in page and "Dry run" in page

    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        cross = await c.post(
            f"/v1/apply/{job}/browser",
            json={"dryRun": True},
            headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        )
        assert cross.status_code == 403
    assert apply_browser_runs.running(home) == []


async def test_the_dry_run_button_on_the_apply_page_says_what_was_filled(
    home, store, site, job, api
) -> None:
    form = site.form("greenhouse")
    prepared = await api.post(
        f"/v1/apply/{job}/prepare", json={"channel": "browser", "formUrl": form}
    )
    assert prepared.status_code == 200, prepared.text
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(base + "/apply")
            await page.get_by_role("button", name="Dry run").click()
            await expect(page.locator("#flash")).to_have_text(
                re.compile(r"^prefilled: dry run: \d+ field\(s\) filled, \d+ left for you"),
                timeout=60_000,
            )
            await screenshot(page, "apply-dry-run")
            assert errors == [], errors
    assert site.submissions() == []
    assert applications.get(store, job)["status"] != "submitted"
