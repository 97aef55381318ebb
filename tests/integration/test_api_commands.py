"""The HTTP API's commands (httpx against the real app, with the bearer token) on a real
Temporal dev server with an in-process worker and a loopback fixture site: add, retry,
materials decisions and PDFs, discovery, settings, and what happens without a server or
worker."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

from jobctrl.api.app import create_app
from jobctrl.demo.boards import DemoBoards, build_boards, duplicate_pairs
from jobctrl.domain.ids import DISCOVER_WORKFLOW_ID
from jobctrl.store import jobs, schema, stage_states, tenancy
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.jobs import failed_job
from tests.support.waiting import eventually_async

BASE = "http://127.0.0.1:8765"
GOOD = posting_html(
    "Senior Backend Engineer",
    "Acme Robotics",
    ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker", "FastAPI"],
)


@pytest.fixture
async def api(home) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(home, port=8765)
    token = (home.root / "api-token").read_text().strip()
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url=BASE,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    ) as c:
        yield c


async def _job(api: httpx.AsyncClient, job_id: str) -> dict[str, Any]:
    r = await api.get(f"/v1/jobs/{job_id}")
    assert r.status_code == 200, r.text
    return r.json()


async def _scored(api: httpx.AsyncClient, job_id: str, timeout: float = 60.0) -> dict[str, Any]:
    async def probe() -> dict[str, Any] | None:
        view = await _job(api, job_id)
        return view if view["score"] is not None else None

    return await eventually_async(probe, timeout, what=f"job {job_id} to be scored")


async def _settled(store: Store, job_id: str, timeout: float = 60.0) -> None:
    """Every preparation execution of the job has finished (its run rows are closed)."""
    wr = schema.workflow_run_projections

    async def probe() -> bool:
        with store.read() as conn:
            states = (
                conn.execute(
                    select(wr.c.status).where(tenancy.scoped(wr, conn), wr.c.job_id == job_id)
                )
                .scalars()
                .all()
            )
        return bool(states) and "running" not in states

    await eventually_async(probe, timeout, what=f"job {job_id}'s executions to finish")


def _error(r: httpx.Response) -> str:
    body = r.json()
    assert set(body) == {"error"} and body["error"]["message"], body
    return body["error"]["code"]


def _count(store: Store, table, *where) -> int:
    with store.read() as conn:
        return conn.execute(
            select(func.count()).select_from(table).where(tenancy.scoped(table, conn), *where)
        ).scalar_one()


def _job_events(store: Store, job_id: str) -> list[tuple[int, str]]:
    e = schema.job_events
    with store.read() as conn:
        rows = conn.execute(
            select(e.c.seq, e.c.type)
            .where(tenancy.scoped(e, conn), e.c.job_id == job_id)
            .order_by(e.c.seq)
        ).all()
    return [tuple(r) for r in rows]


# -- add -------------------------------------------------------------------------------------


async def test_add_starts_preparation_and_the_same_url_is_the_same_job(
    api, store, worker, site: FixtureServer
):
    url = site.add("/jobs/api-add", Route(body=GOOD))
    r = await api.post("/v1/jobs", json={"url": url})
    assert r.status_code == 202, r.text
    first = r.json()
    assert first["jobId"] and first["created"] is True and first["workflowId"]
    scored = await _scored(api, first["jobId"])
    assert 0 <= scored["score"] <= 100
    assert scored["title"] == "Senior Backend Engineer"
    assert [(s["stage"], s["state"]) for s in scored["stages"][:2]] == [
        ("enrich", "succeeded"),
        ("score", "succeeded"),
    ]
    again = await api.post("/v1/jobs", json={"url": url + "?utm_source=feed"})
    assert again.status_code == 202, again.text
    assert again.json()["jobId"] == first["jobId"] and again.json()["created"] is False
    assert again.json()["runId"] == first["runId"], "one execution for the posting"
    assert _count(store, schema.jobs) == 1
    listed = (await api.get("/v1/jobs")).json()
    assert [j["jobId"] for j in listed["items"]] == [first["jobId"]]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({}, 422),
        ({"url": ""}, 422),
        ({"url": 5}, 422),
        ({"url": "x" * 2049}, 422),
        ({"link": "https://jobs.example.com/1"}, 422),
        ([], 422),
        ({"url": "   "}, 400),
        ({"url": "\t\n"}, 400),
    ],
    ids=["empty", "empty-url", "number", "too-long", "wrong-key", "list", "blank", "whitespace"],
)
async def test_add_refuses_bad_input_without_a_server_error(api, store, body, status):
    r = await api.post("/v1/jobs", json=body)
    assert r.status_code == status, r.text
    assert _error(r) == "invalid_input"
    assert _count(store, schema.jobs) == 0


async def test_add_refuses_a_body_that_is_not_json(api, store):
    r = await api.post(
        "/v1/jobs", content=b"url=https://x.example", headers={"Content-Type": "text/plain"}
    )
    assert r.status_code == 422 and _error(r) == "invalid_input", r.text
    r = await api.post(
        "/v1/jobs", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 422 and _error(r) == "invalid_input"
    assert _count(store, schema.jobs) == 0


async def test_a_job_reference_is_an_id_or_prefix_not_a_pattern(api, store):
    """``_`` and ``%`` are LIKE wildcards: a reference made of them must not resolve to
    whichever job happens to match (and then be retried or approved)."""
    job = jobs.create_job(store, "https://jobs.example.com/only")
    assert (await api.get(f"/v1/jobs/{job.job_id[:6]}")).json()["jobId"] == job.job_id
    for ref in ("____", "%25%25%25%25", job.job_id[:3] + "_", job.job_id[:4] + "%25"):
        r = await api.get(f"/v1/jobs/{ref}")
        assert r.status_code == 404 and _error(r) == "job_not_found", (ref, r.text)
        r = await api.post(f"/v1/jobs/{ref}/materials/approve")
        assert r.status_code == 404 and _error(r) == "job_not_found", (ref, r.text)


# -- retry -----------------------------------------------------------------------------------


async def test_retry_without_a_worker_changes_nothing_then_runs_with_one(
    api, home, store, worker, task_queue, site: FixtureServer, monkeypatch
):
    # Materials off: this test is about Enrich and Score.
    Settings(store).set_value("preparation.materials", False)
    url = site.add("/jobs/flaky", Route(404, b"gone for now"))
    r = await api.post("/v1/jobs", json={"url": url})
    assert r.status_code == 202, r.text
    job_id = r.json()["jobId"]

    async def enrich_failed() -> bool:
        view = await _job(api, job_id)
        return view["stages"][0]["state"] == "failed"

    await eventually_async(enrich_failed, 60, what="Enrich to fail")
    await _settled(store, job_id)
    failed = stage_states.stage_rows(store, job_id)[0]
    assert failed["stage"] == "enrich" and failed["error_code"] == "ENRICH_HTTP_NOT_FOUND"
    rows_before = stage_states.stage_rows(store, job_id)
    events_before = _job_events(store, job_id)
    all_events_before = _count(store, schema.job_events)
    runs_before = _count(store, schema.workflow_run_projections)

    # No worker polls this queue: the retry is refused and nothing is written.
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", f"idle-{uuid.uuid4().hex[:12]}")
    r = await api.post(f"/v1/jobs/{job_id}/retry")
    assert r.status_code == 503, r.text
    assert _error(r) == "worker_runtime_unavailable"
    r = await api.post(f"/v1/jobs/{job_id}/retry", json={"stage": "enrich"})
    assert r.status_code == 503 and _error(r) == "worker_runtime_unavailable"
    assert stage_states.stage_rows(store, job_id) == rows_before
    assert stage_states.stage_rows(store, job_id)[0]["state"] == "failed"
    assert _job_events(store, job_id) == events_before
    assert _count(store, schema.job_events) == all_events_before
    assert _count(store, schema.workflow_run_projections) == runs_before
    assert (await _job(api, job_id))["status"] == "failed"

    # The posting is back and a worker serves the queue: the retry runs Enrich and Score.
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", task_queue)
    site.add("/jobs/flaky", Route(body=GOOD))
    r = await api.post(f"/v1/jobs/{job_id}/retry")
    assert r.status_code == 202, r.text
    started = r.json()
    assert started["jobId"] == job_id and started["stage"] == "enrich"
    assert started["workflowId"].startswith("prepare-retry-enrich-")
    scored = await _scored(api, job_id)
    assert scored["stages"][0]["state"] == "succeeded" and scored["title"]
    e = schema.job_events
    with store.read() as conn:
        resets = conn.execute(
            select(e.c.payload).where(
                tenancy.scoped(e, conn), e.c.job_id == job_id, e.c.type == "StageReset"
            )
        ).scalars()
        assert [(p["stage"], p["reason"]) for p in resets] == [("enrich", "retry")]
    await _settled(store, job_id)

    # Nothing has failed any more; a stage that never failed cannot be retried either.
    r = await api.post(f"/v1/jobs/{job_id}/retry")
    assert r.status_code == 409 and _error(r) == "nothing_to_retry"
    r = await api.post(f"/v1/jobs/{job_id}/retry", json={"stage": "score"})
    assert r.status_code == 409 and _error(r) == "nothing_to_retry"
    r = await api.post("/v1/jobs/nosuchjob/retry")
    assert r.status_code == 404 and _error(r) == "job_not_found"
    r = await api.post(f"/v1/jobs/{job_id}/retry", json={"stage": 7})
    assert r.status_code == 422 and _error(r) == "invalid_input"


# -- materials -------------------------------------------------------------------------------


async def test_materials_are_served_as_pdfs_and_decided(
    api, store, worker, site: FixtureServer, fast_settings
):
    fast_settings.set_value("preparation.materials", True)
    fast_settings.set_value("min_fit_score", 50)
    r = await api.post("/v1/jobs", json={"url": site.add("/jobs/mat", Route(body=GOOD))})
    assert r.status_code == 202, r.text
    job_id = r.json()["jobId"]

    async def with_materials() -> dict[str, Any] | None:
        view = await _job(api, job_id)
        pdf = {s["stage"]: s["state"] for s in view["stages"]}.get("pdf")
        assert pdf not in ("failed", "skipped"), view["stages"]
        return view if pdf == "succeeded" and len(view["materials"]) == 2 else None

    view = await eventually_async(with_materials, 60, what="the materials")
    materials = {m["kind"]: m for m in view["materials"]}
    assert set(materials) == {"resume", "cover"}
    for m in materials.values():
        assert m["approval"] == "draft" and m["pdfUrl"] == f"/v1/artifacts/{m['pdfArtifact']}"
        pdf = await api.get(m["pdfUrl"])
        assert pdf.status_code == 200
        assert pdf.headers["content-type"] == "application/pdf"
        assert pdf.headers["content-disposition"].startswith("inline; filename=")
        assert pdf.headers["content-disposition"].endswith(
            '_Acme_Robotics_Senior_Backend_Engineer.pdf"'
        )
        assert pdf.content.startswith(b"%PDF")
    # Other artifacts (the fetched page, its text) never leave the store this way.
    for other in (view["artifacts"]["page"], view["artifacts"]["text"], "0" * 64, "x"):
        assert other
        r = await api.get(f"/v1/artifacts/{other}")
        assert r.status_code == 404 and _error(r) == "artifact_not_found"
        assert not r.content.startswith(b"%PDF")

    r = await api.post(f"/v1/jobs/{job_id}/materials/bogus")
    assert r.status_code == 400 and _error(r) == "invalid_input"
    r = await api.post("/v1/jobs/nosuchjob/materials/approve")
    assert r.status_code == 404 and _error(r) == "job_not_found"

    r = await api.post(f"/v1/jobs/{job_id}/materials/approve")
    assert r.status_code == 200, r.text
    assert {(d["kind"], d["generation"], d["state"]) for d in r.json()["items"]} == {
        ("resume", 1, "approved"),
        ("cover", 1, "approved"),
    }
    # Nothing waits for a decision now: refused as a client error, not a server error.
    r = await api.post(f"/v1/jobs/{job_id}/materials/reject")
    assert 400 <= r.status_code < 500 and _error(r) == "no_draft"

    # A regeneration makes drafts again; rejecting them keeps the approved generation.
    await _settled(store, job_id)
    r = await api.post(f"/v1/jobs/{job_id}/materials/regenerate")
    assert r.status_code == 202, r.text
    assert r.json()["generation"] == 2

    async def second_generation() -> bool:
        view = await _job(api, job_id)
        return {(m["kind"], m["generation"]) for m in view["materials"]} >= {
            ("resume", 2),
            ("cover", 2),
        }

    await eventually_async(second_generation, 60, what="the second generation")
    r = await api.post(f"/v1/jobs/{job_id}/materials/reject")
    assert r.status_code == 200, r.text
    assert {(d["kind"], d["generation"], d["state"]) for d in r.json()["items"]} == {
        ("resume", 2, "rejected"),
        ("cover", 2, "rejected"),
    }
    view = await _job(api, job_id)
    assert {(m["kind"], m["generation"]): m["approval"] for m in view["materials"]} == {
        ("resume", 1): "approved",
        ("cover", 1): "approved",
        ("resume", 2): "rejected",
        ("cover", 2): "rejected",
    }
    await _settled(store, job_id)


# -- discovery -------------------------------------------------------------------------------


async def _no_discovery_running(client: Client) -> None:
    """A discovery left running by an earlier test (on a queue nobody polls) would be
    joined instead of started: end it first."""
    handle = client.get_workflow_handle(DISCOVER_WORKFLOW_ID)
    try:
        if (await handle.describe()).status == WorkflowExecutionStatus.RUNNING:
            await handle.terminate("test isolation")
    except RPCError:
        pass  # never started in this dev server


async def test_discovery_starts_and_cancel_without_a_run_is_a_conflict(
    api, home, store, client, worker, fast_settings
):
    from jobctrl.app.sources import add_source

    await _no_discovery_running(client)
    r = await api.post("/v1/discovery/cancel")
    assert r.status_code == 409 and _error(r) == "not_running"

    fast_settings.set_value("discovery.prepare_jobs", False)
    layout = build_boards(boards=2, per_board=2)[:-1]  # no broken board
    with DemoBoards(layout) as boards:
        for s in boards.sources():
            add_source(home, s["kind"], s["name"], s["base_url"])
        r = await api.post("/v1/discovery")
        assert r.status_code == 202, r.text
        run_id = r.json()["runId"]
        assert run_id and r.json()["workflowId"] == DISCOVER_WORKFLOW_ID

        async def finished() -> dict[str, Any] | None:
            runs = (await api.get("/v1/runs")).json()["items"]
            mine = [x for x in runs if x["runId"] == run_id]
            return mine[0] if mine and mine[0]["status"] != "running" else None

        run = await eventually_async(finished, 60, what="the discovery run")
        # The run's row is final a moment before the workflow itself closes.
        handle = client.get_workflow_handle(DISCOVER_WORKFLOW_ID, run_id=run_id)
        await asyncio.wait_for(handle.result(), 60)
    assert run["status"] == "completed", run
    unique = sum(len(b.postings) for b in layout) - duplicate_pairs(layout)
    assert _count(store, schema.jobs) == unique
    r = await api.post("/v1/discovery/cancel")
    assert r.status_code == 409 and _error(r) == "not_running"


# -- settings --------------------------------------------------------------------------------


async def test_settings_change_and_bad_changes_write_nothing(api, store):
    e = schema.job_events
    changed = (e.c.type == "SettingChanged",)
    r = await api.patch("/v1/settings", json={"min_fit_score": 70})
    assert r.status_code == 200, r.text
    assert r.json()["min_fit_score"] == 70
    assert (await api.get("/v1/settings")).json()["min_fit_score"] == 70
    r = await api.patch("/v1/settings", json={"retry.max_attempts": "4", "budget.strict": False})
    assert r.status_code == 200, r.text
    assert r.json()["retry.max_attempts"] == 4 and r.json()["budget.strict"] is False

    before = (await api.get("/v1/settings")).json()
    events = _count(store, e, *changed)
    bad = [
        ({"min_fit_score": 500}, "invalid_setting"),
        ({"min_fit_score": -1}, "invalid_setting"),
        ({"min_fit_score": "high"}, "invalid_setting"),
        ({"min_fit_score": None}, "invalid_setting"),
        ({"min_fit_score": 60.5}, "invalid_setting"),
        ({"budget.strict": "maybe"}, "invalid_setting"),
        ({"discovery.schedule_cron": "every day"}, "invalid_setting"),
        ({"lane_token_limits": {"score": "lots"}}, "invalid_setting"),
        ({"nope": 1}, "unknown_setting"),
        ({}, "invalid_input"),
        # A batch with one bad value writes none of them.
        ({"min_fit_score": 10, "daily_budget_usd": 1, "retry.max_attempts": 99}, "invalid_setting"),
        ({"min_fit_score": 10, "daily_budget_usd": 1, "nope": 1}, "unknown_setting"),
    ]
    for body, code in bad:
        r = await api.patch("/v1/settings", json=body)
        assert r.status_code == 400, (body, r.text)
        assert _error(r) == code, body
    r = await api.patch("/v1/settings", json=[1, 2])
    assert r.status_code == 422 and _error(r) == "invalid_input"
    assert (await api.get("/v1/settings")).json() == before
    assert _count(store, e, *changed) == events, "no SettingChanged for a refused change"


async def test_an_infinite_value_is_refused_not_stored(api):
    """``inf`` parses as a float >= 0; stored, it could not be served as JSON again."""
    for value in ("inf", "Infinity", "1e999"):
        r = await api.patch("/v1/settings", json={"daily_budget_usd": value})
        assert r.status_code == 400, (value, r.text)
        assert _error(r) == "invalid_setting"
    r = await api.get("/v1/settings")
    assert r.status_code == 200 and r.json()["daily_budget_usd"] == 25.0


# -- without a server ------------------------------------------------------------------------


async def test_without_a_temporal_server_commands_answer_503_and_create_nothing(
    api, store, no_temporal
):
    r = await api.post("/v1/jobs", json={"url": "https://jobs.example.com/posting/1"})
    assert r.status_code == 503, r.text
    assert _error(r) == "temporal_unavailable" and "is saved" in r.text
    assert _count(store, schema.jobs) == 1, "the job is kept with its intent to prepare it"
    assert _count(store, schema.start_intents) == 1, "the worker starts it once it can"
    for path in ("/v1/discovery", "/v1/discovery/cancel"):
        r = await api.post(path)
        assert r.status_code == 503 and _error(r) == "temporal_unavailable", (path, r.text)

    # A failed stage's retry answers 503 too and leaves the row and its events alone.
    job_id = failed_job(store, "https://jobs.example.com/posting/2")
    rows = stage_states.stage_rows(store, job_id)
    events = _job_events(store, job_id)
    r = await api.post(f"/v1/jobs/{job_id}/retry")
    assert r.status_code == 503 and _error(r) == "worker_runtime_unavailable"
    assert stage_states.stage_rows(store, job_id) == rows
    assert _job_events(store, job_id) == events
