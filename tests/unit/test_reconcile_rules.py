"""The reconciler's rules that need no Temporal server: how a verdict folds into the run
row (and a rebuild gives the same rows), which observed executions are ours to adopt,
the orphan set being replaced, discovery progress that only moves forward, and the HTTP
and CLI surfaces of orphans and stop requests."""

from __future__ import annotations

import asyncio
import functools
import json
from datetime import UTC, datetime, timedelta

import httpx
from click.testing import CliRunner
from sqlalchemy import select

from jobctrl.api.app import create_app
from jobctrl.cli import main
from jobctrl.domain import ids
from jobctrl.domain.discovery import ExecutionRef
from jobctrl.store import (
    discovery,
    orphans,
    projections,
    run_verdicts,
    schema,
    tenancy,
    workflow_runs,
)
from jobctrl.worker import reconcile
from jobctrl.workflows.starts import ObservedRun

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _rows(store) -> list[dict]:
    wr = schema.workflow_run_projections
    with store.read() as conn:
        read = select(wr).where(tenancy.scoped(wr, conn)).order_by(wr.c.workflow_id)
        return [dict(r) for r in conn.execute(read).mappings()]


def test_a_provisional_verdict_is_replaced_by_the_real_end_and_a_rebuild_agrees(store) -> None:
    workflow_runs.record_workflow_started(
        store, workflow_id="prep-a", run_id="r1", workflow_type="JobPreparationWorkflow",
        job_id=None,
    )  # fmt: skip
    assert run_verdicts.reconcile(store, "prep-a", "r1", "reconciled_not_found")
    assert not run_verdicts.reconcile(store, "prep-a", "r1", "reconciled_not_found")
    assert workflow_runs.run_row(store, "prep-a", "r1")["status"] == "reconciled_not_found"
    assert [r["run_id"] for r in workflow_runs.open_runs(store)] == ["r1"]
    assert run_verdicts.reconcile(store, "prep-a", "r1", "canceled")
    assert workflow_runs.run_row(store, "prep-a", "r1")["status"] == "canceled"
    assert not run_verdicts.reconcile(store, "prep-a", "r1", "failed"), "closed: left alone"
    incremental = _rows(store)
    with store.write() as tx:
        projections.rebuild(tx.conn)
    assert _rows(store) == incremental


def test_executions_of_ours_are_adopted_others_are_not() -> None:
    def run(workflow_id: str, workflow_type: str) -> ObservedRun:
        return ObservedRun(workflow_id, "r", workflow_type, T0)

    key = "ab" * 32
    for tenant in ("local", "acme"):
        adoptable = functools.partial(reconcile._adoptable, tenant=tenant)
        other = "acme" if tenant == "local" else "local"
        discover = ids.discover_workflow_id(tenant)
        prep = ids.prep_workflow_id(key, tenant)
        loop = ids.apply_loop_id(tenant)
        assert adoptable(run(discover, "DiscoverWorkflow")) == ("DiscoverWorkflow", None)
        assert adoptable(run(prep, "JobPreparationWorkflow")) == (
            "JobPreparationWorkflow",
            ids.job_id_for(key),
        )
        assert adoptable(run(loop, "ApplyWorkflow")) == ("ApplyWorkflow", None)
        scheduled = f"{discover}-2026-12-01T12:00:00Z"  # a schedule's start
        assert adoptable(run(scheduled, "DiscoverWorkflow")) == ("DiscoverWorkflow", None)
        assert adoptable(run("discover-other", "DiscoverWorkflow")) is None
        assert adoptable(run(prep, "ApplyWorkflow")) is None
        assert adoptable(run("stray", "SomethingElse")) is None
        # Another tenant's executions are never adopted into this one's store.
        assert adoptable(run(ids.discover_workflow_id(other), "DiscoverWorkflow")) is None
        assert adoptable(run(ids.prep_workflow_id(key, other), "JobPreparationWorkflow")) is None
        assert adoptable(run(ids.apply_loop_id(other), "ApplyWorkflow")) is None


def test_the_queue_listing_is_parted_by_tenant() -> None:
    def run(workflow_id: str) -> ObservedRun:
        return ObservedRun(workflow_id, "r", "JobPreparationWorkflow", T0)

    key = "ab" * 16
    listed = [
        run(ids.prep_workflow_id(key, "local")),
        run(ids.prep_workflow_id(key, "acme")),
        run(ids.prep_workflow_id(key, "gone")),  # a tenant that does not exist: local's
        run("stray"),  # no jobctrl id: the operator's (local)
        run(f"{ids.discover_workflow_id('acme')}-2026-12-01T12:00:00Z"),
    ]
    parts = reconcile.by_tenant(listed, ["local", "acme"])
    assert [r.workflow_id for r in parts["acme"]] == [
        f"prep-acme-{key}",
        "discover-acme-2026-12-01T12:00:00Z",
    ]
    assert [r.workflow_id for r in parts["local"]] == [f"prep-{key}", f"prep-gone-{key}", "stray"]


def test_the_orphan_set_is_replaced_and_each_keeps_when_it_was_first_seen(store) -> None:
    a = orphans.Observed("a", "r1", "ApplyWorkflow", T0)
    b = orphans.Observed("b", "r2", "ApplyWorkflow", T0)
    orphans.replace_orphans(store, [a], T0)
    orphans.replace_orphans(store, [a, b], T0 + timedelta(minutes=1))
    assert [o.workflow_id for o in orphans.orphans(store)] == ["a", "b"]
    orphans.replace_orphans(store, [b], T0 + timedelta(minutes=2))
    [only] = orphans.orphans(store)
    assert only.workflow_id == "b" and only.last_seen_at.isoformat().startswith("2026-12-01T12:02")


def test_discovery_progress_never_moves_backwards(store) -> None:
    ref = ExecutionRef("local", "discover-local", "r1")
    discovery.open_run(store, ref, ["feed", "lever"], 4, 1, 2)
    for done in (2, 1, 3, 0):
        with store.write() as tx:
            discovery.advance(tx, ref, done)
    discovery.open_run(store, ref, ["feed"], 3, 2, 1)  # a retried plan changes nothing
    [row] = discovery.recent_runs(store)
    assert (row["progress_done"], row["progress_total"]) == (3, 4)


async def test_executions_over_http_and_the_command_line(home, store) -> None:
    orphans.replace_orphans(store, [orphans.Observed("stray", "r9", "ApplyWorkflow", T0)], T0)
    app = create_app(home, port=8765)
    token = (home.root / "api-token").read_text().strip()
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8765"
    ) as api:
        listed = (await api.get("/v1/executions")).json()
        assert [o["workflowId"] for o in listed["orphans"]] == ["stray"]
        assert listed["openRuns"] == [] and listed["stopRequests"] == []
        # A stop describes the execution first (tests/integration/test_executions_stop.py):
        # with no Temporal server it is refused (503) and records nothing.
        stopped = await api.post("/v1/executions/stray/stop", headers=auth)
        assert stopped.status_code == 503
        unknown = await api.post("/v1/executions/nothing/stop", headers=auth)
        assert unknown.status_code == 404
        named = await api.post("/v1/executions/nothing/stop", headers=auth, json={"runId": "r1"})
        assert named.status_code == 503
        odd = await api.post("/v1/executions/x/stop", headers=auth, json={"run": "r1"})
        assert odd.status_code == 422
    shown = CliRunner().invoke(main, ["executions", "--json"])
    assert shown.exit_code == 0
    view = json.loads(shown.output)
    assert view["stopRequests"] == []
    stop = ["executions", "stop", "stray", "--json"]  # asyncio.run: off this test's loop
    again = await asyncio.to_thread(CliRunner().invoke, main, stop)
    assert again.exit_code == 2 and "no Temporal server" in again.output
    text = CliRunner().invoke(main, ["executions"])
    assert "orphan stray (run r9" in text.output
