"""kill -9 the worker while Score runs: a new worker finishes the job, the score once."""

from __future__ import annotations

import asyncio
import signal

from sqlalchemy import func, select

from jobctrl.app.jobs import add_job
from jobctrl.store import schema, stage_states, tenancy
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess
from tests.support.waiting import eventually_async


async def test_kill_9_during_score_then_a_new_worker_finishes(
    home, store, client, task_queue, fast_settings, site
):
    fast_settings.set_value("providers.offline.latency_ms", 3000)
    fast_settings.set_value("worker.heartbeat_timeout_seconds", 1.5)
    fast_settings.set_value("retry.max_attempts", 3)
    url = site.add("/jobs/crash", Route(body=posting_html("Data Engineer", "Crashy", ["Python"])))

    first = WorkerProcess()
    first.wait_ready()
    view = await add_job(home, url)
    job_id = view.job_id

    def score_running() -> bool:
        return any(
            r["stage"] == "score" and r["state"] == "running"
            for r in stage_states.stage_rows(store, job_id)
        )

    await eventually_async(score_running, 60, what="Score to run")
    first.proc.kill()  # SIGKILL: no cleanup at all
    first.proc.wait()

    second = WorkerProcess()
    second.wait_ready()
    handle = client.get_workflow_handle(view.workflow_id)
    result = await asyncio.wait_for(handle.result(), 60)
    assert result["outcome"] in ("prepared", "skipped")

    rows = {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}
    assert rows["score"]["state"] == "succeeded"
    assert rows["score"]["attempts"] == 2, "the killed attempt counts, the second one finished"
    assert not [r for r in rows.values() if r["state"] == "running"]
    e = schema.job_events
    with store.read() as conn:
        scored = conn.execute(
            select(func.count()).where(
                tenancy.scoped(e, conn), e.c.job_id == job_id, e.c.type == "JobScored"
            )
        ).scalar_one()
        scores = conn.execute(
            select(func.count())
            .select_from(schema.job_scores)
            .where(tenancy.scoped(schema.job_scores, conn), schema.job_scores.c.job_id == job_id)
        ).scalar_one()
    assert (scored, scores) == (1, 1)
    assert second.stop(signal.SIGTERM) == 0, "the worker shuts down cleanly on SIGTERM"
