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


async def test_a_foreign_host_is_refused_everywhere(api):
    for path in ("/v1/jobs", "/v1/spend", "/openapi.json"):
        r = await api.get(path, headers={"Host": "evil.example:8765"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden_host"


async def test_state_changes_need_the_token_or_the_same_origin(api, home):
    token = (home.root / "api-token").read_text().strip()
    assert len(token) >= 22 and oct((home.root / "api-token").stat().st_mode)[-3:] == "600"
    assert (await api.post("/v1/jobs")).status_code == 401
    cross = await api.post(
        "/v1/jobs", headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    )
    assert cross.status_code == 401
    wrong = await api.post("/v1/jobs", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    # Past the security check (no such command yet): not 401/403.
    ok = await api.post("/v1/jobs", headers={"Authorization": f"Bearer {token}"})
    assert ok.status_code == 405
    same = await api.post(
        "/v1/jobs", headers={"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}
    )
    assert same.status_code == 405
    r = await api.get("/v1/jobs")
    assert r.headers["x-frame-options"] == "DENY"
    assert "access-control-allow-origin" not in r.headers
