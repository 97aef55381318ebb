"""Issue 14 (tenants), WP2: materials, paid answers, truth checks, applications, their
attempts, the apply workflow's claims and the tracker are each tenant's own, on both
stores. ``local`` writes; ``acme``, on the same database, reads none of it and changes none
of it, even given local's ids."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import update

from jobctrl.domain.applications import ApplicationStatus, AttemptState
from jobctrl.domain.errors import JobctrlError, NotFoundError
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.domain.truth.document import Finding
from jobctrl.store import (
    application_tracker,
    applications,
    apply_attempts,
    apply_claims,
    jobs,
    materials,
    provider_results,
    schema,
    truth_checks,
)
from jobctrl.store.db import upsert
from jobctrl.store.store import Store
from tests.support.tenants import TwoTenants

pytestmark = pytest.mark.parametrize(
    "database_url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
PDF = "a" * 64


def _job(store: Store, n: int = 1) -> str:
    return jobs.create_job(store, f"https://example.com/jobs/{n}").job_id


def _drafts(store: Store, job_id: str) -> None:
    with store.write() as tx:
        ids = {}
        for kind in MaterialKind:
            gen = materials.add_generation(
                tx, job_id, kind.value, content={"k": kind.value}, provider="offline",
                model="m", profile_version=None, run_id="run-1",
            )  # fmt: skip
            ids[kind] = materials.next_generation(tx.conn, job_id, kind.value) - 1
            assert gen == ids[kind] == 1
    rows = {r["kind"]: r["id"] for r in materials.list_materials(store, job_id)}
    with store.write() as tx:
        materials.attach_pdfs(
            tx, job_id, resume_id=rows["resume"], resume_pdf=PDF, letter_id=rows["cover"],
            letter_pdf="b" * 64, key=f"rendered:{job_id}",
        )  # fmt: skip


def test_materials_are_the_tenants_own(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    job = _job(local)
    _drafts(local, job)
    assert len(materials.list_materials(local, job)) == 2
    assert materials.list_materials(acme, job) == []
    assert materials.latest(acme, job, "resume") is None
    assert materials.pdf_owner(acme, PDF) is None
    assert materials.pdf_owner(local, PDF) == (job, "resume", 1)
    with pytest.raises(NotFoundError):
        materials.decide(acme, job, MaterialState.APPROVED)
    with acme.write() as tx:  # acme's numbering of a job id it does not hold starts anew
        assert materials.next_generation(tx.conn, job, "resume") == 1
        materials.attach_pdfs(
            tx, job, resume_id=materials.latest(local, job, "resume")["id"], resume_pdf="c" * 64,
            letter_id=None, letter_pdf=None, key="acme-tries",
        )  # fmt: skip
    assert materials.latest(local, job, "resume")["pdf_artifact"] == PDF  # untouched
    assert [d["state"] for d in materials.decide(local, job, MaterialState.APPROVED)] == [
        "approved",
        "approved",
    ]
    # The same artifact (content-addressed, shared) in acme's own materials is acme's.
    acme_job = _job(acme, 2)
    _drafts(acme, acme_job)
    assert materials.pdf_owner(acme, PDF) == (acme_job, "resume", 1)
    assert materials.pdf_owner(local, PDF) == (job, "resume", 1)


def test_paid_answers_and_truth_checks_are_the_tenants_own(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    job = _job(local)
    key = f"tailor:{job}:run-1"
    with local.write() as tx:
        provider_results.save_response(
            tx, key=key, lane="tailor", job_id=job, run_id="run-1",
            observation_id=f"tailor:{job}:run-1:1", response={"text": "answer"}, prompt="p1",
        )  # fmt: skip
        truth_checks.record(
            tx, job_id=job, stage="tailor", run_id="run-1", attempt=1, generation=1, checked=3,
            findings=[Finding("headline", "I led 40 people.", "number", "40")],
            profile_version=None,
        )  # fmt: skip
    assert provider_results.stored(local, key) is not None
    assert provider_results.stored(acme, key) is None
    assert provider_results.unparsed_answers(local, "tailor", job, exclude_run="x") != []
    assert provider_results.unparsed_answers(acme, "tailor", job, exclude_run="x") == []
    with acme.write() as tx:  # no row of acme's: nothing of local's is overwritten
        provider_results.save_output(
            tx, key=f"tailor:{job}:run-acme", lane="tailor", job_id=job, run_id="run-acme",
            observation_id="o", output={"acme": True},
        )  # fmt: skip
    assert provider_results.stored_output(local, key) is None
    assert truth_checks.latest(local, job)["finding_count"] == 1
    assert truth_checks.latest(acme, job) is None
    assert (truth_checks.refusals(local, job), truth_checks.refusals(acme, job)) == (1, 0)


def test_applications_and_attempts_are_the_tenants_own(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    job = _job(local)
    with local.write() as tx:
        app = applications.ensure_for_job(tx, job, company="Acme", role="Engineer")
        applications.set_channel(tx, app["id"], "browser", form_url="https://example.com/f")
        attempt = apply_attempts.start_attempt(tx, app["id"], kind="browser", owner="me")
    assert applications.get(local, job)["id"] == app["id"]
    assert applications.get(acme, job) is None
    assert applications.by_id(acme, app["id"]) is None
    assert applications.list_all(acme) == []
    assert apply_attempts.live_attempts(acme) == []
    assert apply_attempts.attempts_of(acme, app["id"]) == []
    assert len(apply_attempts.live_attempts(local)) == 1
    with acme.write() as tx, pytest.raises(NotFoundError):
        applications.require(tx, app["id"])
    with acme.write() as tx:
        assert not apply_attempts.finish_attempt(tx, attempt, AttemptState.SUBMITTED)
        assert applications.record_browser_result(tx, attempt, "submitted") is None
        assert not apply_attempts.mark_data_sent(tx, attempt)
    assert applications.get(local, job)["status"] == ApplicationStatus.DRAFT.value
    assert apply_attempts.live_attempts(local)[0]["id"] == attempt
    # acme's own application of a job of its own: found, listed, nothing of local's.
    acme_job = _job(acme, 2)
    with acme.write() as tx:
        acme_app = applications.ensure_for_job(tx, acme_job, company="Beta", role="Dev")
    assert [a["id"] for a in applications.list_all(acme)] == [acme_app["id"]]
    assert [a["id"] for a in application_tracker.tracker_rows(acme)] == [acme_app["id"]]
    assert [a["id"] for a in application_tracker.tracker_rows(local)] == [app["id"]]


def test_claims_are_the_tenants_own(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    job = _job(local)
    _drafts(local, job)
    materials.decide(local, job, MaterialState.APPROVED)
    score = {
        "tenant_id": local.tenant, "job_id": job, "score": 80, "verdict": "good",
        "provider": "offline", "model": "m", "report": {}, "report_artifact": "0" * 64,
        "owner_run_id": "run-1", "created_at": NOW,
    }  # fmt: skip
    with local.write() as tx:
        upsert(tx.conn, schema.job_scores, score, keys=["job_id"])
    rules = {"min_fit_score": 0, "approval_required": True}
    assert apply_claims.candidates(local, NOW, limit=5, **rules).job_ids == [job]
    assert apply_claims.candidates(acme, NOW, limit=5, **rules).job_ids == []
    with pytest.raises(NotFoundError):  # local's job is no job of acme's
        apply_claims.claim(acme, job, workflow_id="apply-auto-acme", run_id="r", **rules)
    made = apply_claims.claim(local, job, workflow_id="apply-auto-local", run_id="r", **rules)
    assert made.claim_id is not None
    assert apply_claims.get(acme, made.claim_id) is None
    assert apply_claims.claims_of_run(acme, "apply-auto-local", "r") == []
    assert apply_claims.release_run(acme, "apply-auto-local", "r") == 0
    assert apply_claims.state_counts(acme, "apply-auto-local") == {}
    with acme.write() as tx, pytest.raises(JobctrlError):
        apply_claims.require_live(tx, made.claim_id)
    assert apply_claims.state_counts(local, "apply-auto-local") == {"claimed": 1}


def test_the_tracker_import_matches_only_the_tenants_jobs(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    job = _job(local)
    with local.write() as tx:
        tx.conn.execute(
            update(schema.jobs)
            .where(schema.jobs.c.tenant_id == tx.tenant, schema.jobs.c.id == job)
            .values(company="Acme", title="Engineer")
        )
    url = "https://example.com/jobs/1"
    with local.read() as conn:
        assert application_tracker.match_job(conn, url=url, company="Acme", role="Engineer") == job
    with acme.read() as conn:
        assert application_tracker.match_job(conn, url=url, company="Acme", role="Engineer") is None
    with local.write() as tx:
        imported = application_tracker.insert_imported(
            tx, company="Gamma", role="Ops", url=None, status="applied", outcome=None, notes="",
            follow_up=None, score=None, applied_on=None, cells={"num": "7"},
        )  # fmt: skip
    with acme.read() as conn:
        assert application_tracker.find_imported(conn, 7, "Gamma") is None
    with local.read() as conn:
        assert application_tracker.find_imported(conn, 7, "Gamma")["id"] == imported
    with acme.write() as tx:
        application_tracker.update_tracked(tx, imported, {"notes": "acme was here"})
        row = {"id": imported, "status": "draft", "applied_at": None, "outcome": None}
        assert application_tracker.mark_status(tx, row, "abandoned", source="person") is False
    assert applications.by_id(local, imported)["notes"] is None
