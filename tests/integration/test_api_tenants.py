"""The HTTP API acts for the tenant of the request's token: two tenants' tokens see only
their own jobs, a token nobody has is refused on every method (never the server's
tenant), a request without one acts for the server's tenant (or is refused with
JOBCTRL_API_REQUIRE_TOKEN=1), and a tenant may not set an operator-only setting."""

from __future__ import annotations

import httpx
import pytest

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.app.tenants import ensure_token
from jobctrl.store import jobs, tenants
from jobctrl.store.settings import Settings
from tests.support.tenants import ACME_TOKEN, TwoTenants

BASE = "http://127.0.0.1:8765"


def _client(home) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    return httpx.AsyncClient(transport=transport, base_url=BASE)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_each_token_sees_only_its_tenants_jobs(two_tenants: TwoTenants) -> None:
    t = two_tenants
    ours = jobs.create_job(t.local, "https://jobs.example.com/local-1").job_id
    theirs = jobs.create_job(t.acme, "https://jobs.example.com/acme-1").job_id
    same_url = jobs.create_job(t.acme, "https://jobs.example.com/local-1").job_id
    assert same_url != ours
    async with _client(t.local_home) as api:
        local_token = api_token(t.local_home.token_path)
        as_local = (await api.get("/v1/jobs", headers=_bearer(local_token))).json()
        as_acme = (await api.get("/v1/jobs", headers=_bearer(ACME_TOKEN))).json()
        tokenless = (await api.get("/v1/jobs")).json()
        assert {j["jobId"] for j in as_local["items"]} == {ours}
        assert {j["jobId"] for j in as_acme["items"]} == {theirs, same_url}
        assert tokenless == as_local, "no token: the server's tenant"
        for ref in (ours, ours[:6]):
            r = await api.get(f"/v1/jobs/{ref}", headers=_bearer(ACME_TOKEN))
            assert r.status_code == 404 and r.json()["error"]["code"] == "job_not_found"
        assert (await api.get(f"/v1/jobs/{theirs}", headers=_bearer(ACME_TOKEN))).is_success
        r = await api.get(f"/v1/jobs/{theirs}", headers=_bearer(local_token))
        assert r.status_code == 404
        # A write with acme's token lands in acme.
        r = await api.patch("/v1/settings", json={"min_fit_score": 77}, headers=_bearer(ACME_TOKEN))
        assert r.status_code == 200 and r.json()["min_fit_score"] == 77
    assert Settings(t.acme).get("min_fit_score") == 77
    assert Settings(t.local).get("min_fit_score") == 50


async def test_a_server_of_another_tenant_serves_it_without_a_token(two_tenants) -> None:
    t = two_tenants
    theirs = jobs.create_job(t.acme, "https://jobs.example.com/acme-2").job_id
    async with _client(t.acme_home) as api:
        listed = (await api.get("/v1/jobs")).json()
        assert [j["jobId"] for j in listed["items"]] == [theirs]
        local_token = ensure_token(t.local_home)  # as `jobctrl up` of local records it
        assert (await api.get("/v1/jobs", headers=_bearer(local_token))).json()["items"] == []


@pytest.mark.parametrize("method", ["GET", "POST", "PATCH"])
async def test_a_wrong_token_is_refused_on_every_method(two_tenants, method: str) -> None:
    async with _client(two_tenants.local_home) as api:
        for token in ("not-a-token", "", ACME_TOKEN + "x"):
            path = "/v1/settings" if method != "POST" else "/v1/jobs"
            r = await api.request(method, path, headers=_bearer(token), json={})
            assert r.status_code == 403, (token, r.text)
            assert r.json()["error"]["code"] == "forbidden"
        # Pages too: a wrong token never falls back to the server's tenant.
        r = await api.get("/jobs", headers=_bearer("not-a-token"))
        assert r.status_code == 403


async def test_require_token_refuses_a_request_without_one(two_tenants, monkeypatch) -> None:
    monkeypatch.setenv("JOBCTRL_API_REQUIRE_TOKEN", "1")
    async with _client(two_tenants.local_home) as api:
        r = await api.get("/v1/jobs")
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        same_origin = {"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}
        assert (await api.patch("/v1/settings", json={}, headers=same_origin)).status_code == 401
        assert (await api.get("/v1/jobs", headers=_bearer(ACME_TOKEN))).status_code == 200


async def test_an_operator_only_setting_is_refused_for_a_tenant(two_tenants) -> None:
    t = two_tenants
    async with _client(t.local_home) as api:
        for change in (
            {"fetch.allow_hosts": ["127.0.0.1"]},
            {"smtp.password_env": "LOCAL_SMTP_PASSWORD"},
            {"smtp.security": "none", "smtp.host": "127.0.0.1"},
            {"min_fit_score": 60, "fetch.allow_hosts": "10.0.0.5"},
        ):
            r = await api.patch("/v1/settings", json=change, headers=_bearer(ACME_TOKEN))
            assert r.status_code == 403, (change, r.text)
            assert r.json()["error"]["code"] == "setting_operator_only"
        assert Settings(t.acme).get("fetch.allow_hosts") == []
        assert Settings(t.acme).get("min_fit_score") == 50, "all or nothing"
        # A tenant may choose the encrypted modes; local (the operator's own) may do all.
        r = await api.patch(
            "/v1/settings", json={"smtp.security": "starttls"}, headers=_bearer(ACME_TOKEN)
        )
        assert r.status_code == 200, r.text
        r = await api.patch(
            "/v1/settings",
            json={"fetch.allow_hosts": ["127.0.0.1"]},
            headers={"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"},
        )
        assert r.status_code == 200, r.text
    assert Settings(t.local).get("fetch.allow_hosts") == ["127.0.0.1"]


async def test_a_real_browser_run_is_only_for_the_servers_own_tenant(two_tenants) -> None:
    t = two_tenants
    theirs = jobs.create_job(t.acme, "https://jobs.example.com/acme-3").job_id
    async with _client(t.local_home) as api:
        r = await api.post(
            f"/v1/apply/{theirs}/browser", json={"dryRun": False}, headers=_bearer(ACME_TOKEN)
        )
        assert r.status_code == 503 and r.json()["error"]["code"] == "APPLY_NO_DISPLAY"
        assert "dry run" in r.json()["error"]["message"]


async def test_a_token_in_another_form_is_a_wrong_token_not_the_servers_tenant(
    two_tenants,
) -> None:
    jobs.create_job(two_tenants.local, "https://jobs.example.com/local-9")
    async with _client(two_tenants.local_home) as api:
        for auth in (f"Token {ACME_TOKEN}", f"Bearer\t{ACME_TOKEN}x", "Bearer", "Basic eDp5"):
            r = await api.get("/v1/jobs", headers={"Authorization": auth})
            assert r.status_code == 403, (auth, r.text)
        r = await api.get("/v1/jobs", headers={"Authorization": f"Bearer\t{ACME_TOKEN}"})
        assert r.status_code == 200 and r.json()["items"] == [], "acme's: none of local's"


def test_a_host_without_a_tenants_token_file_never_replaces_its_token(two_tenants) -> None:
    t = two_tenants
    recorded = tenants.token_hash(t.local, "acme")
    assert recorded is not None
    elsewhere = t.acme_home
    elsewhere.token_path.unlink(missing_ok=True)  # this host never had acme's token file
    assert ensure_token(elsewhere) is None
    assert not elsewhere.token_path.exists()
    assert tenants.token_hash(t.local, "acme") == recorded, "ACME_TOKEN still works"
