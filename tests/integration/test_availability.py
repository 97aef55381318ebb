"""Availability checks against a loopback site and a real SQLite store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import insert

from jobctrl.domain.errors import POSTING_UNAVAILABLE
from jobctrl.domain.stages import StageState
from jobctrl.home import Home
from jobctrl.stages.availability import check_job, sweep
from jobctrl.stages.context import StageContext
from jobctrl.store import events, job_list, jobs, schema, stage_states
from jobctrl.store.availability import posting_closed as blocks_preparation
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.support.http import FixtureServer, Route, posting_html

T0 = datetime.now(UTC).replace(microsecond=0)
PAGE_SECRET = "ZEBRA-PAGE-TEXT-7731"


@pytest.fixture
def ctx(home: Home, store: Store, fast_settings: Settings) -> Iterator[StageContext]:
    context = StageContext(home=home, store=store)
    yield context
    context.close()


def _posting(valid_through: str | None = None) -> bytes:
    page = posting_html("Data Engineer", "Fernbank", [f"Python {PAGE_SECRET}"])
    if valid_through is None:
        return page
    return page.replace(
        b'"datePosted"', f'"validThrough": "{valid_through}", "datePosted"'.encode()
    )


def _job(store: Store, site: FixtureServer, path: str, route: Route) -> str:
    return jobs.create_job(store, site.add(path, route)).job_id


def _row(store: Store, job_id: str) -> dict[str, Any]:
    row = jobs.job_row(store, job_id)
    for key in ("availability_checked_at", "availability_next_check_at"):
        if row[key] is not None:
            row[key] = row[key].replace(tzinfo=UTC)
    return row


def _events(store: Store, job_id: str) -> list[dict[str, Any]]:
    return [
        e
        for e in events.events_after(store, 0)
        if e["type"] == "JobAvailabilityChecked" and e["job_id"] == job_id
    ]


def _listed(store: Store, job_id: str) -> dict[str, Any]:
    """The job's row in the Jobs list (folded from the events)."""
    rows, _ = job_list.find(store)
    return next(r for r in rows if r["job_id"] == job_id)


def test_a_page_that_answers_is_active_and_rechecked_after_a_day(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    job_id = _job(store, site, "/jobs/open", Route(body=_posting()))

    assert check_job(ctx, job_id, T0) == "active"

    row = _row(store, job_id)
    assert row["availability"] == "active"
    assert row["availability_checked_at"] == T0
    assert row["availability_next_check_at"] == T0 + timedelta(hours=24)
    assert row["availability_failures"] == 0
    assert row["availability_code"] is None
    [event] = _events(store, job_id)
    assert event["idempotency_key"] == f"availability:{job_id}:{T0.isoformat()}"
    assert event["payload"]["availability"] == "active"
    assert event["payload"]["previous"] is None
    assert not blocks_preparation(store, job_id)


def test_a_missing_page_is_unavailable_and_blocks_enrich_and_score(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    job_id = _job(store, site, "/jobs/gone", Route(status=404, body=b"gone"))

    assert check_job(ctx, job_id, T0) == "unavailable"

    row = _row(store, job_id)
    assert row["availability_next_check_at"] == T0 + timedelta(days=7)
    assert row["availability_code"] == "ENRICH_HTTP_NOT_FOUND"
    assert blocks_preparation(store, job_id)
    for stage in ("enrich", "score"):
        claim = stage_states.claim_stage(store, job_id, stage, "run-1")
        assert claim.already == StageState.SKIPPED
        assert claim.attempt == 0
    stages = {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}
    assert stages["enrich"]["state"] == "skipped"
    assert stages["enrich"]["error_code"] == POSTING_UNAVAILABLE
    assert stages["score"]["error_code"] == POSTING_UNAVAILABLE
    listed = _listed(store, job_id)
    assert (listed["status"], listed["error_code"]) == ("skipped", POSTING_UNAVAILABLE)


def test_server_errors_are_unknown_and_back_off(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    job_id = _job(store, site, "/jobs/flaky", Route(status=500, body=b"oops"))

    assert check_job(ctx, job_id, T0) == "unknown"
    assert _row(store, job_id)["availability_next_check_at"] == T0 + timedelta(minutes=5)
    later = T0 + timedelta(minutes=5)
    assert check_job(ctx, job_id, later) == "unknown"

    row = _row(store, job_id)
    assert row["availability_failures"] == 2
    assert row["availability_code"] == "ENRICH_HTTP_SERVER_ERROR"
    assert row["availability_next_check_at"] == later + timedelta(minutes=10)
    assert [e["payload"]["failures"] for e in _events(store, job_id)] == [1, 2]
    assert not blocks_preparation(store, job_id)  # unknown evidence permits preparation
    assert stage_states.claim_stage(store, job_id, "enrich", "run-1").already is None


def test_a_page_past_its_valid_through_is_unavailable(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    expired = _job(store, site, "/jobs/expired", Route(body=_posting("2020-01-31")))
    current = _job(store, site, "/jobs/current", Route(body=_posting("2999-12-31T00:00:00Z")))

    assert check_job(ctx, expired, T0) == "unavailable"
    assert _row(store, expired)["availability_code"] == "POSTING_EXPIRED"
    assert check_job(ctx, current, T0) == "active"


def test_a_reopened_posting_becomes_active_again(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    job_id = _job(store, site, "/jobs/reopen", Route(status=404))
    assert check_job(ctx, job_id, T0) == "unavailable"

    site.add("/jobs/reopen", Route(body=_posting()))
    later = T0 + timedelta(days=7)
    assert check_job(ctx, job_id, later) == "active"

    row = _row(store, job_id)
    assert row["availability_next_check_at"] == later + timedelta(hours=24)
    assert row["availability_code"] is None
    assert _events(store, job_id)[-1]["payload"]["previous"] == "unavailable"
    assert not blocks_preparation(store, job_id)


def test_a_stale_or_repeated_check_does_not_overwrite_newer_evidence(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    job_id = _job(store, site, "/jobs/race", Route(body=_posting()))
    assert check_job(ctx, job_id, T0) == "active"

    site.add("/jobs/race", Route(status=404))
    assert check_job(ctx, job_id, T0) == "active"  # same instant: already recorded
    assert check_job(ctx, job_id, T0 - timedelta(minutes=1)) == "active"  # older: dropped

    assert _row(store, job_id)["availability"] == "active"
    assert len(_events(store, job_id)) == 1


def test_events_and_projection_carry_no_page_text(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    ok = _job(store, site, "/jobs/a", Route(body=_posting()))
    broken = _job(store, site, "/jobs/b", Route(status=503, body=PAGE_SECRET.encode()))
    check_job(ctx, ok, T0)
    check_job(ctx, broken, T0)

    for job_id in (ok, broken):
        [event] = _events(store, job_id)
        assert set(event["payload"]) == {
            "jobId",
            "availability",
            "previous",
            "code",
            "failures",
            "checkedAt",
            "nextCheckAt",
        }
        assert PAGE_SECRET not in json.dumps(event["payload"])
        assert PAGE_SECRET not in json.dumps(_listed(store, job_id), default=str)


def test_a_check_leaves_accepted_content_untouched(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    job_id = _job(store, site, "/jobs/scored", Route(status=404))
    with store.write() as tx:
        tx.conn.execute(
            insert(schema.job_scores).values(
                tenant_id=tx.tenant,
                job_id=job_id,
                score=77,
                verdict="good fit",
                provider="offline",
                model="offline-extractive-v1",
                report={"requirements": []},
                report_artifact="a" * 64,
                owner_run_id="run-0",
                created_at=T0,
            )
        )
    score_before = jobs.score_row(store, job_id)
    stages_before = stage_states.stage_rows(store, job_id)
    job_before = {k: v for k, v in jobs.job_row(store, job_id).items() if "availability" not in k}

    assert check_job(ctx, job_id, T0) == "unavailable"

    assert jobs.score_row(store, job_id) == score_before
    assert stage_states.stage_rows(store, job_id) == stages_before
    job_after = {k: v for k, v in jobs.job_row(store, job_id).items() if "availability" not in k}
    assert job_after == job_before


def test_sweep_checks_never_checked_jobs_first_and_respects_the_limit(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    checked = _job(store, site, "/jobs/0", Route(body=_posting()))
    assert check_job(ctx, checked, T0) == "active"
    fresh = sorted(_job(store, site, f"/jobs/{n}", Route(body=_posting())) for n in range(1, 4))
    later = T0 + timedelta(hours=25)  # the checked job is due again too

    counts = sweep(ctx, now=later, limit=2)

    assert counts == {"active": 2, "unavailable": 0, "unknown": 0, "failed": 0}
    assert [_row(store, j)["availability_checked_at"] for j in fresh] == [later, later, None]
    assert _row(store, checked)["availability_checked_at"] == T0

    counts = sweep(ctx, now=later, limit=10)
    assert counts["active"] == 2
    assert _row(store, checked)["availability_checked_at"] == later
    assert sweep(ctx, now=later, limit=10)["active"] == 0  # nothing due any more


def test_sweep_stops_at_its_budget_and_when_disabled(
    ctx: StageContext, store: Store, settings: Settings, site: FixtureServer
) -> None:
    job_id = _job(store, site, "/jobs/budget", Route(body=_posting()))

    assert sum(sweep(ctx, now=T0, budget_seconds=0).values()) == 0
    settings.set_value("availability.enabled", False)
    assert sum(sweep(ctx, now=T0).values()) == 0
    assert _row(store, job_id)["availability"] is None


def test_sweep_counts_every_outcome_and_never_raises(
    ctx: StageContext, store: Store, site: FixtureServer
) -> None:
    _job(store, site, "/jobs/ok", Route(body=_posting()))
    _job(store, site, "/jobs/404", Route(status=404))
    _job(store, site, "/jobs/500", Route(status=500))
    _job(store, site, "/jobs/json", Route(body=b"{}", headers={"Content-Type": "application/json"}))
    jobs.create_job(store, "http://127.0.0.1:1/jobs/closed-port")

    counts = sweep(ctx, now=T0)

    assert counts == {"active": 1, "unavailable": 1, "unknown": 3, "failed": 0}
