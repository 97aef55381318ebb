"""One worker, one task queue, two tenants (issue 14, WP3b): each workflow acts for the
tenant its input names, each id names it, and the heartbeat keeps each tenant's standing
executions per that tenant's own settings."""

from __future__ import annotations

import asyncio
import json
import signal
import uuid
from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from jobctrl.app.jobs import add_job
from jobctrl.config import load_config, write_template
from jobctrl.domain import errors, ids
from jobctrl.domain.clock import utcnow
from jobctrl.domain.errors import NotFoundError
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, materials, orphans, profiles, recovery, stage_states
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.testing import hooks
from jobctrl.worker import reconcile
from jobctrl.worker.auto_recovery import recover_preparations
from jobctrl.worker.heartbeat import WorkerHeartbeat
from jobctrl.workflows import starts
from jobctrl.workflows.models import ApplyWorkflowInput
from tests.support.http import Route, posting_html
from tests.support.processes import run_cli, worker_processes
from tests.support.profile import TEST_PROFILE
from tests.support.tenants import ACME, TwoTenants

# On PostgreSQL too (tests/conftest.py), the tests of each tenant's rows through one
# in-process worker: preparation, a recovery cohort, the heartbeat's per-tenant settings,
# orphans. Left to SQLite: the `jobctrl worker` process with four CLI calls (it passes on
# PostgreSQL too, the processes inheriting JOBCTRL_DATABASE_URL, but adds ~45 s spent
# starting processes, not in the store).
BOTH_STORES = {
    "test_one_worker_prepares_each_tenants_job_against_its_own_profile_and_threshold",
    "test_an_acme_recovery_cohort_is_named_for_acme_and_runs_as_acme",
    "test_the_heartbeat_keeps_each_tenants_standing_executions_per_its_settings",
    "test_an_orphan_of_acme_is_listed_only_to_acme",
}
POSTING = posting_html("Platform Engineer", "Tenant Co", ["Go", "Kubernetes", "Terraform"])
# acme's person: another profile than local's TEST_PROFILE.
ACME_PROFILE = {
    **TEST_PROFILE,
    "name": "Grace Example",
    "summary": "Platform engineer running Go services on Kubernetes with Terraform.",
    "skills": ["Go", "Kubernetes", "Terraform", "Prometheus"],
}


def _serve_loopback(store: Store, **more: Any) -> None:
    """What ``fast_settings`` gives the local tenant, for another one."""
    Settings(store).set_values(
        {
            "fetch.allow_hosts": ["127.0.0.1"],
            "fetch.min_host_interval_seconds": 0.0,
            "retry.initial_interval_seconds": 0.05,
            "retry.max_attempts": 2,
            **more,
        }
    )


def _give_profile(t: TwoTenants, profile: dict[str, Any]) -> None:
    t.acme_home.config_path.unlink()
    write_template(t.acme_home, profile=profile)


def _states(view: dict[str, Any]) -> dict[str, str]:
    return {s["stage"]: s["state"] for s in view["stages"]}


async def test_one_worker_prepares_each_tenants_job_against_its_own_profile_and_threshold(
    two_tenants: TwoTenants, worker, site, settings
) -> None:
    t = two_tenants
    _give_profile(t, ACME_PROFILE)
    settings.set_value("min_fit_score", 100)  # local: below its threshold, no materials
    _serve_loopback(t.acme, min_fit_score=0)  # acme: prepared with materials
    url = site.add("/jobs/both", Route(body=POSTING))

    # As `jobctrl add --json` prints them (the CLI test below reads the same keys).
    local = (await add_job(t.local_home, url, wait=True)).to_json()
    acme = (await add_job(t.acme_home, url, wait=True)).to_json()

    assert local["jobId"] != acme["jobId"], "the same posting is another job in each tenant"
    local_key = ids.idempotency_key(ids.canonical_url(url), "local")
    assert local["workflowId"] == f"prep-{local_key}"
    assert acme["workflowId"].startswith("prep-acme-")
    assert ids.tenant_of(acme["workflowId"]) == ACME
    assert _states(local)["score"] == "succeeded" and _states(local)["tailor"] == "skipped"
    assert _states(acme)["score"] == _states(acme)["pdf"] == "succeeded"

    # Each scored against its own tenant's profile: acme's person has the posting's skills.
    local_score = jobs.score_row(t.local, local["jobId"])
    acme_score = jobs.score_row(t.acme, acme["jobId"])
    assert local_score is not None and acme_score is not None
    assert acme_score["score"] > local_score["score"]
    local_version = profiles.version_of(t.local, load_config(t.local_home).profile)
    acme_version = profiles.version_of(t.acme, load_config(t.acme_home).profile)
    assert local_version != acme_version
    resume = materials.latest(t.acme, acme["jobId"], "resume")
    assert resume is not None and resume["profile_version"] == acme_version
    assert materials.latest(t.local, local["jobId"], "resume") is None

    # Each report is number 1, in its own tenant's reports/ folder.
    [local_report] = (t.local_home.root / "reports").glob("*.md")
    [acme_report] = (t.acme_home.root / "tenants" / ACME / "reports").glob("*.md")
    assert local_report.name.startswith("001-") and acme_report.name.startswith("001-")
    assert "Grace Example" not in local_report.read_text()

    # Neither tenant sees the other's job.
    with pytest.raises(NotFoundError):
        jobs.job_row(t.local, acme["jobId"])
    with pytest.raises(NotFoundError):
        jobs.job_row(t.acme, local["jobId"])


async def test_an_acme_recovery_cohort_is_named_for_acme_and_runs_as_acme(
    two_tenants: TwoTenants, worker, client, site, monkeypatch
) -> None:
    t = two_tenants
    monkeypatch.setenv(hooks.RECOVERY_BACKOFF_BASE_SECONDS, "0.01")
    _serve_loopback(t.acme)
    job_id = jobs.create_job(t.acme, site.add("/jobs/recover", Route(body=POSTING))).job_id
    claim = stage_states.claim_stage(t.acme, job_id, "enrich", "run-gone")
    error = errors.StageError(errors.ENRICH_TIMEOUT, "failed earlier", retryable=True)
    stage_states.fail_stage(t.acme, job_id, "enrich", "run-gone", claim.attempt, error)
    ctx = StageContext(home=t.local_home, store=t.local)  # the worker's own context

    await asyncio.sleep(0.05)  # past the shrunk backoff
    assert await recover_preparations(client, ctx, Settings(t.local).all()) == 0, "none local"
    acme_ctx = ctx.for_tenant(ACME)
    assert (acme_ctx.store, acme_ctx.home) == (t.acme, t.acme_home)
    assert await recover_preparations(client, acme_ctx, Settings(t.acme).all()) == 1
    [cohort] = recovery.open_cohorts(t.acme)
    assert cohort.workflow_id.startswith("prepare-auto-acme-enrich-")
    assert recovery.open_cohorts(t.local) == []
    await client.get_workflow_handle(cohort.workflow_id).result()
    rows = {r["stage"]: r["state"] for r in stage_states.stage_rows(t.acme, job_id)}
    assert rows["enrich"] == "succeeded"
    assert recovery.cohort(t.acme, cohort.workflow_id).state == "closed"


async def _described(client: Client, workflow_id: str) -> WorkflowExecutionStatus | None:
    description = await starts.describe(client, workflow_id)
    return None if description is None else description.status


async def _schedule_note(client: Client, schedule_id: str) -> str | None:
    try:
        described = await client.get_schedule_handle(schedule_id).describe()
    except RPCError as exc:
        if exc.status == RPCStatusCode.NOT_FOUND:
            return None
        raise
    return described.schedule.state.note


async def test_the_heartbeat_keeps_each_tenants_standing_executions_per_its_settings(
    two_tenants: TwoTenants, worker, client, settings
) -> None:
    t = two_tenants
    acme = Settings(t.acme)
    acme.set_values(
        {
            "auto_apply": True,
            "discovery.schedule_enabled": True,
            "discovery.schedule_cron": "15 5 * * *",
        }
    )
    heartbeat = WorkerHeartbeat(client, StageContext(home=t.local_home, store=t.local))
    try:
        await heartbeat.beat()
        assert await _schedule_note(client, "jobctrl-discovery-acme") == "cron=15 5 * * *"
        assert await _schedule_note(client, "jobctrl-discovery-local") is None, "local's off"
        assert await _described(client, "apply-auto-acme") == WorkflowExecutionStatus.RUNNING
        # local's loop is off: not running (the test server is shared by a module's tests,
        # so an earlier test's apply-auto-local may be there, closed).
        assert await _described(client, "apply-auto-local") != WorkflowExecutionStatus.RUNNING
        described = await starts.describe(client, "apply-auto-acme")
        assert described is not None
        assert await described.memo() == {"tenant": ACME}  # for operators; never read back
        [loop_input] = await client.data_converter.decode(
            (await client.get_workflow_handle("apply-auto-acme").fetch_history())
            .events[0]
            .workflow_execution_started_event_attributes.input.payloads,
            [ApplyWorkflowInput],
        )
        assert loop_input.tenant_id == ACME

        # acme turns both off: its schedule is deleted and its loop asked to stop.
        acme.set_values({"auto_apply": False, "discovery.schedule_enabled": False})
        await heartbeat.beat()
        assert await _schedule_note(client, "jobctrl-discovery-acme") is None
        handle = client.get_workflow_handle("apply-auto-acme")
        for _ in range(100):
            if await _described(client, "apply-auto-acme") != WorkflowExecutionStatus.RUNNING:
                break
            await asyncio.sleep(0.1)
        assert await _described(client, "apply-auto-acme") == WorkflowExecutionStatus.CANCELED
        assert (await handle.describe()).status == WorkflowExecutionStatus.CANCELED
    finally:
        await heartbeat.step_down()
        for schedule_id in ("jobctrl-discovery-acme", "jobctrl-discovery-local"):
            if await _schedule_note(client, schedule_id) is not None:
                await client.get_schedule_handle(schedule_id).delete()
        if await _described(client, "apply-auto-acme") == WorkflowExecutionStatus.RUNNING:
            await client.get_workflow_handle("apply-auto-acme").terminate()


def _ahead(ctx: StageContext, seconds: float) -> StageContext:
    ctx.clock = lambda: utcnow() + timedelta(seconds=seconds)
    return ctx


async def test_an_orphan_of_acme_is_listed_only_to_acme(
    two_tenants: TwoTenants, client, task_queue
) -> None:
    t = two_tenants
    suffix = uuid.uuid4().hex[:12]
    acme_stray = await client.start_workflow(
        "ApplyWorkflow", ApplyWorkflowInput(continuous=True), id=f"apply-acme-{suffix}-{suffix}",
        task_queue=task_queue,
    )  # fmt: skip
    nobodys = await client.start_workflow(
        "ApplyWorkflow", ApplyWorkflowInput(continuous=True), id=f"stray-{suffix}",
        task_queue=task_queue,
    )  # fmt: skip
    ctx = _ahead(StageContext(home=t.local_home, store=t.local), 120)  # past the grace
    try:
        for _ in range(50):  # the visibility store is eventually consistent
            listed = await starts.running_on_queue(client)
            if {acme_stray.id, nobodys.id} <= {r.workflow_id for r in listed}:
                break
            await asyncio.sleep(0.1)
        parts = reconcile.by_tenant(listed, ["local", ACME])
        for name in ("local", ACME):
            await reconcile.reconcile_runs(client, ctx.for_tenant(name), running=parts[name])
        assert [o.workflow_id for o in orphans.orphans(t.acme)] == [acme_stray.id]
        assert [o.workflow_id for o in orphans.orphans(t.local)] == [nobodys.id]
        # Local's next pass leaves acme's orphans as they are (and the other way round).
        await reconcile.reconcile_runs(client, ctx, running=parts["local"])
        assert [o.workflow_id for o in orphans.orphans(t.acme)] == [acme_stray.id]
    finally:
        await acme_stray.terminate()
        await nobodys.terminate()


def _cli_json(*args: str) -> Any:
    done = run_cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_jobctrl_worker_serves_two_tenants(
    two_tenants: TwoTenants, site, temporal_address, task_queue, fast_settings, monkeypatch
) -> None:
    """The entry point a person runs: one `jobctrl worker` (started with JOBCTRL_TENANT
    naming acme, which only picks a default) prepares `jobctrl add` of each tenant."""
    t = two_tenants
    _serve_loopback(t.acme)
    fast_settings.set_value("worker.heartbeat_seconds", 0.3)
    url = site.add("/jobs/cli", Route(body=POSTING))
    monkeypatch.setenv("JOBCTRL_TENANT", ACME)
    with worker_processes() as start:
        worker = start()
        acme = _cli_json("add", url, "--wait")
        monkeypatch.delenv("JOBCTRL_TENANT")
        local = _cli_json("add", url, "--wait")
        assert acme["workflowId"].startswith("prep-acme-")
        assert local["workflowId"] == f"prep-{ids.idempotency_key(ids.canonical_url(url), 'local')}"
        assert _states(acme)["score"] == _states(local)["score"] == "succeeded"
        assert [j["jobId"] for j in _cli_json("jobs")] == [local["jobId"]]
        monkeypatch.setenv("JOBCTRL_TENANT", ACME)
        assert [j["jobId"] for j in _cli_json("jobs")] == [acme["jobId"]]
        worker.stop(signal.SIGTERM)
    assert "Traceback" not in "\n".join(worker.lines)
