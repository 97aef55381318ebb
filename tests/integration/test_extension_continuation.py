"""Captures on real Temporal, SQLite and loopback HTTP: Enrich reads a capture instead of
fetching (source ``browser_capture``), and a job whose site refused a robot waits under
``browser_capture_needed`` until a capture continues it — Enrich, then Score — under one
workflow id for that refusal, without Discover."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from sqlalchemy import func, select

from jobctrl.api.app import create_app
from jobctrl.app import captures
from jobctrl.app import extension as app_extension
from jobctrl.app.jobs import add_job
from jobctrl.app.queries import show_job
from jobctrl.domain import ids
from jobctrl.store import schema, tenancy
from tests.support.http import Route, posting_html
from tests.support.waiting import eventually_async

BASE = "http://127.0.0.1:8765"
EXT = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
GOOD = posting_html("Senior Python Engineer", "Acme Robotics", ["5+ years of Python", "PostgreSQL"])


def _finished(home, job_id: str) -> bool:
    return show_job(home, job_id).status in ("prepared", "skipped")


@asynccontextmanager
async def _api(home) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, str]]]:
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as api:
        code = app_extension.make_code(home).code
        token = (await api.post("/v1/extension/pair", json={"code": code})).json()["token"]
        yield api, {"Authorization": f"Bearer {token}", "Origin": EXT}


async def test_a_capture_is_enriched_without_fetching(home, store, worker, site) -> None:
    url = site.add("/jobs/captured", Route(body=b"<p>the site's own copy</p>"))
    async with _api(home) as (api, ours):
        r = await api.post("/v1/captures", json={"url": url, "html": GOOD.decode()}, headers=ours)
        assert r.status_code == 201 and r.json()["created"] is True
        job_id = r.json()["jobId"]
        await eventually_async(lambda: _finished(home, job_id), what="the captured job prepared")
        status = (await api.get("/v1/captures/status", params={"url": url}, headers=ours)).json()
    view = show_job(home, job_id)
    assert view.source == "browser_capture" and view.extraction_method == "browser_capture"
    assert view.title == "Senior Python Engineer" and view.company == "Acme Robotics"
    assert site.hits.get("/jobs/captured") is None, "Enrich read the capture, not the site"
    assert status == {
        "known": True,
        "jobId": job_id,
        "score": view.score,
        "nextAction": view.next_action,
    }


async def test_a_blocked_job_waits_for_the_browser_and_continues_from_a_capture(
    home, store, worker, site, client
) -> None:
    site.add("/robots.txt", Route(body=b"User-agent: *\nDisallow: /jobs/\n"))
    url = site.add("/jobs/signed-in", Route(body=GOOD))
    blocked = await add_job(home, url, wait=True)
    enrich = blocked.stages[0]
    assert (enrich.state, enrich.error_code) == ("failed", "ENRICH_ROBOTS_DISALLOWED")
    assert enrich.condition == "browser_capture_needed"
    assert blocked.to_json()["stages"][0]["condition"] == "browser_capture_needed"
    assert blocked.next_action == "needs_browser", "the inbox: Needs your browser"
    episode = ids.stage_workflow_id(
        ids.CAPTURE_KIND, "enrich", blocked.job_id, enrich.finished_at.isoformat(), store.tenant
    )
    async with _api(home) as (api, ours):
        tasks = (await api.get("/v1/extension/tasks", headers=ours)).json()
        assert [(t["jobId"], t["url"]) for t in tasks["items"]] == [(blocked.job_id, url)]
        captures.set_tasks(home, enabled=False)
        stopped = (await api.get("/v1/extension/tasks", headers=ours)).json()
        assert stopped == {"items": [], "enabled": False}, "the queue stops"
        captures.set_tasks(home, enabled=True)
        body = {"url": url, "html": GOOD.decode()}
        r = await api.post("/v1/captures", json=body, headers=ours)
        assert r.json() == {"jobId": blocked.job_id, "created": False}
        await eventually_async(
            lambda: _finished(home, blocked.job_id), what="the blocked job continued"
        )
        after = (await api.get("/v1/extension/tasks", headers=ours)).json()
        assert after["items"] == [], "no longer waiting"
        again = await api.post("/v1/captures", json=body, headers=ours)
        assert again.status_code == 201
    view = show_job(home, blocked.job_id)
    assert [(s.stage, s.state) for s in view.stages][:2] == [
        ("enrich", "succeeded"),
        ("score", "succeeded"),
    ]
    assert view.stages[0].condition is None
    assert site.hits.get("/jobs/signed-in") is None, "the site was never read"
    runs = [w async for w in client.list_workflows(f"WorkflowId = '{episode}'")]
    assert len(runs) == 1, "one execution for the refusal, the second capture started none"
    with store.read() as conn:
        d = schema.discovery_runs
        found = conn.execute(select(func.count()).select_from(d).where(tenancy.scoped(d, conn)))
        assert found.scalar_one() == 0, "Discover did not run"
