"""The existing-backlog sweep: Discover re-admits stale pending work nothing owns, in its
own cohort, and prepares it once; a job this run observed is never swept as well."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator

import pytest
from sqlalchemy import select, update
from temporalio.worker import Replayer

from jobctrl.app.sources import add_source
from jobctrl.demo.boards import DemoBoards, build_boards, posting_url_paths
from jobctrl.domain.discovery import ExecutionRef
from jobctrl.domain.stages import StageState
from jobctrl.store import backlog, jobs, schema, tenancy
from jobctrl.worker.run import WORKFLOWS
from jobctrl.workflows.converter import DATA_CONVERTER
from tests.support.http import Route, posting_html
from tests.support.processes import JOBCTRL

DEJ = schema.discovery_execution_jobs
WR = schema.workflow_run_projections
S = schema.job_stage_states

# Every test on SQLite and on PostgreSQL (tests/conftest.py): the sweep is the store's
# choice of stale pending work (the `jobctrl discover` subprocess inherits
# JOBCTRL_DATABASE_URL from the database_url fixture).
BOTH_STORES = True


@pytest.fixture
def board() -> Iterator[DemoBoards]:
    with DemoBoards(build_boards(boards=2, per_board=2, duplicate_share=0.0)[:1]) as b:
        yield b


def _create(store, url: str) -> str:
    """A job saved with nothing started for it (no execution, no start intent)."""
    with store.write() as tx:
        return jobs.create_job_in(tx, url).job_id


def _fail_enrich(store, job_id: str) -> None:
    with store.write() as tx:
        tx.conn.execute(
            update(S)
            .where(S.c.job_id == job_id, S.c.stage == "enrich", tenancy.scoped(S, tx.conn))
            .values(state=StageState.FAILED.value, error_code="FETCH_NOT_FOUND", retryable=False)
        )


async def _cli(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        JOBCTRL,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=os.environ.copy(),
    )
    out, err = await asyncio.wait_for(proc.communicate(), 180)
    return proc.returncode or 0, out.decode(), err.decode()


async def _wait_closed(store, job_id: str, timeout: float = 90) -> None:
    for _ in range(int(timeout / 0.2)):
        with store.read() as conn:
            mine = tenancy.scoped(WR, conn)
            rows = conn.execute(select(WR.c.status).where(mine, WR.c.job_id == job_id)).all()
        if rows and all(r.status != "running" for r in rows):
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"the preparation of {job_id} did not finish")


def _members(store, run_id: str) -> dict[str, tuple[str, str, str | None]]:
    with store.read() as conn:
        rows = conn.execute(
            select(DEJ.c.job_id, DEJ.c.cohort, DEJ.c.work_plan_state, DEJ.c.prep_workflow_id).where(
                tenancy.scoped(DEJ, conn), DEJ.c.discover_run_id == run_id
            )
        ).all()
    assert len({r.job_id for r in rows}) == len(rows), "one membership per job"
    return {r.job_id: (r.cohort, r.work_plan_state, r.prep_workflow_id) for r in rows}


async def test_discover_sweeps_stale_pending_work_once(
    home, store, worker, client, site, board, fast_settings
):
    for s in board.sources():
        add_source(home, s["kind"], s["name"], s["base_url"])
    stale = _create(store, site.add("/jobs/stale", Route(body=posting_html("SRE", "S", ["Go"]))))
    failed = _create(store, site.base_url + "/jobs/gone")
    _fail_enrich(store, failed)  # its Score waits behind a failed Enrich: not swept
    observed_url = board.base_url + sorted(posting_url_paths(board.boards))[0]
    observed = _create(store, observed_url)  # stale too, but this run observes it

    code, out, err = await _cli("discover", "--wait", "--json")
    assert code == 0, err
    run = json.loads(out)
    assert run["status"] == "completed"
    assert run["counts"]["backlog_swept"] == 1
    assert run["countsByStep"]["existing_backlog_sweep"]["backlog_started"] == 1

    members = _members(store, run["runId"])
    assert members[observed][0] == "observed_this_run", "observed wins over the sweep"
    cohort, plan, prep_id = members[stale]
    assert (cohort, plan) == ("existing_backlog", "planned")
    assert prep_id and prep_id.startswith("prepare-sweep-local-enrich-")
    assert failed not in members
    assert sum(1 for m in members.values() if m[0] == "existing_backlog") == 1

    await _wait_closed(store, stale)
    await _wait_closed(store, observed)
    with store.read() as conn:
        runs_of = {
            job_id: conn.execute(
                select(WR.c.workflow_id).where(tenancy.scoped(WR, conn), WR.c.job_id == job_id)
            ).all()
            for job_id in (stale, observed)
        }
        score = conn.execute(
            select(S.c.state).where(
                tenancy.scoped(S, conn), S.c.job_id == stale, S.c.stage == "score"
            )
        ).scalar_one()
        ps = schema.pipeline_step_projections
        steps = {
            r.step_kind: (r.state, r.counts)
            for r in conn.execute(
                select(ps).where(tenancy.scoped(ps, conn), ps.c.run_id == run["runId"])
            )
        }
    assert [r.workflow_id for r in runs_of[stale]] == [prep_id], "prepared once, by the sweep"
    assert len(runs_of[observed]) == 1, "an observed job is started once, not swept too"
    assert score == "succeeded", "the swept job was prepared"
    assert steps["existing_backlog_sweep"][0] == "completed"
    assert steps["existing_backlog_sweep"][1]["backlog_swept"] == 1

    # The execution with its sweep replays.
    history = await client.get_workflow_handle(
        run["workflowId"], run_id=run["runId"]
    ).fetch_history()
    result = await Replayer(workflows=WORKFLOWS, data_converter=DATA_CONVERTER).replay_workflow(
        history, raise_on_replay_failure=True
    )
    assert result.replay_failure is None

    # A second run: nothing stale is left, so nothing is swept again.
    code, out, err = await _cli("discover", "--wait", "--json")
    assert code == 0, err
    second = json.loads(out)
    assert second["counts"]["backlog_swept"] == 0
    assert not any(m[0] == "existing_backlog" for m in _members(store, second["runId"]).values())


def test_admission_is_bounded_oldest_first_and_idempotent(home, store, settings):
    ref = ExecutionRef("local", "discover-local", "run-1")
    made = [_create(store, f"https://jobs.example/{n}") for n in range(3)]
    with store.write() as tx:
        assert backlog.admit(tx, ref, 2) == 2
    with store.write() as tx:
        assert backlog.admit(tx, ref, 2) == 0, "a retried sweep links no more than its bound"
    swept = backlog.to_start(store, ref)
    assert [s.job_id for s in swept] == made[:2], "oldest first"
    assert len({s.workflow_id for s in swept}) == 2
    with store.read() as conn:
        si = schema.start_intents
        intents = conn.execute(select(si.c.workflow_id).where(tenancy.scoped(si, conn)))
        intents = intents.scalars().all()
    assert sorted(intents) == sorted(s.workflow_id for s in swept), "each start is intended"
    # Another execution does not sweep jobs with an unstarted intent (the worker owns them).
    other = ExecutionRef("local", "discover-local", "run-2")
    assert [c[0] for c in backlog.candidates(store, other, 10)] == [made[2]]


def test_work_something_else_owns_is_not_swept(home, store, settings):
    """An open run, a recovery reservation, a cancel, a closed posting, a waiting stage
    behind an unfinished one: each leaves the job alone."""
    ref = ExecutionRef("local", "discover-local", "run-x")
    ids = {name: _create(store, f"https://jobs.example/{name}") for name in
           ("open", "reserved", "canceled", "closed", "behind", "free", "scored")}  # fmt: skip
    with store.write() as tx:
        c, mine, jobs_ = tx.conn, tenancy.scoped(S, tx.conn), schema.jobs
        c.execute(WR.insert().values(workflow_id="prep-x", run_id="r", last_seq=0,
                                     workflow_type="JobPreparationWorkflow", job_id=ids["open"],
                                     status="reconciled_not_found", started_at=tx.now,
                                     tenant_id=tx.tenant))  # fmt: skip
        c.execute(
            update(S).where(S.c.job_id == ids["reserved"], mine).values(reserved_by="recover-1")
        )
        c.execute(
            update(S)
            .where(S.c.job_id == ids["canceled"], S.c.stage == "enrich", mine)
            .values(state="failed", error_code="canceled", retryable=False)
        )
        c.execute(
            update(jobs_)
            .where(jobs_.c.id == ids["closed"], tenancy.scoped(jobs_, c))
            .values(availability="unavailable")
        )
        c.execute(
            update(S)
            .where(S.c.job_id == ids["behind"], S.c.stage == "enrich", mine)
            .values(state="running")
        )
        c.execute(
            update(S)
            .where(S.c.job_id == ids["scored"], S.c.stage == "enrich", mine)
            .values(state="succeeded")
        )
    found = {job_id: stage for job_id, _key, stage in backlog.candidates(store, ref, 100)}
    assert found == {ids["free"]: "enrich", ids["scored"]: "score"}, "Score waits after Enrich"
