"""A fit job's Tailor, Cover and PDF wait as pending rows once Score succeeds, and the job
list says so: its row is never ``prepared`` (or any finished status) while one of the
job's stage rows is pending or running, incrementally and after a rebuild from the log.

Score and Enrich run directly (no Temporal), each in its own run, as automatic recovery's
one-stage cohorts run them: nothing starts Tailor right after Score here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from jobctrl.domain.stages import JobStatus, StageState, job_status
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import events, jobs, schema, stage_control, stage_states, tenancy
from tests.support.http import Route, posting_html

BOTH_STORES = True  # the fold and its rebuild are store behaviour

JL = schema.job_list_projections
WAITING = {StageState.PENDING.value, StageState.RUNNING.value}


@pytest.fixture
def ctx(home, store) -> Iterator[StageContext]:
    context = StageContext(home=home, store=store)
    yield context
    context.close()


@pytest.fixture
def enriched(ctx, store, site, fast_settings) -> str:
    """A job whose Enrich succeeded in its own run; Score not run yet."""
    body = posting_html("Backend Engineer", "Acme", ["5+ years of Python", "PostgreSQL"])
    job = jobs.create_job(store, site.add("/jobs/fit", Route(body=body)))
    enrich(ctx, job.job_id, "prepare-auto-local-enrich-1")
    return job.job_id


def _list_row(store, job_id: str) -> dict[str, Any]:
    with store.read() as conn:
        row = conn.execute(
            select(JL).where(tenancy.scoped(JL, conn), JL.c.job_id == job_id)
        ).mappings()
        return dict(row.one())


def _states(store, job_id: str) -> dict[str, str]:
    return {r["stage"]: r["state"] for r in stage_states.stage_rows(store, job_id)}


def _assert_listed_truthfully(store, job_id: str) -> dict[str, Any]:
    """The invariant: never prepared while a stage row still waits or runs; and the
    listed status is the one the job's stage rows give."""
    listed = _list_row(store, job_id)
    rows = stage_states.stage_rows(store, job_id)
    if any(r["state"] in WAITING for r in rows):
        assert listed["status"] != JobStatus.PREPARED.value, (listed["status"], rows)
    status, current, code = job_status({r["stage"]: (r["state"], r["error_code"]) for r in rows})
    assert (listed["status"], listed["current_stage"], listed["error_code"]) == (
        status.value,
        current,
        code,
    )
    return listed


def _assert_rebuild_equals(store, job_id: str, incremental: dict[str, Any]) -> None:
    events.rebuild_projections(store)
    assert _list_row(store, job_id) == incremental


def test_a_fit_job_scored_in_its_own_run_is_listed_pending_at_tailor(
    ctx, store, enriched, fast_settings
) -> None:
    fast_settings.set_value("min_fit_score", 0)
    score(ctx, enriched, "prepare-auto-local-score-1")

    states = _states(store, enriched)
    assert [states[s] for s in ("enrich", "score")] == ["succeeded", "succeeded"]
    assert [states[s] for s in ("tailor", "cover", "pdf")] == ["pending"] * 3
    listed = _assert_listed_truthfully(store, enriched)
    assert (listed["status"], listed["current_stage"]) == ("pending", "tailor")
    assert {s: state for s, (state, _code) in listed["stages"].items()} == states
    _assert_rebuild_equals(store, enriched, listed)


def test_a_reset_and_a_second_score_keep_the_waiting_stages_listed_and_rebuild_equal(
    ctx, store, enriched, fast_settings
) -> None:
    fast_settings.set_value("min_fit_score", 0)
    score(ctx, enriched, "prepare-auto-local-score-1")
    assert stage_control.reset_job_stage(store, enriched, "score") == ["score"]
    listed = _assert_listed_truthfully(store, enriched)
    assert (listed["status"], listed["current_stage"]) == ("pending", "score")

    score(ctx, enriched, "prepare-auto-local-score-2")  # the later rows exist already
    listed = _assert_listed_truthfully(store, enriched)
    assert (listed["status"], listed["current_stage"]) == ("pending", "tailor")
    _assert_rebuild_equals(store, enriched, listed)


def test_below_the_threshold_or_without_materials_the_job_still_ends_as_before(
    ctx, store, enriched, fast_settings
) -> None:
    fast_settings.set_value("min_fit_score", 101)  # nothing scores above 100
    score(ctx, enriched, "prepare-auto-local-score-1")
    listed = _assert_listed_truthfully(store, enriched)
    assert (listed["status"], listed["current_stage"], listed["error_code"]) == (
        "skipped",
        "tailor",
        "MIN_SCORE",
    )
    _assert_rebuild_equals(store, enriched, listed)

    fast_settings.set_value("min_fit_score", 0)
    stage_control.reset_job_stage(store, enriched, "score")
    score(ctx, enriched, "prepare-auto-local-score-2", materials=False)
    listed = _assert_listed_truthfully(store, enriched)
    assert listed["status"] == "prepared"
    _assert_rebuild_equals(store, enriched, listed)
