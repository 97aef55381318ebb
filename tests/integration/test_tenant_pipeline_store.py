"""The pipeline store keeps to its tenant (issue 14, WP1): what one tenant writes (jobs,
stage rows, events, runs, projections) another can neither see nor change; the same
posting in two tenants is two jobs; a job-id prefix never resolves across tenants; the
projections, folded per event's tenant over the one global sequence, rebuild to the
incrementally folded rows. On both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import insert, select

from jobctrl.app import queries
from jobctrl.domain import ids
from jobctrl.domain.discovery import ExecutionRef
from jobctrl.domain.errors import JobctrlError, NotFoundError, StageError
from jobctrl.domain.executions import WorkflowType
from jobctrl.domain.stages import Stage, StageState
from jobctrl.store import (
    backlog,
    discovery,
    events,
    job_list,
    jobs,
    observations,
    projections,
    run_verdicts,
    schema,
    stage_control,
    stage_lookups,
    stage_states,
    start_intents,
    tenancy,
    workflow_runs,
)
from jobctrl.store.store import Store
from tests.support.tenants import ACME, TwoTenants

pytestmark = pytest.mark.parametrize(
    "database_url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)

URL = "https://boards.example.com/acme/jobs/1"
PREP = WorkflowType.PREPARATION.value


def _rows(store: Store, table: Any) -> list[tuple[Any, ...]]:
    """Every tenant's rows of ``table``, in a stable order."""
    with store.read() as conn:
        rows = conn.execute(tenancy.all_tenants(select(table))).all()
    return sorted((tuple(r) for r in rows), key=repr)


def test_the_same_posting_in_two_tenants_is_two_jobs(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    mine, theirs = jobs.create_job(local, URL), jobs.create_job(acme, URL)
    assert mine.created and theirs.created and mine.job_id != theirs.job_id
    assert mine.job_id == ids.job_id_for(
        ids.idempotency_key(mine.canonical_url, "local")
    )  # as before
    assert jobs.create_job(acme, URL) == jobs.NewJob(
        theirs.job_id, theirs.idempotency_key, theirs.canonical_url, False
    )
    assert jobs.job_row(acme, theirs.job_id)["tenant_id"] == ACME
    with pytest.raises(NotFoundError):
        jobs.job_row(local, theirs.job_id)
    with pytest.raises(NotFoundError):
        jobs.job_record(acme, mine.job_id)
    assert [r["job_id"] for r in job_list.find(acme)[0]] == [theirs.job_id]
    assert [r["job_id"] for r in job_list.find(local)[0]] == [mine.job_id]
    assert job_list.find(acme, job_list.JobFilter(limit=10))[1] == 1
    assert stage_states.stage_rows(local, theirs.job_id) == []
    assert {r["tenant_id"] for r in stage_states.stage_rows(acme, theirs.job_id)} == {ACME}


def test_a_job_id_or_prefix_never_resolves_across_tenants(two_tenants: TwoTenants) -> None:
    theirs = jobs.create_job(two_tenants.acme, URL).job_id
    assert jobs.resolve_job_id(two_tenants.acme, theirs[:5]) == theirs
    for ref in (theirs, theirs[:4], theirs[:8]):
        with pytest.raises(NotFoundError):
            jobs.resolve_job_id(two_tenants.local, ref)


def test_an_id_another_tenant_holds_is_refused_never_handed_back(
    two_tenants: TwoTenants,
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    local_key = ids.idempotency_key(ids.canonical_url(URL), "local")
    with acme.write() as tx:  # another posting of acme's under the id local's would get
        tx.conn.execute(
            insert(schema.jobs).values(
                id=ids.job_id_for(local_key),
                idempotency_key="f" * 32,
                url="https://elsewhere.test/1",
                canonical_url="https://elsewhere.test/1",
                source="manual",
                created_at=tx.now,
                updated_at=tx.now,
                tenant_id=ACME,
            )
        )
    with pytest.raises(JobctrlError, match="already taken"):
        jobs.create_job(local, URL)
    with pytest.raises(NotFoundError):
        jobs.job_row(local, ids.job_id_for(local_key))


def test_stage_rows_of_one_tenant_cannot_be_claimed_or_changed_by_another(
    two_tenants: TwoTenants,
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    job = jobs.create_job(local, URL).job_id
    with pytest.raises(NotFoundError):
        stage_states.claim_stage(acme, job, Stage.ENRICH.value, "run-a")
    claim = stage_states.claim_stage(local, job, Stage.ENRICH.value, "run-l")
    # The fence finds no row of acme's to own.
    with pytest.raises(StageError), acme.write() as tx:
        stage_states.succeed_stage(tx, job, Stage.ENRICH.value, "run-l", claim.attempt)
    assert stage_lookups.running_stages_owned_by(acme, job, "run-l") == []
    assert stage_lookups.running_stages_owned_by(local, job, "run-l") == [("enrich", 1)]
    assert stage_control.cancel_job(acme, job, []) == []
    assert stage_control.reset_job_stage(acme, job, Stage.ENRICH.value) == []
    assert not stage_control.refuse_paused(acme, job, "enrich", "run-l", "x")
    with acme.write() as tx:
        stage_states.skip_pending(tx, "nojob", [], "x")
    row = stage_states.stage_rows(local, job)[0]
    assert row["state"] == StageState.RUNNING.value and row["owner_run_id"] == "run-l"
    assert stage_control.cancel_job(local, job, [])[0] == "enrich"


def test_runs_and_events_are_read_per_tenant(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    before = events.latest_seq(local)
    mine = jobs.create_job(local, URL).job_id
    theirs = jobs.create_job(acme, URL).job_id
    for store, job in ((local, mine), (acme, theirs)):
        workflow_runs.record_workflow_started(
            store, workflow_id=f"prep-{job}", run_id="r1", workflow_type=PREP, job_id=job
        )
    assert [r["job_id"] for r in events.events_after(acme, 0)] == [theirs, theirs]
    assert {r["tenant_id"] for r in events.events_after(local, before)} == {"local"}
    assert events.latest_seq(acme) > events.latest_seq(local)
    assert events.job_events(local, theirs) == []
    assert workflow_runs.run_row(local, f"prep-{theirs}", "r1") is None
    assert workflow_runs.run_row(acme, f"prep-{theirs}", "r1")["tenant_id"] == ACME  # type: ignore[index]
    assert [r["workflow_id"] for r in workflow_runs.open_runs(acme)] == [f"prep-{theirs}"]
    assert workflow_runs.preparation_ids(local, theirs) == []
    assert workflow_runs.preparation_ids(acme, theirs) == [f"prep-{theirs}"]
    assert workflow_runs.running_count(acme, PREP) == 1
    assert [e.workflow_id for e in workflow_runs.open_executions(local)] == [f"prep-{mine}"]
    assert workflow_runs.latest_runs(local, f"prep-{theirs}") == []
    assert not workflow_runs.adopt(
        acme, workflow_id=f"prep-{theirs}", run_id="r1", workflow_type=PREP, job_id=None
    )


def test_projections_rebuilt_equal_the_incremental_ones_with_two_tenants(
    two_tenants: TwoTenants,
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    for n, store in enumerate((local, acme, local, acme)):
        job = jobs.create_job(store, f"{URL}{n}").job_id
        workflow_runs.record_workflow_started(
            store, workflow_id=f"prep-{job}", run_id="r", workflow_type=PREP, job_id=job
        )
        claim = stage_states.claim_stage(store, job, Stage.ENRICH.value, "r")
        with store.write() as tx:
            stage_states.succeed_stage(tx, job, Stage.ENRICH.value, "r", claim.attempt)
        workflow_runs.record_workflow_closed(
            store, workflow_id=f"prep-{job}", run_id="r", job_id=job, outcome="prepared"
        )
    tables = projections.PROJECTION_TABLES
    folded = {t.name: _rows(local, t) for t in tables}
    assert {r[-1] for r in folded["job_list_projections"]} | {ACME} >= {"local", ACME}
    with acme.read() as conn:
        owners = conn.execute(
            select(schema.job_list_projections.c.tenant_id).where(
                schema.job_list_projections.c.job_id.in_(
                    select(schema.jobs.c.id).where(schema.jobs.c.tenant_id == ACME)
                ),
                schema.job_list_projections.c.tenant_id == ACME,
            )
        ).all()
    assert len(owners) == 2
    assert events.rebuild_projections(acme) > 0  # any tenant's rebuild folds every tenant
    assert {t.name: _rows(local, t) for t in tables} == folded
    assert len(job_list.find(local)[0]) == len(job_list.find(acme)[0]) == 2
    assert {r["status"] for r in job_list.find(acme)[0]} == {job_list.find(local)[0][0]["status"]}


def test_start_intents_and_verdicts_stay_within_their_tenant(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    job = jobs.create_job(local, URL).job_id
    wid = ids.prep_workflow_id(jobs.job_row(local, job)["idempotency_key"], "local")
    with local.write() as tx:
        start_intents.intend(tx, wid, job)
    later = datetime.now(UTC) + timedelta(hours=1)
    assert (
        start_intents.unstarted(acme, later) == []
        and start_intents.unstarted_for(acme, job) is None
    )
    with acme.write() as tx:
        start_intents.mark_started(tx, wid, "r-acme")
    assert start_intents.unstarted(local, later) == [(wid, job)]
    workflow_runs.record_workflow_started(
        local, workflow_id=wid, run_id="r1", workflow_type=PREP, job_id=job
    )
    assert start_intents.unstarted_for(local, job) is None
    stage_states.claim_stage(local, job, Stage.ENRICH.value, "r1")
    assert not run_verdicts.reconcile(acme, wid, "r1", "completed")  # not acme's to close
    with acme.write() as tx:
        assert run_verdicts.settle_interrupted(tx, "r1") == 0
    assert run_verdicts.settle_abandoned(acme, grace=0) == 0
    assert workflow_runs.run_row(local, wid, "r1")["status"] == "running"  # type: ignore[index]
    assert run_verdicts.reconcile(local, wid, "r1", "completed")
    assert stage_states.stage_rows(local, job)[0]["error_code"] == "STAGE_INTERRUPTED"


def test_discovery_runs_members_and_the_backlog_stay_within_their_tenant(
    two_tenants: TwoTenants,
) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    mine = jobs.create_job(local, URL).job_id
    theirs = jobs.create_job(acme, URL).job_id
    ref = ExecutionRef("local", "discover-local", "run-1")
    acme_ref = ExecutionRef(ACME, ids.discover_workflow_id(ACME), "run-1")
    discovery.open_run(local, ref, ["greenhouse"], 3, 1, 1)
    with pytest.raises(tenancy.TenancyError):  # a ref of another tenant is a bug
        discovery.open_run(acme, ref, ["greenhouse"], 3, 1, 1)
    assert [r["run_id"] for r in discovery.recent_runs(local)] == ["run-1"]
    assert discovery.recent_runs(acme) == []
    assert [j.id for j in observations.known_postings(acme)[0]] == [theirs]
    assert [c[0] for c in backlog.candidates(acme, acme_ref, 10)] == [theirs]
    with acme.write() as tx:
        assert backlog.admit(tx, acme_ref, 10) == 1
    (swept,) = backlog.to_start(acme, acme_ref)
    assert swept.job_id == theirs and swept.workflow_id.startswith("prepare-sweep-acme-")
    assert ids.tenant_of(swept.workflow_id) == ACME
    assert discovery.member_count(acme, acme_ref) == 1 and backlog.swept_count(acme, acme_ref) == 1
    assert discovery.pending_members(acme, acme_ref)[0][0] == theirs
    assert [c[0] for c in backlog.candidates(local, ref, 10)] == [mine]
    with local.write() as tx:
        backlog.admit(tx, ref, 10)
    (own,) = backlog.to_start(local, ref)
    assert own.workflow_id.startswith("prepare-sweep-local-")  # as before
    assert start_intents.unstarted_for(local, theirs) is None
    assert discovery.member_count(local, ref) == 1


def test_a_posting_text_is_read_only_through_the_tenants_own_job(
    two_tenants: TwoTenants,
) -> None:
    job = jobs.create_job(two_tenants.local, URL).job_id
    sha = two_tenants.local.artifacts.put(b"the posting")
    with two_tenants.local.write() as tx:
        jobs.record_enrichment(tx, job, {"text_artifact": sha}, "test")
    assert queries.posting_text(two_tenants.local_home, sha) == "the posting"
    assert queries.posting_text(two_tenants.acme_home, sha) == ""
