"""The heartbeat's census (store/census.py) on both stores: for each duty a beat runs, a
tenant with work for it is found, by the same rows the duty's own selection then picks;
a tenant with a past but nothing to do is not found at all."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain import errors
from jobctrl.domain import public_fetch as rules
from jobctrl.domain.availability import Availability
from jobctrl.domain.duties import Duty
from jobctrl.domain.executions import WorkflowType
from jobctrl.store import (
    applications,
    apply_attempts,
    availability,
    census,
    jobs,
    orphans,
    public_fetch,
    recovery,
    stage_lookups,
    stage_states,
    start_intents,
    tenants,
    workflow_runs,
)
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.support.clock import WallClock
from tests.support.tenants import TwoTenants

BOTH_STORES = True
NOW = datetime.now(UTC)
LATER = NOW + timedelta(hours=2)  # past every backoff and first check


def _job(store: Store, name: str) -> str:
    return jobs.create_job(store, f"https://jobs.example.com/{name}").job_id


def _checked_job(store: Store, name: str) -> str:
    """A saved job checked an hour ago: its next check is 23 h away."""
    job_id = _job(store, name)
    availability.record_check(store, job_id, Availability.ACTIVE, None, NOW - timedelta(hours=1))
    return job_id


def _fail(store: Store, stage: str, error: errors.StageError, *, at: datetime = NOW) -> str:
    job_id = _checked_job(store, f"{stage}-{error.code}")
    clock = WallClock(at)
    for earlier in ("enrich", "score", "tailor", "cover", "pdf"):
        if earlier == stage:
            break
        claim = stage_states.claim_stage(store, job_id, earlier, "run-prep", clock=clock)
        with store.write(clock=clock) as tx:
            stage_states.succeed_stage(tx, job_id, earlier, "run-prep", claim.attempt)
    claim = stage_states.claim_stage(store, job_id, stage, "run-prep", clock=clock)
    stage_states.fail_stage(store, job_id, stage, "run-prep", claim.attempt, error, clock=clock)
    return job_id


@pytest.fixture
def idle(two_tenants: TwoTenants) -> Store:
    """A third tenant with a past (a saved job, checked) and nothing to do."""
    tenants.add(two_tenants.local, "idle", None)
    store = two_tenants.local.for_tenant("idle")
    _checked_job(store, "idle-past")
    return store


def _found(store: Store, *, since: int | None = None, now: datetime = NOW) -> census.Census:
    return census.census(store, now, since=since)


# Each case: what makes the duty due for a tenant, and the duty's own selection (which
# must pick the same work: the census finds what the duty would act on).
Case = tuple[Duty, Callable[[Store], object], Callable[[Store, object], object]]


def _open_run(store: Store) -> None:
    workflow_runs.adopt(
        store,
        workflow_id="prep-acme-0123456789abcdef",
        run_id="run-1",
        workflow_type=WorkflowType.PREPARATION.value,
        job_id=None,
    )


def _stop(store: Store) -> None:
    orphans.request_stop(store, "stray-workflow", "run-9", "orphan", now=NOW)


def _orphan(store: Store) -> None:
    orphans.replace_orphans(store, [orphans.Observed("stray", "run-8", "X", None)], NOW)


def _running_stage(store: Store) -> str:
    job_id = _checked_job(store, "running")
    stage_states.claim_stage(store, job_id, "enrich", "run-prep")
    return job_id


def _running_rows(store: Store, job_id: object) -> list[dict]:
    return [r for r in stage_states.stage_rows(store, str(job_id)) if r["state"] == "running"]


def _live_send(store: Store) -> None:
    job_id = _checked_job(store, "sending")
    with store.write() as tx:
        app = applications.ensure_for_job(tx, job_id)
        apply_attempts.start_attempt(tx, app["id"], kind="email", owner="elsewhere/1/0")


def _intent(store: Store) -> None:
    job_id = _checked_job(store, "intended")
    with store.write(clock=WallClock(NOW - timedelta(minutes=1))) as tx:
        start_intents.intend(tx, "prep-acme-intended", job_id)


CASES: dict[str, Case] = {
    "an open run": (
        Duty.RUNS,
        _open_run,
        lambda s, _: workflow_runs.open_executions(s),
    ),
    "a stop request": (Duty.STOPS, _stop, lambda s, _: orphans.pending_stops(s)),
    "an orphan to clear": (Duty.ORPHANS, _orphan, lambda s, _: orphans.orphans(s)),
    "a stage row left running": (
        Duty.ABANDONED,
        _running_stage,
        _running_rows,
    ),
    "a posting due for a check": (
        Duty.AVAILABILITY,
        lambda s: _job(s, "never-checked"),
        lambda s, _: availability.due_jobs(s, NOW, 5),
    ),
    "a send whose process may have died": (
        Duty.SENDS,
        _live_send,
        lambda s, _: apply_attempts.live_attempts(s),
    ),
    "a preparation intended, not started": (
        Duty.INTENTS,
        _intent,
        lambda s, _: start_intents.unstarted(s, NOW),
    ),
    "a budget stop of yesterday": (
        Duty.BUDGET,
        lambda s: _fail(
            s,
            "score",
            errors.StageError(errors.BUDGET_EXCEEDED, "spent"),
            at=NOW - timedelta(days=1),
        ),
        lambda s, _: stage_lookups.failed_stages_with(s, errors.BUDGET_EXCEEDED),
    ),
    "a config stop": (
        Duty.CONFIG,
        lambda s: _fail(s, "score", errors.StageError(errors.CONFIG_INVALID, "broken")),
        lambda s, _: stage_lookups.failed_stages_with(s, errors.CONFIG_INVALID),
    ),
    "a refusal for a non-public address": (
        Duty.RECHECK,
        lambda s: _fail(
            s, "enrich", rules.UnsafeAddressError("jobs.example", rules.DNS_NON_PUBLIC)
        ),
        lambda s, _: public_fetch.due(s, LATER, stage_limit=3),
    ),
    "a retryable failure": (
        Duty.RECOVERY,
        lambda s: _fail(
            s, "score", errors.StageError(errors.PROVIDER_UNAVAILABLE, "5xx", retryable=True)
        ),
        lambda s, _: recovery.eligible(s, LATER, stage_limit=3),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_tenant_with_work_is_found_for_that_duty_and_an_idle_one_is_not(
    two_tenants: TwoTenants, idle: Store, case: str
) -> None:
    duty, make, selection = CASES[case]
    acme = two_tenants.acme
    assert "acme" not in _found(acme).duties  # a past only: nothing to do

    made = make(acme)

    assert selection(acme, made), "the duty itself has work"
    found = _found(two_tenants.local)
    assert duty in found.duties.get("acme", frozenset())
    assert "idle" not in found.duties
    assert "local" not in found.duties  # its own rows only: each tenant is apart


def test_a_budget_stop_of_today_waits_for_the_day_to_roll_over(two_tenants: TwoTenants) -> None:
    acme = two_tenants.acme
    _fail(acme, "score", errors.StageError(errors.BUDGET_EXCEEDED, "spent"))

    assert Duty.BUDGET not in _found(acme).duties.get("acme", frozenset())
    tomorrow = NOW + timedelta(days=1)
    assert Duty.BUDGET in _found(acme, now=tomorrow).duties["acme"]


def test_a_reserved_cohort_is_found_once_its_rows_are_reserved(two_tenants: TwoTenants) -> None:
    acme = two_tenants.acme
    error = errors.StageError(errors.PROVIDER_UNAVAILABLE, "5xx", retryable=True)
    _fail(acme, "score", error)
    cohort = recovery.reserve_cohort(acme, stage_limit=3, stages=["score"], clock=WallClock(LATER))
    assert cohort is not None
    assert recovery.open_cohorts(acme)

    assert Duty.RECOVERY in _found(acme).duties["acme"]


def test_an_exhausted_failure_is_not_work(two_tenants: TwoTenants, idle: Store) -> None:
    error = errors.StageError(errors.PROVIDER_UNAVAILABLE, "5xx", retryable=False)
    _fail(two_tenants.acme, "score", error)  # not retryable: recovery never picks it

    assert not recovery.eligible(two_tenants.acme, LATER, stage_limit=3)
    assert "acme" not in _found(two_tenants.local).duties


def test_settings_changes_a_schedule_and_auto_apply_are_read(two_tenants: TwoTenants) -> None:
    acme = Settings(two_tenants.acme)
    acme.set_values({"discovery.schedule_enabled": True, "auto_apply": True})
    Settings(two_tenants.local).set_value("auto_apply", False)

    first = _found(two_tenants.local)  # a worker's first beat: the stored schedules
    assert first.duties["acme"] == {Duty.SCHEDULE}
    assert first.auto_apply == {"acme"}  # on; local's stored off is not
    assert first.changed == frozenset()

    again = _found(two_tenants.local, since=first.seq)
    assert again.changed == frozenset() and "acme" not in again.duties

    acme.set_value("discovery.schedule_enabled", False)
    changed = _found(two_tenants.local, since=again.seq)
    assert changed.changed == {"acme"} and changed.seq > again.seq
    assert _found(two_tenants.local, since=changed.seq).changed == frozenset()
