"""Automatic recovery latency: from a stage failing to its re-dispatch by the heartbeat.

A jobctrl worker runs in this process (embedded Temporal server, history on disk) with
its heartbeat at ``--beat`` seconds and the recovery backoff base shrunk to
``--backoff`` seconds (``JOBCTRL_RECOVERY_BACKOFF_BASE_SECONDS``; production is 60 s, so
a first retry waits 60 s). Jobs' Enrich rows fail (retryable, as a timeout would) one
every ``--every`` seconds; the posting answers, so each recovery succeeds. For each
failure: the time to its ``StageQueued`` (reserved in a cohort) and to its
``StageStarted`` (the recovery's attempt claimed it), from the failure's own commit (all
three are event timestamps of one clock). Minus the backoff, what is left is the
heartbeat's wait plus the dispatch.

Then the cost of one recovery step in a large store: ``--jobs`` jobs, a tenth of them
failed retryable, timed for the eligibility read and the cohort reservation (25 rows,
one write transaction over the rows the read chose, as the heartbeat does).

    .venv/bin/python bench/recovery.py      # --failures 30 --every 0.37 --beat 1 --backoff 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from jobctrl.demo.postings import generate_postings
from jobctrl.domain import errors
from jobctrl.store import jobs, recovery, schema, stage_states
from jobctrl.store.store import Store
from jobctrl.testing import hooks
from jobctrl.worker.heartbeat import WorkerHeartbeat
from jobctrl.worker.run import build_worker
from support import LOOPBACK_FETCH, embedded_temporal, fresh_home, posting_site

SEED = 13


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": percentile(values, 0.5),
        "p90": percentile(values, 0.9),
        "max": round(max(values), 3),
        "mean": round(statistics.fmean(values), 3),
    }


def fail(store: Store, job_id: str, stage: str = "enrich") -> None:
    claim = stage_states.claim_stage(store, job_id, stage, "run-gone")
    error = errors.StageError(errors.ENRICH_TIMEOUT, "timed out", retryable=True)
    stage_states.fail_stage(store, job_id, stage, "run-gone", claim.attempt, error)


def event_times(store: Store, type_: str, stage: str) -> dict[str, list[datetime]]:
    e = schema.job_events
    found: dict[str, list[datetime]] = {}
    with store.read() as conn:
        for job_id, payload, at in conn.execute(
            select(e.c.job_id, e.c.payload, e.c.occurred_at)
            .where(e.c.type == type_)
            .order_by(e.c.seq)
        ):
            if payload.get("stage") == stage:
                found.setdefault(job_id, []).append(at)
    return found


async def latency(args: argparse.Namespace) -> dict[str, Any]:
    os.environ[hooks.RECOVERY_BACKOFF_BASE_SECONDS] = str(args.backoff)
    os.environ[hooks.RECOVERY_PENDING_GRACE_SECONDS] = str(args.backoff)
    home, store = fresh_home(
        "jobctrl-bench-recovery-",
        {
            **LOOPBACK_FETCH,
            "worker.heartbeat_seconds": args.beat,
            "availability.enabled": False,
            "preparation.materials": False,
            "pipeline_internal_concurrency": args.concurrency,
        },
    )
    pages = list(generate_postings(args.failures, seed=SEED))
    with posting_site(args.failures, SEED) as base_url:
        urls = [base_url + path for path in pages]
        job_ids = [jobs.create_job(store, url).job_id for url in urls]
        async with embedded_temporal(home) as (client, _):
            worker, ctx = build_worker(client, store, home)
            beat = WorkerHeartbeat(client, ctx)
            stop = asyncio.Event()
            async with worker:
                beating = asyncio.create_task(beat.run(stop))
                for job_id in job_ids:
                    await asyncio.to_thread(fail, store, job_id)
                    await asyncio.sleep(args.every)
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    done = await asyncio.to_thread(enriched, store, job_ids)
                    if done == len(job_ids):
                        break
                    await asyncio.sleep(0.2)
                stop.set()
                await beating
            ctx.close()
    failed = event_times(store, "StageFailed", "enrich")
    queued = event_times(store, "StageQueued", "enrich")
    started = event_times(store, "StageStarted", "enrich")
    to_queued, to_started, cohorts = [], [], set()
    for job_id in job_ids:
        failed_at = failed[job_id][0]
        to_queued.append((queued[job_id][0] - failed_at).total_seconds())
        to_started.append((started[job_id][1] - failed_at).total_seconds())  # [0]: the failure
    with store.read() as conn:
        cohorts = set(conn.execute(select(recovery.RC.c.workflow_id)).scalars())
    return {
        "settings": {
            "heartbeatSeconds": args.beat,
            "backoffBaseSeconds": args.backoff,
            "failures": args.failures,
            "failEverySeconds": args.every,
            "pipelineInternalConcurrency": args.concurrency,
        },
        "recovered": await asyncio.to_thread(enriched, store, job_ids),
        "cohorts": len(cohorts),
        "failureToReservedSeconds": summary(to_queued),
        "failureToReservedMinusBackoff": summary([t - args.backoff for t in to_queued]),
        "failureToClaimedSeconds": summary(to_started),
    }


def enriched(store: Store, job_ids: list[str]) -> int:
    rows = [r for j in job_ids for r in stage_states.stage_rows(store, j) if r["stage"] == "enrich"]
    return sum(1 for r in rows if r["state"] == "succeeded")


def step_cost(n_jobs: int) -> dict[str, Any]:
    """The heartbeat's read and reservation in a store of ``n_jobs`` jobs."""
    _, store = fresh_home("jobctrl-bench-recovery-cost-")
    with store.write() as tx:
        ids = [jobs.create_job_in(tx, f"https://jobs.example/{n}").job_id for n in range(n_jobs)]
    for job_id in ids[: n_jobs // 10]:
        fail(store, job_id)
    later = datetime.now(UTC) + timedelta(hours=1)
    reads, reserves = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        found = recovery.eligible(store, later, stage_limit=3)
        reads.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        among = [c.job_id for c in found][:25]  # as the heartbeat does
        cohort = recovery.reserve_cohort(
            store, stage_limit=3, stages=("enrich",), among=among, clock=lambda: later
        )
        reserves.append((time.perf_counter() - t0) * 1000)
        assert found and cohort is not None and len(cohort.job_ids) == 25
    return {
        "jobs": n_jobs,
        "failedRetryable": n_jobs // 10,
        "eligibleReadMs": summary(reads),
        "reserveCohortMs": summary(reserves),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--failures", type=int, default=30)
    parser.add_argument("--every", type=float, default=0.37)
    parser.add_argument("--beat", type=float, default=1.0)
    parser.add_argument("--backoff", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=10_000)
    # Attempts recovery runs at once, shared by its cohorts (the setting's default: 1).
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(latency(args))
    if args.jobs:  # 0: latency only
        result["stepCost"] = step_cost(args.jobs)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
