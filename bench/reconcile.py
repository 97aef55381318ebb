"""Benchmark: the run reconciler's cost per heartbeat with 10,000 jobs and 1,000 open runs
in the store. Prints one JSON object. See docs/PERFORMANCE.md.

    .venv/bin/python bench/reconcile.py [--jobs 10000] [--running 600] [--closed 200]
        [--missing 200] [--beats 5]

Setup (not timed): a fresh home and its embedded Temporal server (history on disk, real
describes over gRPC). ``--jobs`` jobs; ``--running`` JobPreparationWorkflow executions
really running (no worker polls the queue, so they stay running), ``--closed`` started
and terminated behind the store's back (each with a Score row still ``running`` under its
run id), and ``--missing`` runs recorded with a run id the server has never seen (the
describe is answered NOT_FOUND by the real server). All are recorded as started, so the
store holds running + closed + missing open runs.

Timed: ``reconcile_on_start`` (every open run described, up to 1,000: the closed ones
recorded as failed with their stage rows settled, the missing ones marked
``reconciled_not_found``), then ``--beats`` heartbeat passes of ``reconcile_runs``
(one listing of the queue's running executions, at most 200 describes, the orphan
comparison and the stop requests), and one listing alone. The machine's load average
is printed: describes compete with everything else for the same cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jobctrl.domain import ids
from jobctrl.domain.executions import WorkflowType
from jobctrl.domain.tenants import LOCAL
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, stage_states, workflow_runs
from jobctrl.worker import reconcile
from jobctrl.workflows import starts
from jobctrl.workflows.client import default_task_queue
from jobctrl.workflows.models import PrepInput
from support import embedded_temporal, fresh_home


def _create_jobs(store, n: int) -> list[tuple[str, str]]:
    made: list[tuple[str, str]] = []
    for start in range(0, n, 500):
        with store.write() as tx:
            for i in range(start, min(n, start + 500)):
                job = jobs.create_job_in(tx, f"https://bench.example/jobs/{i}")
                made.append((job.job_id, job.idempotency_key))
    return made


async def _start(client, job_id: str, key: str) -> str:
    handle = await client.start_workflow(
        "JobPreparationWorkflow",
        PrepInput(job_id, key),
        id=ids.prep_workflow_id(key, LOCAL),
        task_queue=default_task_queue(),
    )
    return handle.result_run_id or ""


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--running", type=int, default=600)
    parser.add_argument("--closed", type=int, default=200)
    parser.add_argument("--missing", type=int, default=200)
    parser.add_argument("--beats", type=int, default=5)
    args = parser.parse_args()
    logging.getLogger("jobctrl").setLevel(logging.ERROR)  # one line per settled pass
    home, store = fresh_home("jobctrl-bench-reconcile-")
    setup = time.perf_counter()
    made = _create_jobs(store, args.jobs)
    async with embedded_temporal(home) as (client, _):
        gate = asyncio.Semaphore(16)
        live = made[: args.running + args.closed]

        async def start(job: tuple[str, str]) -> str:
            async with gate:
                return await _start(client, *job)

        run_ids = await asyncio.gather(*(start(job) for job in live))
        with store.write() as tx:
            for (job_id, key), run_id in zip(live, run_ids, strict=True):
                workflow_runs.record_started(
                    tx,
                    workflow_id=ids.prep_workflow_id(key, LOCAL),
                    run_id=run_id,
                    workflow_type=WorkflowType.PREPARATION.value,
                    job_id=job_id,
                )
            missing = made[len(live) : len(live) + args.missing]
            for job_id, key in missing:
                workflow_runs.record_started(
                    tx,
                    workflow_id=ids.prep_workflow_id(key, LOCAL),
                    run_id=str(uuid.uuid4()),
                    workflow_type=WorkflowType.PREPARATION.value,
                    job_id=job_id,
                )
        closed = list(zip(live[args.running :], run_ids[args.running :], strict=True))
        for (job_id, _key), run_id in closed:
            with store.write() as tx:
                stage_states.ensure_stages(tx, job_id, ["score"])
            stage_states.claim_stage(store, job_id, "score", run_id)

        async def terminate(key: str, run_id: str) -> None:
            async with gate:
                handle = client.get_workflow_handle(ids.prep_workflow_id(key, LOCAL), run_id=run_id)
                await handle.terminate()

        await asyncio.gather(*(terminate(key, run_id) for (_, key), run_id in closed))
        opened = len(workflow_runs.open_runs(store))
        setup_s = time.perf_counter() - setup

        ctx = StageContext(home=home, store=store)
        clock, used = time.perf_counter(), time.process_time()
        await reconcile.reconcile_on_start(client, ctx)
        start_ms = (time.perf_counter() - clock) * 1000
        start_cpu_ms = (time.process_time() - used) * 1000
        beats: list[float] = []
        cpu: list[float] = []
        probed: list[int] = []
        for _ in range(args.beats):
            clock, used = time.perf_counter(), time.process_time()
            done = await reconcile.reconcile_runs(client, ctx)
            beats.append((time.perf_counter() - clock) * 1000)
            cpu.append((time.process_time() - used) * 1000)
            probed.append(done["probed"])
        clock = time.perf_counter()
        listed = len(await starts.running_on_queue(client))
        listing_ms = (time.perf_counter() - clock) * 1000
        still_open = workflow_runs.open_runs(store)
        statuses: dict[str, int] = {}
        for row in still_open:
            statuses[row["status"]] = statuses.get(row["status"], 0) + 1

    print(
        json.dumps(
            {
                "jobs": args.jobs,
                "open_runs": opened,
                "really_running": args.running,
                "closed_behind_the_store": args.closed,
                "not_found_by_the_server": args.missing,
                "setup_s": round(setup_s, 1),
                "start_pass": {
                    "ms": round(start_ms, 1),
                    "runs_described": opened,
                    "ms_per_run": round(start_ms / max(1, opened), 2),
                    "worker_cpu_ms": round(start_cpu_ms, 1),
                },
                "beats": {
                    "count": len(beats),
                    "describes_per_beat": probed,
                    "ms_median": round(statistics.median(beats), 1),
                    "ms_max": round(max(beats), 1),
                    "worker_cpu_ms_median": round(statistics.median(cpu), 1),
                    "ms_per_run_described": round(statistics.median(beats) / max(1, probed[0]), 2),
                    "queue_listing_ms": round(listing_ms, 1),
                    "queue_listed": listed,
                },
                "open_after": statuses,
                "cpus": os.cpu_count(),
                "load_average_1m": round(os.getloadavg()[0], 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
