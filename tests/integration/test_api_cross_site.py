"""A change asked by a page of another site is refused even when the request carries a
token: behind a reverse proxy that adds each person's token after its login
(docs/DEPLOY.md), the browser's ambient login would otherwise carry any site's form post.
A script (no Origin, no Sec-Fetch-Site) with a token still acts."""

from __future__ import annotations

import httpx
import pytest

from jobctrl.api.app import create_app
from jobctrl.store.settings import Settings
from tests.support.tenants import ACME_TOKEN, TwoTenants

OURS = "http://127.0.0.1:8765"


@pytest.fixture
def api(two_tenants: TwoTenants) -> httpx.AsyncClient:
    app = create_app(two_tenants.local_home, port=8765)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=OURS)


@pytest.mark.parametrize(
    "browser",
    [
        {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        {"Origin": "https://evil.example"},  # an older browser: no Sec-Fetch-Site
        {"Sec-Fetch-Site": "cross-site"},  # no Origin sent
        {"Origin": OURS, "Sec-Fetch-Site": "same-site"},  # a sibling subdomain's page
        {"Origin": "null"},  # a sandboxed frame or a data: URL
    ],
)
async def test_another_sites_request_is_refused_with_a_token(
    api: httpx.AsyncClient, two_tenants: TwoTenants, browser: dict[str, str]
) -> None:
    headers = {"Authorization": f"Bearer {ACME_TOKEN}", **browser}
    before = Settings(two_tenants.acme).get("min_fit_score")
    async with api:
        changed = await api.patch("/v1/settings", json={"min_fit_score": 99}, headers=headers)
        cancel = await api.post("/v1/jobs/0123456789ab/cancel", headers=headers)
    assert changed.status_code == 403, changed.text
    assert changed.json()["error"]["code"] == "cross_site"
    assert cancel.status_code == 403 and cancel.json()["error"]["code"] == "cross_site"
    assert Settings(two_tenants.acme).get("min_fit_score") == before


@pytest.mark.parametrize(
    "browser",
    [
        {},  # a script: neither header
        {"Origin": OURS, "Sec-Fetch-Site": "same-origin"},  # jobctrl's own page
    ],
)
async def test_a_script_or_our_own_page_with_a_token_acts(
    api: httpx.AsyncClient, two_tenants: TwoTenants, browser: dict[str, str]
) -> None:
    headers = {"Authorization": f"Bearer {ACME_TOKEN}", **browser}
    async with api:
        changed = await api.patch("/v1/settings", json={"min_fit_score": 77}, headers=headers)
        listed = await api.get("/v1/jobs", headers={**headers, "Sec-Fetch-Site": "cross-site"})
    assert changed.status_code == 200, changed.text
    assert Settings(two_tenants.acme).get("min_fit_score") == 77
    assert Settings(two_tenants.local).get("min_fit_score") != 77
    assert listed.status_code == 200  # a read changes nothing: not refused
