"""The browser extension's connection and captures over real HTTP (the app in process, a
real store): pairing with a one-time code, a token scoped to captures and status, only
its own extension origin, revocation, and hostile captures (a script in a title, a 5 MB
description, another tenant's token, a host the person did not allow) — each asserting
what lands in the store. No Temporal: a capture's job is kept with its start intent."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from jobctrl.api.app import create_app
from jobctrl.app import apply_browser, apply_views
from jobctrl.app import extension as app_extension
from jobctrl.cli import main
from jobctrl.domain.clock import utcnow
from jobctrl.domain.errors import JobctrlError
from jobctrl.store import applications, extension_tables, jobs, schema, start_intents, tenancy
from jobctrl.store.settings import Settings
from tests.support.apply import approved_job
from tests.support.tenants import TwoTenants

BASE = "http://127.0.0.1:8765"
EXT = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
URL = "https://careers.example.com/jobs/42"


def _client(home) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    return httpx.AsyncClient(transport=transport, base_url=BASE)


def _count(store, table) -> int:
    with store.read() as conn:
        stmt = select(func.count()).select_from(table).where(tenancy.scoped(table, conn))
        return conn.execute(stmt).scalar_one()


async def _paired(api: httpx.AsyncClient, home, name: str | None = None) -> dict[str, str]:
    code = app_extension.make_code(home, name).code
    r = await api.post("/v1/extension/pair", json={"code": code}, headers={"Origin": EXT})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}", "Origin": EXT}


async def test_a_code_pairs_once_for_a_token_that_opens_captures_only(home, store) -> None:
    async with _client(home) as api:
        made = app_extension.make_code(home, "laptop")
        first = await api.post(
            "/v1/extension/pair", json={"code": made.code.lower()}, headers={"Origin": EXT}
        )
        assert first.status_code == 200 and first.json()["name"] == "laptop"
        token = first.json()["token"]
        again = await api.post("/v1/extension/pair", json={"code": made.code})
        assert again.status_code == 403, "a code works once"
        old = app_extension.make_code(home, now=utcnow() - timedelta(minutes=11))
        expired = await api.post("/v1/extension/pair", json={"code": old.code})
        assert expired.status_code == 403 and "expired" in expired.json()["error"]["message"]
        from_a_site = await api.post(
            "/v1/extension/pair", json={"code": "ABCDEFGH"}, headers={"Origin": "https://x.test"}
        )
        assert from_a_site.status_code in (401, 403)

        ours = {"Authorization": f"Bearer {token}", "Origin": EXT}
        status = await api.get("/v1/captures/status", params={"url": URL}, headers=ours)
        assert status.status_code == 200 and status.json() == {"known": False}
        tasks = await api.get("/v1/extension/tasks", headers=ours)
        assert tasks.status_code == 200 and tasks.json()["items"] == []
        for method, path in (
            ("GET", "/v1/jobs"),
            ("GET", "/v1/settings"),
            ("PATCH", "/v1/settings"),
            ("GET", "/v1/applications"),
            ("POST", "/v1/extension/codes"),
            ("GET", "/"),
        ):
            r = await api.request(method, path, headers=ours, json={} if method != "GET" else None)
            assert r.status_code == 403, (method, path, r.text)
        other_ext = {**ours, "Origin": "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba"}
        r = await api.post("/v1/captures", json={"url": URL, "title": "x"}, headers=other_ext)
        assert r.status_code == 403, "another extension's origin"
        site = {**ours, "Origin": "https://evil.example"}
        r = await api.post("/v1/captures", json={"url": URL, "title": "x"}, headers=site)
        assert r.status_code == 403, "a web page's origin"
        tokenless = await api.post("/v1/captures", json={"url": URL}, headers={"Origin": EXT})
        assert tokenless.status_code in (401, 403)

        listed = app_extension.list_extensions(home).items
        assert [(i.name, i.origin) for i in listed] == [("laptop", EXT)]
        with store.read() as conn:
            et = extension_tables.extension_tokens
            kept = conn.execute(select(et.c.token_sha256).where(tenancy.scoped(et, conn)))
            assert token not in set(kept.scalars()), "only the token's hash is kept"
        page = (await api.get("/settings")).text
        assert "Show a pairing code" in page and "laptop" in page, "Settings lists it"
        script = await api.get("/static/extension_pairing.js")
        assert script.status_code == 200 and "/v1/extension/codes" in script.text
        same_origin = {"Origin": BASE, "Sec-Fetch-Site": "same-origin"}
        made = await api.post("/v1/extension/codes", json={}, headers=same_origin)
        assert made.status_code == 201 and len(made.json()["code"]) == 8, "the Settings button"
        app_extension.revoke(home, "laptop")
        r = await api.get("/v1/captures/status", params={"url": URL}, headers=ours)
        assert r.status_code == 403, "a revoked token is refused at once"
    assert _count(store, schema.jobs) == 0


async def test_hostile_captures_land_nothing_or_only_text(home, store, no_temporal) -> None:
    script = "<script>alert(1)</script>Backend Engineer"
    page = (
        "<html><body><h1 onclick='steal()'>Backend Engineer</h1>"
        "<script>document.cookie</script><a href='javascript:steal()'>apply</a>"
        "<p>Build APIs in Python.</p></body></html>"
    )
    async with _client(home) as api:
        ours = await _paired(api, home)
        huge = {"url": URL, "title": "T", "description": "x" * (5 * 1024 * 1024)}
        r = await api.post("/v1/captures", json=huge, headers=ours)
        assert r.status_code == 413 and "too large" in r.json()["error"]["message"]
        long = {"url": URL, "title": "T", "description": "x" * 100_001}
        r = await api.post("/v1/captures", json=long, headers=ours)
        assert r.status_code == 422 and "description" in r.json()["error"]["message"]
        r = await api.post("/v1/captures", json={"url": "javascript:alert(1)"}, headers=ours)
        assert r.status_code in (400, 422)
        empty = await api.post("/v1/captures", json={"url": URL}, headers=ours)
        assert empty.status_code == 400 and "no job posting" in empty.json()["error"]["message"]
        assert _count(store, schema.jobs) == 0

        body = {"url": URL, "html": page, "title": script, "description": "Build APIs."}
        saved = await api.post("/v1/captures", json=body, headers=ours)
        assert saved.status_code == 201, saved.text
        assert set(saved.json()) == {"jobId", "created"} and saved.json()["created"] is True
        job_id = saved.json()["jobId"]
        again = await api.post("/v1/captures", json=body, headers=ours)
        assert again.json() == {"jobId": job_id, "created": False}, "the same job"
        status = await api.get("/v1/captures/status", params={"url": URL + "?utm_source=x"})
        assert status.json()["known"] is True and status.json()["jobId"] == job_id
    with store.read() as conn:
        c = extension_tables.job_captures
        row = conn.execute(select(c).where(tenancy.scoped(c, conn))).first()
    assert row.fields["title"] == script, "kept as the text it is"
    snapshot = store.artifacts.get(row.snapshot_artifact).decode()
    assert "Build APIs in Python." in snapshot
    for unsafe in ("<script>document", "onclick", "javascript:", "steal()"):
        assert unsafe not in snapshot, unsafe
    assert start_intents.unstarted_for(store, job_id), "no worker: the worker starts it later"


async def test_another_tenants_token_lands_only_in_its_tenant(
    two_tenants: TwoTenants, no_temporal
) -> None:
    t = two_tenants
    Settings(t.acme).set_value("extension.capture_hosts", ["linkedin.com"])
    async with _client(t.local_home) as api:
        theirs = await _paired(api, t.acme_home)
        r = await api.post("/v1/captures", json={"url": URL, "title": "T"}, headers=theirs)
        assert r.status_code == 403 and "extension.capture_hosts" in r.json()["error"]["message"]
        allowed = {"url": "https://www.linkedin.com/jobs/view/123", "title": "Data Engineer"}
        r = await api.post("/v1/captures", json=allowed, headers=theirs)
        assert r.status_code == 201, r.text
    assert _count(t.local, schema.jobs) == 0
    assert _count(t.local, extension_tables.job_captures) == 0
    assert _count(t.acme, schema.jobs) == 1
    assert app_extension.list_extensions(t.local_home).items == []


def test_easy_apply_is_apply_on_the_site_never_a_form_to_fill(home, store, site, fast_settings):
    job_id = approved_job(home, store, site, "/jobs/easy-apply")
    with store.write() as tx:  # the posting's apply button is LinkedIn's own (Easy Apply)
        linkedin = "https://www.linkedin.com/jobs/view/4001/"
        jobs.record_enrichment(tx, job_id, {"apply_url": linkedin}, "json-ld")
    [queued] = [q for q in apply_views.apply_queue(home) if q.job_id == job_id]
    assert (queued.channel, queued.target) == ("browser", "apply_on_site")
    with pytest.raises(JobctrlError) as refused:
        apply_browser.prefill(home, job_id, dry_run=True)
    assert refused.value.code == "APPLY_ON_SITE" and refused.value.http_status == 409
    assert applications.get(store, job_id) is None, "nothing opened, nothing to retry"
    listed = CliRunner().invoke(main, ["apply", "list"])
    assert "apply on the site" in listed.output
