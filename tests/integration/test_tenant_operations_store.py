"""The operations store keeps to its tenant (issue 14, WP3a): what one tenant writes —
stop-loss windows, recovery cohorts, orphans and stop requests, availability checks,
public-fetch evidence — another can neither see nor change; the operations snapshot, the
retry demand and the runtime items count the reader's own. On both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from jobctrl.app.operations import operations_snapshot
from jobctrl.domain import errors
from jobctrl.domain import public_fetch as pf_rules
from jobctrl.domain import runtime as runtime_rules
from jobctrl.domain.applications import Resolution
from jobctrl.domain.availability import Availability
from jobctrl.domain.discovery import Cohort, ExecutionRef
from jobctrl.domain.errors import NotFoundError
from jobctrl.domain.runtime import home_identity
from jobctrl.domain.tenants import LOCAL
from jobctrl.store import (
    applications,
    availability,
    discovery,
    jobs,
    operations,
    orphans,
    public_fetch,
    recovery,
    recovery_admission,
    runtime,
    stage_states,
    stop_loss,
    tenancy,
)
from jobctrl.store.operations_tables import public_fetch_rechecks
from jobctrl.store.operations_tables import stop_loss as SL
from jobctrl.store.store import Store
from tests.support.clock import WallClock
from tests.support.tenants import ACME, TwoTenants

pytestmark = pytest.mark.parametrize(
    "database_url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)

STAGES = ("enrich", "score", "tailor", "cover", "pdf")


def _job(store: Store, n: int | str) -> str:
    return jobs.create_job(store, f"https://jobs.example/{n}").job_id


def _fail(store: Store, job_id: str, stage: str, code: str = errors.ENRICH_TIMEOUT) -> None:
    claim = stage_states.claim_stage(store, job_id, stage, "run-prep")
    error = errors.StageError(code, "failed in a test", retryable=True)
    stage_states.fail_stage(store, job_id, stage, "run-prep", claim.attempt, error)


def _reserve(store: Store, clock: WallClock, **kw: Any) -> recovery.Cohort | None:
    return recovery.reserve_cohort(store, stage_limit=3, stages=STAGES, clock=clock, **kw)


def _all_rows(store: Store, table: Any) -> list[dict[str, Any]]:
    with store.read() as conn:
        return [dict(r) for r in conn.execute(tenancy.all_tenants(select(table))).mappings()]


@pytest.fixture
def later() -> WallClock:
    return WallClock(datetime.now(UTC) + timedelta(hours=2))  # past every backoff


# -- stop-loss ------------------------------------------------------------------------------


def test_a_pause_in_one_tenant_never_pauses_or_resumes_another(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    for n in range(2):
        stop_loss.note_failure(local, "lane", "score", "provider_auth", f"j{n}", threshold=2)
    assert stop_loss.is_paused(local, "lane", "score") == "provider_auth"
    assert stop_loss.is_paused(acme, "lane", "score") is None
    assert stop_loss.streak_of(acme, "lane", "score") == 0
    assert stop_loss.paused(acme) == [] and stop_loss.known_names(acme) == []
    assert stop_loss.resume(acme, "lane", "score") is None  # not acme's: nothing written
    assert stop_loss.is_paused(local, "lane", "score") == "provider_auth"

    # The same lane name in acme (the key is (tenant_id, kind, name)): its own window.
    stop_loss.note_failure(acme, "lane", "score", "provider_auth", "a1", threshold=2)
    assert stop_loss.streak_of(acme, "lane", "score") == 1
    assert stop_loss.streak_of(local, "lane", "score") == 2
    stop_loss.note_failure(acme, "lane", "score", "provider_auth", "a2", threshold=2)
    assert [p.name for p in stop_loss.paused(acme)] == ["score"]
    assert stop_loss.resume(acme, "lane", "score") == "provider_auth"
    assert stop_loss.is_paused(acme, "lane", "score") is None
    assert stop_loss.is_paused(local, "lane", "score") == "provider_auth", "local still paused"
    stop_loss.note_success(acme, "lane", "score")
    assert stop_loss.streak_of(local, "lane", "score") == 2
    rows = {(r["tenant_id"], r["name"]): r["paused_code"] for r in _all_rows(local, SL)}
    assert rows == {("local", "score"): "provider_auth", (ACME, "score"): None}


# -- automatic recovery ---------------------------------------------------------------------


def test_recovery_sees_and_reserves_only_its_tenants_rows(
    two_tenants: TwoTenants, later: WallClock
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    mine = _job(local, 1)
    _fail(local, mine, "enrich")
    assert [c.job_id for c in recovery.eligible(local, later(), stage_limit=3)] == [mine]
    assert recovery.eligible(acme, later(), stage_limit=3) == []
    assert recovery.retry_demand(acme, later()) == {"due": 0, "waiting": 0}
    assert recovery.retry_demand(local, later()) == {"due": 1, "waiting": 0}
    assert _reserve(acme, later) is None
    assert _reserve(acme, later, among=[mine]) is None  # another tenant's job id: nothing

    theirs = _job(acme, 1)
    _fail(acme, theirs, "enrich")
    a_cohort = _reserve(acme, later)
    assert a_cohort is not None and a_cohort.job_ids == (theirs,)
    assert a_cohort.workflow_id.startswith("prepare-auto-acme-enrich-")
    l_cohort = _reserve(local, later)
    assert l_cohort is not None and l_cohort.job_ids == (mine,)
    assert l_cohort.workflow_id.startswith("prepare-auto-local-enrich-")
    assert recovery.open_cohorts(acme) == [a_cohort]
    assert recovery.open_cohorts(local) == [l_cohort]
    assert recovery.cohort(acme, l_cohort.workflow_id) is None
    assert recovery.reserved_members(acme, l_cohort.workflow_id, [mine]) == []
    assert recovery_admission.in_use(acme) == 1 and recovery_admission.in_use(local) == 1

    # Acting on local's cohort from acme changes nothing of it.
    assert not recovery.bind_run(acme, l_cohort.workflow_id, "run-x")
    assert recovery.close_cohort(acme, l_cohort.workflow_id) == []
    assert recovery_admission.release_declined(acme, l_cohort.workflow_id) == ([], 0)
    assert recovery.open_cohorts(local) == [l_cohort]
    assert recovery.reserved_members(local, l_cohort.workflow_id, [mine]) == [mine]
    assert recovery.close_cohort(local, l_cohort.workflow_id) == [mine]
    assert recovery.open_cohorts(acme) == [a_cohort]


def test_an_apply_decline_vetoes_only_its_own_tenants_rows(
    two_tenants: TwoTenants, later: WallClock
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    mine = _job(local, "t")
    for stage in ("enrich", "score"):
        claim = stage_states.claim_stage(local, mine, stage, "run-prep")
        with local.write() as tx:
            stage_states.succeed_stage(tx, mine, stage, "run-prep", claim.attempt)
    with local.write() as tx:
        stage_states.ensure_stages(tx, mine, ["tailor", "cover", "pdf"])
    _fail(local, mine, "tailor", errors.PROVIDER_UNAVAILABLE)
    with local.write() as tx:
        applications.ensure_for_job(tx, mine, company="Co", role="Engineer")
    application = applications.get(local, mine)
    assert application is not None
    with local.write() as tx:
        applications.resolve(tx, application["id"], Resolution.ABANDONED)
    assert recovery.retry_demand(local, later()) == {"due": 0, "waiting": 0}
    with acme.read() as conn:
        assert not recovery_admission.declined(conn, mine, "tailor")  # not acme's application
    with local.read() as conn:
        assert recovery_admission.declined(conn, mine, "tailor")


# -- orphans and stop requests --------------------------------------------------------------


def test_orphans_and_stop_requests_are_listed_to_their_own_tenant(
    two_tenants: TwoTenants,
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    now = datetime.now(UTC)
    stray = orphans.Observed("prep-acme-0123456789ab", "r1", "JobPreparationWorkflow", now)
    orphans.replace_orphans(acme, [stray], now)
    assert [o.workflow_id for o in orphans.orphans(acme)] == [stray.workflow_id]
    assert orphans.orphans(local) == []
    orphans.replace_orphans(local, [], now)  # local's set is empty: acme's orphan stays
    assert [o.workflow_id for o in orphans.orphans(acme)] == [stray.workflow_id]
    assert {r["tenant_id"] for r in _all_rows(local, orphans.OE)} == {ACME}

    orphans.request_stop(acme, stray.workflow_id, "r1", "orphan", now=now)
    assert orphans.pending_stops(local) == [] and orphans.stop_requests(local) == []
    orphans.note_stop(local, stray.workflow_id, "r1", now, issued=True, closed=True)
    [pending] = orphans.pending_stops(acme)
    assert pending["issued"] == 0 and pending["observed_closed_at"] is None
    assert [s.workflow_id for s in orphans.stop_requests(acme)] == [stray.workflow_id]


def test_a_tenants_open_cohorts_are_expected_by_it_alone(
    two_tenants: TwoTenants, later: WallClock
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    job_id = _job(acme, "x")
    _fail(acme, job_id, "enrich")
    cohort = _reserve(acme, later)
    assert cohort is not None
    assert cohort.workflow_id in orphans.expected(acme, later()).ids
    assert cohort.workflow_id not in orphans.expected(local, later()).ids


# -- availability and the public-fetch recheck ----------------------------------------------


def test_availability_is_due_and_recorded_per_tenant(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    now = datetime.now(UTC)
    mine, theirs = _job(local, "a"), _job(acme, "a")
    assert availability.due_jobs(local, now, 10) == [mine]
    assert availability.due_jobs(acme, now, 10) == [theirs]
    with pytest.raises(NotFoundError):
        availability.job_url(acme, mine)
    with pytest.raises(NotFoundError):
        availability.record_check(acme, mine, Availability.UNAVAILABLE, "gone", now)
    assert availability.record_check(local, mine, Availability.ACTIVE, None, now) == "active"
    assert availability.due_jobs(local, now, 10) == []
    assert availability.due_jobs(acme, now, 10) == [theirs], "acme's check is still due"
    assert not availability.posting_closed(acme, mine)


def _refused(store: Store, n: int | str, host: str = "jobs.example.test") -> str:
    job_id = jobs.create_job(store, f"https://{host}/jobs/{n}").job_id
    claim = stage_states.claim_stage(store, job_id, "enrich", "run-prep")
    error = pf_rules.UnsafeAddressError(host, pf_rules.DNS_NON_PUBLIC)
    stage_states.fail_stage(store, job_id, "enrich", "run-prep", claim.attempt, error)
    return job_id


def test_public_fetch_rechecks_are_each_tenants_own(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    mine = _refused(local, 1)
    later = datetime.now(UTC) + timedelta(hours=1)
    assert public_fetch.evidence(local, mine) is not None
    assert public_fetch.evidence(acme, mine) is None
    assert public_fetch.due(acme, later, stage_limit=3) == []
    [candidate] = public_fetch.due(local, later, stage_limit=3)
    assert candidate.job_id == mine
    # acme cannot record a check of local's failure, nor return its stage to pending.
    resolved = pf_rules.CheckResult.PUBLIC
    assert public_fetch.settle_check(acme, candidate, resolved, stage_limit=3) is None
    assert public_fetch.evidence(local, mine)["checks"] == 0  # type: ignore[index]
    assert public_fetch.adopt_legacy(acme) == 0

    theirs = _refused(acme, 1)
    assert [c.job_id for c in public_fetch.due(acme, later, stage_limit=3)] == [theirs]
    assert public_fetch.settle_check(local, candidate, resolved, stage_limit=3) is True
    assert {r["tenant_id"]: r["job_id"] for r in _all_rows(local, public_fetch_rechecks)} == {
        "local": mine,
        ACME: theirs,
    }
    assert [c.job_id for c in public_fetch.due(acme, later, stage_limit=3)] == [theirs]


# -- the operations snapshot and the runtime ------------------------------------------------


def test_the_operations_snapshot_counts_its_own_tenant(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    now = datetime.now(UTC)
    ref = ExecutionRef("local", "discover-local", "run-1")
    discovery.open_run(local, ref, ["greenhouse"], 3, 1, 1)
    for n in range(3):
        job_id = _job(local, n)
        with local.write() as tx:
            discovery.link_member(tx, ref, job_id, Cohort.OBSERVED)
    _fail(local, _job(local, "f"), "enrich", errors.ENRICH_HTTP_NOT_FOUND)
    _job(acme, "only")
    stop_loss.note_failure(local, "lane", "score", "provider_auth", "j", threshold=1)
    orphans.replace_orphans(local, [orphans.Observed("stray", "r", "X", now)], now)

    assert operations.selected_execution(acme) is None
    counts = operations.scope_counts(
        acme, None, non_retryable=frozenset(), max_auto_attempts=3
    ).scopes
    assert counts["global_outside_execution"]["jobs"] == 1
    assert counts["global_outside_execution"]["remaining"]["enrich"] == 1
    assert counts["global_outside_execution"]["failed"] == 0
    assert operations.materials_pass_rate(acme) == 1.0

    theirs = operations_snapshot(two_tenants.acme_home, now=now)
    assert theirs.phase == "idle" and theirs.execution is None
    assert theirs.stop_loss == [] and theirs.orphans == []
    assert theirs.scopes["global_outside_execution"].jobs == 1
    mine = operations_snapshot(two_tenants.local_home, now=now)
    assert mine.execution is not None and mine.execution.workflow_id == "discover-local"
    assert mine.scopes["current_execution"].jobs == 3
    assert mine.scopes["global_outside_execution"].jobs == 1
    assert [p.name for p in mine.stop_loss] == ["score"]
    assert [o.workflow_id for o in mine.orphans] == ["stray"]


def test_runtime_items_are_the_readers_own_and_slots_the_deployments(
    two_tenants: TwoTenants,
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    now = datetime.now(UTC)
    job = _job(acme, "run")
    items = [
        {
            "kind": "score",
            "workflowId": wid,
            "runId": "0195b0c4-1111-7000-8000-000000000001",
            "key": runtime_rules.item_key(wid, str(n), 1),
            "startedAt": (now - timedelta(seconds=10 - n)).isoformat(),
        }
        for n, wid in enumerate([f"prep-acme-{job}", "prep-0123456789ab", "prep-acme-fff"])
    ]
    runtime.publish(
        local,
        {
            "worker_id": "w1",
            "home_id": home_identity(two_tenants.local_home),
            "task_queue": "q",
            "started_at": now - timedelta(minutes=1),
            "beat_at": now,
            "interval_seconds": 5.0,
            "active_slots": 3,
            "capacity": 8,
            "items_total": 3,
            "items": items,
            "durations": {},
            "queue": None,
        },
    )
    home_id = home_identity(two_tenants.acme_home)
    theirs = runtime.read_runtime(acme, now, home_id=home_id)
    mine = runtime.read_runtime(local, now, home_id=home_id)
    assert [i.workflow_id for i in theirs.items] == [items[0]["workflowId"], "prep-acme-fff"]
    assert [i.workflow_id for i in mine.items] == ["prep-0123456789ab"]
    assert (theirs.active_slots, theirs.capacity) == (mine.active_slots, mine.capacity) == (3, 8)
    assert not theirs.truncated and not mine.truncated
    assert mine.items[0].job_id is None  # local has no such job


def test_an_upsert_on_a_key_another_tenant_holds_never_rewrites_its_row(
    two_tenants: TwoTenants,
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    now = datetime.now(UTC)
    orphans.request_stop(local, "ext-wf", "run-1", "operator", now=now)
    orphans.request_stop(acme, "ext-wf", "run-1", "orphan", now=now)  # the same execution
    assert [(s.workflow_id, s.reason) for s in orphans.stop_requests(local)] == [
        ("ext-wf", "operator")
    ]
    assert {r["tenant_id"] for r in _all_rows(local, orphans.SR)} == {LOCAL}
