"""What automatic recovery may run, in the store (no Temporal): the share of
``pipeline_internal_concurrency`` each open cohort holds, and the Apply decline veto
(a person abandoned the job's application: no automatic Tailor/Cover) in selection, in
the locked claim of a recovery run, and before a reserved cohort is started again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from jobctrl.domain import errors
from jobctrl.domain import recovery as rules
from jobctrl.domain.applications import Resolution
from jobctrl.store import (
    applications,
    events,
    jobs,
    operations,
    recovery,
    recovery_admission,
    schema,
    stage_states,
    tenancy,
)
from tests.support.clock import WallClock

LATER = timedelta(hours=2)  # past every backoff


@pytest.fixture
def later() -> WallClock:
    return WallClock(datetime.now(UTC) + LATER)


def _job(store, n) -> str:
    return jobs.create_job(store, f"https://jobs.example/{n}").job_id


def _succeed(store, job_id, stage, run="run-prep") -> None:
    claim = stage_states.claim_stage(store, job_id, stage, run)
    with store.write() as tx:
        stage_states.succeed_stage(tx, job_id, stage, run, claim.attempt)


def _fail(store, job_id, stage, code=errors.PROVIDER_UNAVAILABLE, run="run-prep") -> None:
    claim = stage_states.claim_stage(store, job_id, stage, run)
    error = errors.StageError(code, "failed in a test", retryable=True)
    stage_states.fail_stage(store, job_id, stage, run, claim.attempt, error)


def _tailor_failed(store, n) -> str:
    """A job scored, its Tailor failed for a passing reason, with a draft application."""
    job_id = _job(store, n)
    _succeed(store, job_id, "enrich")
    _succeed(store, job_id, "score")
    with store.write() as tx:
        stage_states.ensure_stages(tx, job_id, ["tailor", "cover", "pdf"])
    _fail(store, job_id, "tailor")
    with store.write() as tx:
        applications.ensure_for_job(tx, job_id, company="Co", role="Engineer")
    return job_id


def _decline(store, job_id) -> None:
    """The person abandons the job's application (`jobctrl apply resolve JOB abandoned`)."""
    application = applications.get(store, job_id)
    assert application is not None
    with store.write() as tx:
        applications.resolve(tx, application["id"], Resolution.ABANDONED)


def _row(store, job_id, stage) -> dict:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage)


def _events(store, type_, job_id) -> list[dict]:
    return [e["payload"] for e in events.job_events(store, job_id) if e["type"] == type_]


def _reserve(store, clock, **kw):
    stages = ("enrich", "score", "tailor", "cover", "pdf")
    return recovery.reserve_cohort(store, stage_limit=3, stages=stages, clock=clock, **kw)


# -- pipeline_internal_concurrency ----------------------------------------------------------


def test_a_cohort_holds_the_smaller_of_its_workers_and_its_unfinished_members(store, later) -> None:
    ids = [_job(store, n) for n in range(5)]
    for job_id in ids:
        _fail(store, job_id, "enrich", errors.ENRICH_TIMEOUT)
    cohort = _reserve(store, later, workers=3, among=ids[:4])
    assert cohort is not None and cohort.workers == 3 and len(cohort.job_ids) == 4
    assert recovery.cohort(store, cohort.workflow_id).workers == 3  # saved with it
    assert recovery_admission.in_use(store) == 3  # 4 unfinished members, 3 workers

    assert recovery.bind_run(store, cohort.workflow_id, "run-a")
    for job_id in cohort.job_ids[:2]:  # two members finished
        _succeed(store, job_id, "enrich", run="run-a")
    claimed = cohort.job_ids[2]
    stage_states.claim_stage(store, claimed, "enrich", "run-a")  # one running
    assert recovery_admission.in_use(store) == 2  # one running, one still reserved

    small = _reserve(store, later, workers=16, among=[ids[4]])  # at most its size
    assert small is not None and small.job_ids == (ids[4],) and small.workers == 1
    assert recovery_admission.in_use(store) == 3

    recovery.close_cohort(store, cohort.workflow_id)
    assert recovery_admission.in_use(store) == 1  # a closed cohort holds nothing


def test_the_reservation_reads_what_is_left_again_under_its_lock(store, later) -> None:
    ids = [_job(store, n) for n in range(4)]
    for job_id in ids:
        _fail(store, job_id, "enrich", errors.ENRICH_TIMEOUT)
    first = _reserve(store, later, concurrency=2, among=ids[:3])
    assert first is not None and first.workers == 2

    # Another heartbeat that read the store before this reservation still takes nothing.
    assert _reserve(store, later, concurrency=2, among=ids[3:]) is None
    assert _row(store, ids[3], "enrich")["reserved_by"] is None
    second = _reserve(store, later, concurrency=3, among=ids[3:])
    assert second is not None and second.workers == 1


def test_a_cohort_saved_before_its_worker_count_holds_two(store, later) -> None:
    ids = [_job(store, n) for n in range(3)]
    for job_id in ids:
        _fail(store, job_id, "enrich", errors.ENRICH_TIMEOUT)
    cohort = _reserve(store, later)  # no worker count: as saved before migration 0020
    assert cohort is not None and cohort.workers is None
    assert recovery_admission.in_use(store) == 2


# -- the Apply decline veto -----------------------------------------------------------------


def test_a_declined_jobs_tailor_and_cover_are_never_selected(store, later) -> None:
    declined = _tailor_failed(store, "declined")
    kept = _tailor_failed(store, "kept")
    _decline(store, declined)
    demand = recovery.retry_demand(store, later())
    assert demand == {"due": 1, "waiting": 0}, "the declined Tailor is not retry demand"

    cohort = _reserve(store, later)

    assert cohort is not None and cohort.stage == "tailor" and cohort.job_ids == (kept,)
    assert _reserve(store, later) is None
    assert _row(store, declined, "tailor")["reserved_by"] is None


def test_a_declined_jobs_enrich_and_score_are_unchanged(store, later) -> None:
    job_id = _job(store, "score")
    _succeed(store, job_id, "enrich")
    _fail(store, job_id, "score")
    with store.write() as tx:
        applications.ensure_for_job(tx, job_id)
    _decline(store, job_id)

    cohort = _reserve(store, later)

    assert cohort is not None and cohort.stage == "score" and cohort.job_ids == (job_id,)


def test_a_recovery_runs_claim_of_a_declined_member_ends_it_skipped_without_a_code(
    store, later
) -> None:
    declined = _tailor_failed(store, "declined")
    kept = _tailor_failed(store, "kept")
    before = _row(store, declined, "tailor")
    cohort = _reserve(store, later)
    assert cohort is not None and set(cohort.job_ids) == {declined, kept}
    assert recovery.bind_run(store, cohort.workflow_id, "run-r")
    _decline(store, declined)  # after its reservation: the claim applies the veto

    claim = stage_states.claim_stage(store, declined, "tailor", "run-r")

    assert claim.already == "skipped" and claim.attempt == before["attempts"]
    row = _row(store, declined, "tailor")
    assert row["state"] == "skipped" and row["error_code"] is None
    assert row["retryable"] is False and row["reserved_by"] is None
    assert row["attempts"] == before["attempts"], "no attempt used"
    assert row["auto_attempts"] == before["auto_attempts"]
    assert _events(store, "StageDeclined", declined) == [
        {"jobId": declined, "stage": "tailor", "workflowId": cohort.workflow_id}
    ]
    assert _events(store, "StageSkipped", declined) == [], "not a MIN_SCORE-like skip"
    assert applications.get(store, declined)["status"] == "abandoned"  # intact
    # The peer is claimed as usual; a preparation's (foreground) claim is not vetoed.
    assert stage_states.claim_stage(store, kept, "tailor", "run-r").already is None
    assert _row(store, kept, "tailor")["state"] == "running"
    foreground = _tailor_failed(store, "foreground")
    _decline(store, foreground)
    assert stage_states.claim_stage(store, foreground, "tailor", "run-person").already is None
    jl = schema.job_list_projections
    with store.read() as conn:
        listed = conn.execute(
            select(jl.c.status, jl.c.current_stage, jl.c.error_code, jl.c.stages).where(
                tenancy.scoped(jl, conn), jl.c.job_id == declined
            )
        ).one()
    assert list(listed.stages["tailor"]) == ["skipped", None]  # folded: skipped, no code
    assert (listed.status, listed.current_stage, listed.error_code) == ("skipped", "tailor", None)
    events.rebuild_projections(store)  # folded again from the log: the same row
    with store.read() as conn:
        rebuilt = conn.execute(
            select(jl.c.status, jl.c.current_stage, jl.c.error_code, jl.c.stages).where(
                tenancy.scoped(jl, conn), jl.c.job_id == declined
            )
        ).one()
    assert rebuilt == listed


def test_declined_unstarted_members_are_released_before_their_cohort_starts_again(
    store, later
) -> None:
    declined = _tailor_failed(store, "declined")
    kept = _tailor_failed(store, "kept")
    before = _row(store, declined, "tailor")
    cohort = _reserve(store, later)
    assert cohort is not None and set(cohort.job_ids) == {declined, kept}
    _decline(store, declined)

    released, held = recovery_admission.release_declined(store, cohort.workflow_id)

    assert released == [declined] and held == 1
    after = _row(store, declined, "tailor")
    assert after["reserved_by"] is None
    for key in ("state", "attempts", "auto_attempts", "error_code", "retryable"):
        assert after[key] == before[key], key  # as it was: no attempt used
    assert _events(store, "StageReservationReleased", declined) == [
        {
            "jobId": declined,
            "stage": "tailor",
            "workflowId": cohort.workflow_id,
            "reason": "apply_declined",
        }
    ]
    assert _row(store, kept, "tailor")["reserved_by"] == cohort.workflow_id
    # The survivor keeps the frozen cohort and its id.
    assert recovery.cohort(store, cohort.workflow_id).job_ids == cohort.job_ids
    assert recovery_admission.in_use(store) == 1


def test_an_all_declined_cohort_holds_nothing(store, later) -> None:
    declined = _tailor_failed(store, "declined")
    cohort = _reserve(store, later, workers=1)
    assert cohort is not None
    _decline(store, declined)

    released, held = recovery_admission.release_declined(store, cohort.workflow_id)

    assert released == [declined] and held == 0
    assert recovery_admission.in_use(store) == 0


def test_the_operations_snapshot_does_not_count_a_declined_tailor_as_remaining(store) -> None:
    declined = _tailor_failed(store, "declined")
    _tailor_failed(store, "kept")
    _decline(store, declined)

    counts = operations.scope_counts(
        store,
        None,
        non_retryable=frozenset(rules.NON_RETRYABLE_CODES),
        max_auto_attempts=3,
    )

    outside = counts.scopes["global_outside_execution"]
    assert outside["remaining"]["tailor"] == 1, "only the kept job's Tailor will run again"
    assert outside["failed"] == 1  # the declined one: failed for good, for automation
    assert counts.demand.get("tailor") == 1
