"""A URL goes through Enrich and Score on real Temporal, SQLite and loopback HTTP."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from jobctrl.app.jobs import add_job
from jobctrl.app.projections import rebuild_projections
from jobctrl.app.queries import list_jobs, show_job
from jobctrl.domain.errors import JobctrlError
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.store import projections, schema, stage_states, tenancy
from jobctrl.store.events import events_after
from jobctrl.worker.recovery import resume_budget_stopped
from jobctrl.worker.run import build_worker
from tests.support.clock import WallClock
from tests.support.http import FixtureServer, Route, posting_html

PDF = "application/pdf"
GOOD = posting_html(
    "Senior Python Engineer",
    "Acme Robotics",
    ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker"],
)

# On PostgreSQL too (tests/conftest.py), the tests of what the workflow keeps in the store:
# artifacts and events, one job per posting (a plain add and racing adds), the projections'
# rebuild, a retry's next attempt time, the spend ledger stopping Score and its resume the
# next UTC day. Left to SQLite (on both stores they would add ~45 s, the store's part being
# the same): the seven kinds of bad input, robots.txt, low scores, no worker, no materials.
BOTH_STORES = {
    "test_add_enriches_and_scores",
    "test_same_posting_twice_is_one_job_and_one_execution",
    "test_racing_adds_give_one_job_one_execution_one_set_of_events",
    "test_rebuilt_projections_equal_incremental_ones",
    "test_retry_after_sets_the_next_attempt_without_blocking",
    "test_a_spent_budget_stops_score_without_retrying",
    "test_a_budget_stop_uses_no_attempt_and_resumes_after_the_day_rolls_over",
}


def _count(store, table, *where) -> int:
    with store.read() as conn:
        stmt = select(func.count()).select_from(table)
        return conn.execute(stmt.where(tenancy.scoped(table, conn), *where)).scalar_one()


def _mine(table, conn):
    """All of ``table`` this connection's tenant may read (a global table: all of it)."""
    stmt = select(table)
    return stmt.where(tenancy.scoped(table, conn)) if "tenant_id" in table.c else stmt


def _events(store, job_id: str, type_: str) -> int:
    e = schema.job_events
    return _count(store, e, e.c.job_id == job_id, e.c.type == type_)


async def test_add_enriches_and_scores(home, store, worker, site: FixtureServer):
    url = site.add("/jobs/python.html", Route(body=GOOD))
    view = await add_job(home, url, wait=True)
    assert view.title == "Senior Python Engineer"
    assert view.company == "Acme Robotics"
    assert view.location and "Berlin" in view.location
    assert [(s.stage, s.state) for s in view.stages][:2] == [
        ("enrich", "succeeded"),
        ("score", "succeeded"),
    ]
    assert 0 <= view.score <= 100
    report = view.score_report
    assert report["requirements"], "the report lists requirements"
    assert any(r["matched"] and r["evidence"] for r in report["requirements"])
    # The raw page and the extracted text are artifacts.
    page = store.artifacts.get(view.artifacts.page)
    assert page == GOOD
    assert b"PostgreSQL" in store.artifacts.get(view.artifacts.text)
    # Events carry references, never the page text.
    with store.read() as conn:
        e = schema.job_events
        payloads = conn.execute(select(e.c.payload).where(tenancy.scoped(e, conn))).scalars().all()
    assert all("Join Acme" not in json.dumps(p) for p in payloads)
    listed = list_jobs(home)
    assert listed[0].job_id == view.job_id and listed[0].score == view.score
    assert listed[0].status in ("prepared", "skipped")
    # One line on why, the same in the list, the job and its stored report (issue 29).
    assert view.fit_summary and view.fit_summary == report["fit_summary"]
    assert listed[0].fit_summary == view.fit_summary
    assert view.fit_summary.startswith(("meets ", "missing "))


async def test_same_posting_twice_is_one_job_and_one_execution(home, store, worker, site, client):
    url = site.add("/jobs/dup", Route(body=GOOD))
    first = await add_job(home, url, wait=True)
    variants = [
        url + "/",
        url + "?utm_source=newsletter&gclid=abc",
        url.upper().replace("HTTP", "http").replace("/JOBS/DUP", "/jobs/dup"),
    ]
    for variant in variants:
        again = await add_job(home, variant, wait=True)
        assert again.job_id == first.job_id
        assert again.run_id == first.run_id
        assert again.created is False
    assert _count(store, schema.jobs) == 1
    assert _events(store, first.job_id, "JobCreated") == 1
    assert _events(store, first.job_id, "WorkflowStarted") == 1
    assert _events(store, first.job_id, "JobScored") == 1
    executions = [w async for w in client.list_workflows(f"WorkflowId = '{first.workflow_id}'")]
    assert len(executions) == 1


async def test_racing_adds_give_one_job_one_execution_one_set_of_events(
    home, store, worker, site, client
):
    url = site.add("/jobs/race", Route(body=GOOD, delay=0.2))
    views = await asyncio.gather(*(add_job(home, url, wait=True) for _ in range(4)))
    assert len({v.job_id for v in views}) == 1
    assert len({v.run_id for v in views}) == 1
    job_id = views[0].job_id
    for type_ in (
        "JobCreated",
        "WorkflowStarted",
        "StageStarted",
        "JobEnriched",
        "JobScored",
        "WorkflowCompleted",
    ):
        ran = sum(r["attempts"] for r in stage_states.stage_rows(store, job_id))
        expected = ran if type_ == "StageStarted" else 1
        assert _events(store, job_id, type_) == expected, type_
    executions = [w async for w in client.list_workflows(f"WorkflowId = '{views[0].workflow_id}'")]
    assert len(executions) == 1


def _redirect(site, path: str, target: str) -> str:
    return site.add(path, Route(status=302, body=b"", headers={"Location": target}))


@pytest.mark.parametrize(
    ("make_url", "code", "retryable"),
    [
        # `add` refuses such URLs up front (test_add_refusals); a page can still redirect
        # to one, and a malformed IDNA host is a stage error, never an internal one retried
        (lambda s: _redirect(s, "/to-bad-host", "http://xn--.test/"), "ENRICH_INVALID_URL", False),
        (
            lambda s: _redirect(s, "/to-ftp", "ftp://127.0.0.1/job.html"),
            "ENRICH_UNSUPPORTED_SCHEME",
            False,
        ),
        (
            lambda s: s.add("/job.pdf", Route(body=b"%PDF-1.4", headers={"Content-Type": PDF})),
            "ENRICH_UNSUPPORTED_CONTENT",
            False,
        ),
        (lambda s: "http://127.0.0.1:9/unreachable", "ENRICH_UNREACHABLE", True),
        (lambda s: s.base_url + "/missing", "ENRICH_HTTP_NOT_FOUND", False),
        (lambda s: s.add("/boom", Route(500, b"oops")), "ENRICH_HTTP_SERVER_ERROR", True),
        (lambda s: "http://10.0.0.1/jobs/1", "DETAIL_UNSAFE_URL", False),
    ],
    ids=["idna-redirect", "scheme-redirect", "not-html", "unreachable", "404", "500", "unsafe"],
)
async def test_bad_input_ends_in_a_stage_error_and_touches_no_other_job(
    home, store, worker, site, make_url, code, retryable
):
    good = await add_job(home, site.add("/jobs/ok", Route(body=GOOD)), wait=True)
    before = show_job(home, good.job_id)
    view = await add_job(home, make_url(site), wait=True)
    enrich = view.stages[0]
    assert enrich.stage == "enrich"
    assert enrich.state == "failed"
    assert enrich.error_code == code
    assert enrich.retryable is retryable
    assert enrich.error_message and "Traceback" not in enrich.error_message
    assert view.stages[1].state == "pending"
    assert view.status == "failed"
    # Retryable errors used their attempts; non-retryable ones stopped at once.
    assert enrich.attempts == (2 if retryable else 1)
    assert enrich.next_attempt_at is None, "no attempt is left to schedule"
    after = show_job(home, good.job_id)
    assert after.stages == before.stages and after.score == before.score
    runs = schema.workflow_run_projections
    with store.read() as conn:
        status = conn.execute(
            select(runs.c.status, runs.c.error_code).where(
                tenancy.scoped(runs, conn), runs.c.job_id == view.job_id
            )
        ).one()
    assert tuple(status) == ("failed", code)


async def test_robots_disallow_is_a_stage_error(home, worker, site):
    site.add(
        "/robots.txt",
        Route(body=b"User-agent: *\nDisallow: /private/\n", headers={"Content-Type": "text/plain"}),
    )
    view = await add_job(home, site.add("/private/job", Route(body=GOOD)), wait=True)
    assert view.stages[0].error_code == "ENRICH_ROBOTS_DISALLOWED"
    assert site.hits.get("/private/job") is None


async def test_low_scores_skip_later_stages(home, worker, site, fast_settings):
    fast_settings.set_value("min_fit_score", 60)
    poor = posting_html("Embedded Engineer", "Chips", ["Rust", "C++", "FPGA design", "Verilog"])
    view = await add_job(home, site.add("/jobs/low", Route(body=poor)), wait=True)
    assert view.score < 60
    later = {s.stage: s for s in view.stages[2:]}
    assert set(later) == {"tailor", "cover", "pdf"}
    assert all(s.state == "skipped" and s.error_code == "MIN_SCORE" for s in later.values())
    assert view.status == "skipped"


async def test_rebuilt_projections_equal_incremental_ones(home, store, worker, site):
    for i in range(3):
        await add_job(home, site.add(f"/jobs/p{i}", Route(body=GOOD)), wait=True)
    await add_job(home, site.base_url + "/gone", wait=True)

    def snapshot() -> dict:
        with store.read() as conn:
            return {
                t.name: sorted(tuple(r) for r in conn.execute(_mine(t, conn)).all()).__repr__()
                for t in projections.PROJECTION_TABLES
            }

    incremental = snapshot()
    assert _count(store, schema.job_list_projections) == 4
    rebuild_projections(home)
    assert snapshot() == incremental
    with store.write() as tx:  # folding again applies nothing: exactly once
        assert projections.fold_pending(tx.conn) == 0
    assert snapshot() == incremental


async def test_retry_after_sets_the_next_attempt_without_blocking(home, store, worker, site):
    site.add(
        "/busy", Route(503, b"busy", headers={"Content-Type": "text/html", "Retry-After": "30"})
    )
    view = await add_job(home, site.base_url + "/busy")
    job_id = view.job_id
    for _ in range(200):  # the failure, then (its own write) when Temporal tries again
        enrich = stage_states.stage_rows(store, job_id)[0]
        if enrich["state"] == "failed" and enrich["next_attempt_at"] is not None:
            break
        await asyncio.sleep(0.05)
    assert enrich["error_code"] == "ENRICH_HTTP_SERVER_ERROR" and enrich["retryable"]
    wait = enrich["next_attempt_at"].replace(tzinfo=UTC) - datetime.now(UTC)
    assert timedelta(seconds=25) < wait <= timedelta(seconds=30), "Retry-After is the next delay"
    assert site.hits["/busy"] == 1


async def test_wait_without_a_worker_says_so(home, temporal_address, task_queue, site):
    with pytest.raises(JobctrlError) as err:
        await add_job(home, site.add("/jobs/nw", Route(body=GOOD)), wait=True)
    assert err.value.code == "no_worker" and "jobctrl up" in err.value.message


async def test_a_spent_budget_stops_score_without_retrying(
    home, store, worker, site, fast_settings
):
    from jobctrl.llm.spend import SpendAuthority, Usage

    fast_settings.set_value("retry.max_attempts", 3)
    fast_settings.set_value("daily_budget_usd", 0.01)
    SpendAuthority(store, fast_settings).record(
        observation_id="earlier-call",
        lane="tailor",
        provider="fake",
        model="gpt-4o",
        usage=Usage(100_000, 10_000),
    )
    view = await add_job(home, site.add("/jobs/budget", Route(body=GOOD)), wait=True)
    score = {s.stage: s for s in view.stages}["score"]
    assert score.state == "failed" and score.error_code == "budget_exceeded"
    assert score.retryable is False and score.attempts == 0, "no attempt used up"
    assert view.stages[0].state == "succeeded", "Enrich spends nothing and ran"


async def test_a_budget_stop_uses_no_attempt_and_resumes_after_the_day_rolls_over(
    home, store, site, fast_settings, client, task_queue
):
    yesterday = WallClock(datetime.now(UTC) - timedelta(days=1))
    fast_settings.set_value("daily_budget_usd", 0.01)
    fast_settings.set_value("preparation.materials", False)
    SpendAuthority(store, fast_settings, clock=yesterday).record(
        observation_id="earlier",
        lane="tailor",
        provider="fake",
        model="gpt-4o",
        usage=Usage(100_000, 10_000),
    )
    w, ctx = build_worker(client, store, home, task_queue=task_queue, clock=yesterday)
    async with w:
        view = await add_job(home, site.add("/jobs/later", Route(body=GOOD)), wait=True)
        score = {s.stage: s for s in view.stages}["score"]
        assert score.error_code == "budget_exceeded" and score.attempts == 0
        [failed] = [
            e["payload"]
            for e in events_after(store, 0)
            if e["type"] == "StageFailed" and e["job_id"] == view.job_id
        ]
        assert failed["attemptsUsed"] == 0, "the event log agrees with the stage row"
        assert await resume_budget_stopped(client, ctx) == 0, "the same UTC day stays stopped"

        yesterday.advance(timedelta(days=1))  # the UTC day rolls over
        assert await resume_budget_stopped(client, ctx) == 1
        assert await resume_budget_stopped(client, ctx) == 0, "one recovery per job and day"
        for _ in range(100):
            score = {r["stage"]: r for r in stage_states.stage_rows(store, view.job_id)}["score"]
            if score["state"] == "succeeded":
                break
            await asyncio.sleep(0.1)
    ctx.close()
    assert score["state"] == "succeeded" and score["attempts"] == 1


async def test_without_materials_the_later_stages_are_skipped_and_the_job_is_prepared(
    home, store, worker, site, fast_settings
):
    fast_settings.set_value("preparation.materials", False)
    view = await add_job(home, site.add("/jobs/nomat", Route(body=GOOD)), wait=True)
    later = {s.stage: s for s in view.stages[2:]}
    assert set(later) == {"tailor", "cover", "pdf"}
    assert all(s.state == "skipped" and s.error_code == "MATERIALS_OFF" for s in later.values())
    assert view.status == "prepared", "not pending forever, not skipped for a low score"
    [listed] = list_jobs(home)
    assert listed.status == "prepared"
