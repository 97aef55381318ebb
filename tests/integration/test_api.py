"""The read API over the projections, and the local-app security rules (httpx against the
real app)."""

from __future__ import annotations

import httpx
import pytest

from jobctrl.api.app import create_app
from jobctrl.store import jobs


@pytest.fixture
async def api(home):
    app = create_app(home, port=8765)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        yield c


async def test_jobs_are_listed_filtered_and_shown(api, store):
    for n in range(3):
        jobs.create_job(store, f"https://jobs.example.com/{n}")
    listed = (await api.get("/v1/jobs", params={"limit": 2})).json()
    assert listed["total"] == 3 and len(listed["items"]) == 2
    assert (await api.get("/v1/jobs", params={"status": "failed"})).json()["total"] == 0
    job_id = listed["items"][0]["jobId"]
    shown = (await api.get(f"/v1/jobs/{job_id}")).json()
    assert shown["jobId"] == job_id and shown["stages"] and shown["materials"] == []
    missing = await api.get("/v1/jobs/nosuchjob")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "job_not_found"
    assert (await api.get("/v1/jobs", params={"min_score": 101})).status_code == 422
    assert (await api.get("/v1/spend")).json()["dailyBudgetUsd"] == 25.0
    assert (await api.get("/v1/settings")).json()["min_fit_score"] == 50
    assert (await api.get("/v1/runs")).json() == {"items": []}


async def test_a_foreign_host_is_refused_everywhere(api, home):
    for path in ("/v1/jobs", "/v1/spend", "/openapi.json", "/v1/events/stream"):
        r = await api.get(path, headers={"Host": "evil.example:8765"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden_host", path
    # A state change is refused for its Host before the token is even looked at.
    token = (home.root / "api-token").read_text().strip()
    r = await api.post(
        "/v1/jobs",
        json={"url": "https://jobs.example.com/1"},
        headers={"Host": "evil.example:8765", "Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden_host"
    r = await api.post("/v1/jobs", headers={"Host": "127.0.0.1:9999"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden_host"


async def test_state_changes_need_the_token_or_the_same_origin(api, home):
    token = (home.root / "api-token").read_text().strip()
    assert len(token) >= 22 and oct((home.root / "api-token").stat().st_mode)[-3:] == "600"
    missing = await api.post("/v1/jobs")
    assert missing.status_code == 401 and missing.json()["error"]["code"] == "unauthorized"
    cross = await api.post(
        "/v1/jobs", headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    )
    assert cross.status_code == 403 and cross.json()["error"]["code"] == "cross_site"
    # A foreign Origin without Sec-Fetch-Site (an older browser) is cross-site too.
    old = await api.post("/v1/jobs", headers={"Origin": "https://evil.example"})
    assert old.status_code == 403 and old.json()["error"]["code"] == "cross_site"
    # The right Origin but a cross-site fetch (a page on another site naming ours) is refused.
    forged = await api.post(
        "/v1/jobs", headers={"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "cross-site"}
    )
    assert forged.status_code == 403 and forged.json()["error"]["code"] == "cross_site"
    wrong = await api.post("/v1/jobs", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "forbidden"
    # Past the security check: the command itself answers (it needs a JSON body).
    ok = await api.post("/v1/jobs", headers={"Authorization": f"Bearer {token}"})
    assert ok.status_code == 422 and ok.json()["error"]["code"] == "invalid_input"
    same = await api.post(
        "/v1/jobs", headers={"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}
    )
    assert same.status_code == 422 and same.json()["error"]["code"] == "invalid_input"
    r = await api.get("/v1/jobs")
    assert r.headers["x-frame-options"] == "DENY"
    assert "access-control-allow-origin" not in r.headers


async def test_same_origin_means_the_same_port_too(api):
    """``http://localhost`` (port 80: another local web app) is not this server's origin;
    an older browser sends no Sec-Fetch-Site, so the Origin alone must decide."""
    for origin in ("http://localhost", "http://127.0.0.1", "http://localhost:9999"):
        r = await api.post("/v1/jobs", json={}, headers={"Origin": origin})
        assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site", origin
    r = await api.post("/v1/jobs", json={}, headers={"Origin": "http://localhost:8765"})
    assert r.status_code == 422, "the real origin gets past the check"


async def test_a_bug_is_a_json_500_with_the_traceback_only_in_the_log(home, monkeypatch):
    from jobctrl.app import activity as activity_module

    def broken(*_args, **_kwargs):
        raise RuntimeError("secret provider text")

    monkeypatch.setattr(activity_module, "discovery_runs", broken)
    transport = httpx.ASGITransport(app=create_app(home, port=8765), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        r = await c.get("/v1/runs")
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal_error"
    assert "secret" not in r.text and "Traceback" not in r.text
    logged = (home.logs_dir / "jobctrl.log").read_text()
    assert "secret provider text" in logged and "Traceback" in logged
