"""The Jobs inbox through the CLI and the API (real SQLite, a loopback site): each job's
next action, hiding and deleting, a posting on two boards shown once, and a posting's
availability with a check now.

Jobs are prepared by running Enrich and Score directly (no Temporal needed)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import select, update

from jobctrl.domain.errors import ENRICH_HTTP_NOT_FOUND, ENRICH_TIMEOUT, JOB_HIDDEN, StageError
from jobctrl.domain.stages import StageState
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import applications, availability, events, jobs, schema, stage_states, tenancy
from jobctrl.store.application_tables import applications as A
from tests.support.app import app_client
from tests.support.http import Route, posting_html
from tests.support.processes import run_cli


@pytest.fixture
async def api(home) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(home) as c:
        yield c


def _prepare(home, store, site, path: str, title: str, company: str, *, bar: int = 0) -> str:
    """A job read and scored from the loopback site, against ``min_fit_score`` ``bar``."""
    store_settings = StageContext(home=home, store=store).settings
    store_settings.set_value("min_fit_score", bar)
    body = posting_html(title, company, ["5+ years of Python", "Experience with PostgreSQL"])
    job = jobs.create_job(store, site.add(path, Route(body=body)))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, "run-inbox")
        score(ctx, job.job_id, "run-inbox", materials=False)
    finally:
        ctx.close()
    return job.job_id


def _jobs_json() -> dict[str, dict]:
    done = run_cli("jobs", "--json")
    assert done.returncode == 0, done.stderr
    return {j["jobId"]: j for j in json.loads(done.stdout)}


async def test_each_job_carries_its_next_action_in_the_cli_and_the_api(
    api, home, store, site, fast_settings
):
    good = _prepare(home, store, site, "/good", "Senior Python Engineer", "Acme")
    low = _prepare(home, store, site, "/low", "Data Engineer", "Bakery", bar=100)
    fast_settings.set_value("min_fit_score", 50)
    waiting = jobs.create_job(store, "https://jobs.example.com/unread").job_id
    listed = _jobs_json()
    assert listed[good]["nextAction"] == "review"
    assert listed[low]["nextAction"] == "not_a_fit"
    assert listed[low]["nextActionReason"] == "Below your minimum fit score (50)."
    assert listed[low]["errorCode"] == "MIN_SCORE"  # the code stays in --json
    assert listed[waiting]["nextAction"] == "in_progress"
    assert listed[good]["availability"]["state"] == "unknown"  # never checked
    # A failure recovery tries again is in progress; one it cannot help needs the person
    for path, error in (
        ("/flaky", StageError(ENRICH_TIMEOUT, "slow", retryable=True)),
        ("/gone", StageError(ENRICH_HTTP_NOT_FOUND, "404", retryable=False)),
    ):
        failed = jobs.create_job(store, site.base_url + path).job_id
        claim = stage_states.claim_stage(store, failed, "enrich", "run-fail")
        stage_states.fail_stage(store, failed, "enrich", "run-fail", claim.attempt, error)
        assert _jobs_json()[failed]["nextAction"] == (
            "in_progress" if error.retryable else "needs_you"
        )  # fmt: skip
    page = (await api.get(f"/jobs/{failed}")).text  # the job's page says it in words too
    assert "The page does not exist (any more): the posting is gone." in page
    assert '<details class="codes"><summary>Details</summary><code>ENRICH_HTTP_NOT_FOUND' in page
    inbox = (await api.get("/v1/inbox")).json()
    needs = next(g for g in inbox["groups"] if g["action"] == "needs_you")["rows"][0]
    assert needs["buttonKind"] == "hide" and needs["button"] == "Not interested"
    table = run_cli("jobs").stdout
    assert "NEXT" in table and "Not a fit" in table and "MIN_SCORE" not in table

    page = (await api.get("/v1/jobs", params={"action": "not_a_fit"})).json()
    assert [j["jobId"] for j in page["items"]] == [low] and page["total"] == 1
    assert (await api.get("/v1/jobs", params={"action": "nonsense"})).status_code == 422
    inbox = (await api.get("/v1/inbox")).json()
    groups = {g["action"]: g for g in inbox["groups"]}
    assert list(groups) == ["needs_you", "review", "in_progress", "not_a_fit"]  # in order
    assert groups["not_a_fit"]["collapsed"] and not groups["review"]["collapsed"]
    assert groups["review"]["rows"][0]["button"] == "Review"


async def test_a_hidden_job_leaves_the_inbox_and_is_never_prepared_checked_or_applied(
    api, home, store, site, fast_settings
):
    job_id = jobs.create_job(store, site.add("/h", Route(body=b"<html></html>"))).job_id
    done = run_cli("hide", job_id[:8], "--reason", "too far away", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "jobId": job_id, "hidden": True, "changed": True, "resetStages": []
    }  # fmt: skip
    shown = json.loads(run_cli("show", job_id, "--json").stdout)
    assert shown["hidden"] and shown["hiddenReason"] == "too far away"
    assert shown["nextAction"] == "hidden"
    hidden_events = [e for e in events.job_events(store, job_id) if e["type"] == "JobHidden"]
    assert hidden_events and "too far away" not in json.dumps(hidden_events[0]["payload"])

    inbox = (await api.get("/v1/inbox")).json()
    assert inbox["hidden"] == 1 and not inbox["groups"]
    assert "hidden" in (await api.get("/v1/inbox", params={"hidden": "true"})).text

    claim = stage_states.claim_stage(store, job_id, "enrich", "run-hidden")
    assert claim.already == StageState.SKIPPED
    assert stage_states.stage_rows(store, job_id)[0]["error_code"] == JOB_HIDDEN
    assert job_id not in availability.due_jobs(store, datetime.now(UTC), 100)
    refused = run_cli("check", job_id)
    assert refused.returncode == 1 and "hidden" in refused.stderr

    back = (await api.post(f"/v1/jobs/{job_id}/unhide")).json()
    assert back["changed"] and back["resetStages"] == ["enrich"]
    assert stage_states.stage_rows(store, job_id)[0]["state"] == StageState.PENDING
    assert job_id in availability.due_jobs(store, datetime.now(UTC), 100)
    again = (await api.post(f"/v1/jobs/{job_id}/hide", json={"reason": None})).json()
    assert again["hidden"] and again["changed"]


async def test_delete_removes_the_job_and_its_files_and_a_hidden_posting_stays_hidden(
    api, home, store, site, fast_settings
):
    job_id = _prepare(home, store, site, "/d", "Senior Python Engineer", "Acme")
    row = jobs.job_row(store, job_id)
    page_file = store.artifacts.path_for(row["raw_artifact"])
    assert page_file.exists()
    refused = run_cli("delete", job_id)
    assert refused.returncode == 1 and "--yes" in refused.stderr
    done = run_cli("delete", job_id, "--yes", "--json")
    assert done.returncode == 0, done.stderr
    deleted = json.loads(done.stdout)
    assert deleted["rows"] > 5 and deleted["artifacts"] >= 2 and not deleted["staysHidden"]
    assert not page_file.exists()
    assert run_cli("show", job_id).returncode == 1
    log = events.job_events(store, job_id)
    assert [e["type"] for e in log] == ["JobDeleted"]  # the audit trail: no content
    assert site.base_url not in json.dumps(log[0]["payload"])
    # Found again: a new job (the same posting, so the same id), not hidden
    assert jobs.create_job(store, site.base_url + "/d").created

    hidden = jobs.create_job(store, site.base_url + "/gone").job_id
    await api.post(f"/v1/jobs/{hidden}/hide")
    r = await api.delete(f"/v1/jobs/{hidden}")
    assert r.status_code == 200 and r.json()["staysHidden"]
    jobs.create_job(store, site.base_url + "/gone")  # discovery finds it again
    assert json.loads(run_cli("show", hidden, "--json").stdout)["hidden"]
    assert (await api.delete("/v1/jobs/nosuchjob")).status_code == 404
    # The list folded as it went equals the list folded again from the log
    before = sorted(j["jobId"] for j in _jobs_json().values())
    events.rebuild_projections(store)
    assert sorted(j["jobId"] for j in _jobs_json().values()) == before


async def test_a_posting_on_two_boards_is_one_row_with_both_sources(
    api, home, store, site, fast_settings
):
    first = _prepare(home, store, site, "/board-a/1", "Senior Python Engineer", "Acme")
    second = _prepare(home, store, site, "/board-b/9", "Senior Python Engineer", "Acme")
    other = _prepare(home, store, site, "/board-b/10", "Pastry Chef", "Acme")
    with store.write() as tx:
        for job_id, kind, path in (
            (first, "greenhouse", "/board-a/1"),
            (second, "lever", "/board-b/9"),
        ):
            tx.conn.execute(
                schema.source_observations.insert().values(
                    job_id=job_id, source_kind=kind, source_name=kind, url=site.base_url + path,
                    first_seen_at=tx.now, last_seen_at=tx.now, tenant_id=tx.tenant,
                )
            )  # fmt: skip
    inbox = (await api.get("/v1/inbox")).json()
    rows = [r for g in inbox["groups"] for r in g["rows"]]
    assert len(rows) == 2 and other in {r["jobId"] for r in rows}
    merged = next(r for r in rows if r["jobId"] != other)  # the first of the two, in order
    assert {merged["jobId"], *merged["duplicates"]} == {first, second}
    urls = {s["sourceKind"]: s["url"] for s in merged["sources"]}
    assert urls == {
        "greenhouse": site.base_url + "/board-a/1",
        "lever": site.base_url + "/board-b/9",
    }  # each keeps its own URL
    page = (await api.get("/jobs")).text
    assert page.count('<tr data-job="') == 2 and "greenhouse" in page and "lever" in page


async def test_a_check_now_shows_a_closed_posting_and_a_429_defers_the_whole_host(
    api, home, store, site, fast_settings
):
    job_id = _prepare(home, store, site, "/c", "Senior Python Engineer", "Acme")
    site.add("/c", Route(status=404, body=b"gone"))
    done = run_cli("check", job_id, "--json")
    assert done.returncode == 0, done.stderr
    checked = json.loads(done.stdout)["availability"]
    assert checked["state"] == "closed" and checked["evidence"] == "ENRICH_HTTP_NOT_FOUND"
    assert checked["checkedAt"] and checked["nextCheckAt"]
    shown = json.loads(run_cli("show", job_id, "--json").stdout)
    assert set(shown["availability"]) >= {"state", "checkedAt", "nextCheckAt", "evidence"}
    assert "closed: The posting is no longer online" in run_cli("show", job_id).stdout
    assert shown["nextAction"] == "closed"
    page = (await api.get("/jobs")).text
    assert "The posting is no longer online (checked just now)." in page
    assert (await api.post(f"/v1/jobs/{job_id}/check")).json()["availability"]["state"] == "closed"

    busy = jobs.create_job(
        store, site.add("/busy", Route(status=429, headers={"Retry-After": "3600"}))
    )
    neighbour = jobs.create_job(store, site.base_url + "/next-door").job_id
    r = await api.post(f"/v1/jobs/{busy.job_id}/check")
    assert r.json()["availability"]["state"] == "unknown"
    later = jobs.job_row(store, neighbour)["availability_next_check_at"]
    assert later is not None and later.replace(tzinfo=UTC) > datetime.now(UTC) + timedelta(
        minutes=50
    )
    assert neighbour not in availability.due_jobs(store, datetime.now(UTC), 100)
    # the person's check now waits for the site too (it asked, with its 429)
    refused = run_cli("check", neighbour)
    assert refused.returncode == 1 and "asked us to wait" in refused.stderr


async def test_a_follow_up_comes_due_after_the_days_set(api, home, store, site, fast_settings):
    job_id = _prepare(home, store, site, "/f", "Senior Python Engineer", "Acme")
    eight_days_ago = datetime.now(UTC) - timedelta(days=8)
    with store.write(clock=lambda: eight_days_ago) as tx:  # applied then (the injected clock)
        app = applications.ensure_for_job(tx, job_id)
        tx.conn.execute(
            update(A)
            .where(A.c.id == app["id"], tenancy.scoped(A, tx.conn))
            .values(status="sent", applied_at=tx.now)
        )
    assert _jobs_json()[job_id]["nextAction"] == "follow_up"
    fast_settings.set_value("followup.after_days", 10)
    assert _jobs_json()[job_id]["nextAction"] == "applied"
    with store.read() as conn:
        assert conn.execute(select(A.c.status).where(tenancy.scoped(A, conn))).scalar() == "sent"


def test_jobs_the_person_works_on_are_checked_first(home, store, site, fast_settings):
    low = _prepare(home, store, site, "/p-low", "Pastry Chef", "Bakery", bar=100)
    good = _prepare(home, store, site, "/p-good", "Senior Python Engineer", "Acme")
    fresh = jobs.create_job(store, site.base_url + "/p-new").job_id  # being prepared
    due = availability.due_jobs(store, datetime.now(UTC), 10)
    assert set(due[:2]) == {good, fresh} and due[2] == low
