"""Benchmark: jobs/s of full preparation (Enrich, Score, Tailor, Cover, PDF; offline
provider, loopback postings) by 1, 2 and 3 `jobctrl worker` processes sharing one Temporal
dev server, on SQLite and on PostgreSQL, with a store already holding ``--fill`` jobs.
Issue 14; see docs/PERFORMANCE.md.

    .venv/bin/python bench/workers_scale.py [--fill 10000] [--jobs 60] [--workers 1,2,3]
        [--stores sqlite,postgres] [--json]

Per store: a fresh home (SQLite in it, or a new database on the tests' throwaway
PostgreSQL server, tests/support/postgres.py), prefilled with ``--fill`` jobs written
straight into the store in batches of 250 (multi-row INSERTs in one write transaction,
folded by the store's own fold at commit), each *prepared*: five stage rows succeeded;
JobCreated, JobEnriched, JobScored and each stage's StageStarted and StageSucceeded in
the event log and the projections; no start intent, no material rows, no Temporal
history. Nothing puts them on the queue again. Then, per worker count, that
many `jobctrl worker` processes (the real entry point, JOBCTRL_TEMPORAL_ADDRESS naming the
home's embedded Temporal server, JOBCTRL_DATABASE_URL the database: what a deployment on
several hosts sets) are started and waited for; 2 × workers jobs warm them up; then a
client process adds ``--jobs`` postings and waits for all of them
(`jobctrl add --wait`'s service, app.jobs.add_jobs). jobs/s is ``--jobs`` / that wait.

CPU seconds per job, per process tree, over the measured window: each worker, the
Temporal server, the PostgreSQL server (postmaster, backends and the backends it has
reaped) and the client. The posting site runs in its own process, uncounted (it stands
for the internet). The ratio column is each rate over 1 worker on SQLite in the same run.
On a 2-core machine more workers cannot add cores: the figure is the overhead of sharing
the work (leases, the writers' lock, polling), and the CPU per job says what more cores
or hosts would buy.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import multiprocessing
import os
import random
import signal
import sys
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import insert

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support.processes
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tests.support.processes import WorkerProcess

from api import _posting
from jobctrl.app.jobs import add_jobs
from jobctrl.demo.postings import generate_postings
from jobctrl.domain import ids
from jobctrl.domain.events import (
    JobCreated,
    JobEnriched,
    JobScored,
    StageStarted,
    StageSucceeded,
)
from jobctrl.domain.stages import LATER_STAGES, PREPARATION_STAGES, Stage
from jobctrl.home import Home
from jobctrl.store import schema
from jobctrl.store.projections import AppendedEvent
from jobctrl.store.store import Store, WriteTx, event_key
from support import (
    LOOPBACK_FETCH,
    TreeCpu,
    embedded_temporal,
    emit,
    fresh_home,
    parse_with_stores,
    posting_site,
    store_server,
    use_store,
)

SEED = 14
BATCH = 250  # fill jobs per write transaction
WARMUP_PER_WORKER = 2
STAGES = (*PREPARATION_STAGES, *LATER_STAGES)  # a prepared job's five
SETTINGS = {
    **LOOPBACK_FETCH,
    "min_fit_score": 0,  # every job goes through all five stages
    "availability.enabled": False,  # no sweep of the fill's (made-up) posting URLs
}


# -- the fill ------------------------------------------------------------------------------


def _job(tx: WriteTx, rng: random.Random, i: int) -> tuple[dict[str, Any], list[Any]]:
    """One prepared job: its ``jobs`` row and its events with their keys, in order."""
    url, posting = _posting(rng, i)
    canonical = ids.canonical_url(url)
    key = ids.idempotency_key(canonical, tx.tenant)
    job_id = ids.job_id_for(key)
    run, sha = f"fill-{job_id}", hashlib.sha256(url.encode()).hexdigest()
    score = rng.randrange(40, 100)
    row = {"id": job_id, "idempotency_key": key, "url": url, "canonical_url": canonical}
    events: list[Any] = [
        (JobCreated(job_id=job_id, url=url, canonical_url=canonical, idempotency_key=key),
         f"job-created:{key}"),
    ]  # fmt: skip
    for stage in STAGES:
        at = f"{job_id}:{stage.value}:{run}:1"
        events.append((StageStarted(job_id=job_id, stage=stage.value, attempt=1, run_id=run),
                       f"stage-started:{at}"))  # fmt: skip
        if stage == Stage.ENRICH:
            enriched = JobEnriched(
                job_id=job_id, method="jsonld", raw_artifact=sha, text_artifact=sha, **posting
            )
            events.append((enriched, f"job-enriched:{job_id}:{run}:1"))
        elif stage == Stage.SCORE:
            scored = JobScored(
                job_id=job_id, score=score, verdict="fit", provider="offline",
                model="offline-v1", requirements_total=8,
                requirements_matched=round(score / 12.5), report_artifact=sha,
            )  # fmt: skip
            events.append((scored, f"job-scored:{job_id}:{run}:1"))
        events.append((StageSucceeded(job_id=job_id, stage=stage.value, attempt=1, run_id=run),
                       f"stage-succeeded:{at}"))  # fmt: skip
    return row, events


def fill(store: Store, n: int) -> dict[str, Any]:
    """``n`` prepared jobs in transactions of ``BATCH`` (see the module's docstring).

    Each table's rows of a batch go in one multi-row INSERT (one round trip, not one per
    row: PostgreSQL on loopback answers in a millisecond or more each); the events are the
    rows ``WriteTx.append`` writes, handed to the store's own fold at commit, so the
    projections are what a preparation leaves."""
    rng = random.Random(SEED)
    started = time.perf_counter()
    JE, S = schema.job_events, schema.job_stage_states
    for lo in range(0, n, BATCH):
        with store.write() as tx:
            made = [_job(tx, rng, i) for i in range(lo, min(lo + BATCH, n))]
            stamp = {"created_at": tx.now, "updated_at": tx.now, "tenant_id": tx.tenant}
            tx.conn.execute(
                insert(schema.jobs), [{**row, "source": "manual", **stamp} for row, _ in made]
            )
            stages = [
                {"job_id": row["id"], "stage": st.value, "state": "succeeded", "attempts": 1,
                 "owner_run_id": f"fill-{row['id']}", "started_at": tx.now,
                 "finished_at": tx.now, **stamp}
                for row, _ in made for st in STAGES
            ]  # fmt: skip
            tx.conn.execute(insert(S), stages)
            events = [e for _, evs in made for e in evs]
            rows = [
                {"event_id": str(uuid.uuid4()), "type": e.type, "job_id": e.job_id,
                 "payload": e.payload(), "idempotency_key": event_key(tx.tenant, key),
                 "occurred_at": tx.now, "tenant_id": tx.tenant}
                for e, key in events
            ]  # fmt: skip
            query = insert(JE).returning(JE.c.seq, sort_by_parameter_order=True)
            seqs = tx.conn.execute(query, rows).scalars().all()
            tx.appended.extend(
                AppendedEvent(seq, e, tx.now, tx.tenant)
                for seq, (e, _) in zip(seqs, events, strict=True)
            )
    seconds = time.perf_counter() - started
    return {"jobs": n, "seconds": round(seconds, 1), "jobs_per_s": round(n / seconds, 1)}


# -- the client process --------------------------------------------------------------------


def client_phase(urls: list[str]) -> dict[str, Any]:
    """Add ``urls`` and wait until every preparation has finished, in a fresh process (as
    each `jobctrl add --wait` is); the seconds, its CPU, and the jobs not fully prepared."""
    return asyncio.run(_client_phase(urls))


async def _client_phase(urls: list[str]) -> dict[str, Any]:
    home = Home.resolve()
    cpu = time.process_time()
    started = time.perf_counter()
    views = await add_jobs(home, urls, wait=True, wait_timeout=3600)
    elapsed = time.perf_counter() - started
    wanted = {s.value for s in STAGES}
    unprepared = [
        v.job_id for v in views if {s.stage for s in v.stages if s.state == "succeeded"} < wanted
    ]
    return {"elapsed": elapsed, "cpu": time.process_time() - cpu, "unprepared": unprepared}


# -- one store, each worker count ----------------------------------------------------------


async def run_phase(
    pool: ProcessPoolExecutor, urls: list[str], n_workers: int, fixed: dict[str, int]
) -> dict[str, Any]:
    """``n_workers`` workers: started, warmed up, measured on ``urls``' tail, stopped."""
    loop = asyncio.get_running_loop()
    workers: list[WorkerProcess] = []
    try:
        for _ in range(n_workers):  # one at a time: their imports compete for the cores
            workers.append(WorkerProcess())
            await asyncio.to_thread(workers[-1].wait_ready, 300)
        warm, measured = (
            urls[: WARMUP_PER_WORKER * n_workers],
            urls[WARMUP_PER_WORKER * n_workers :],
        )
        await loop.run_in_executor(pool, client_phase, warm)
        pids = {f"worker{i + 1}": w.proc.pid for i, w in enumerate(workers)}
        meter = TreeCpu({**pids, **fixed})
        run = await loop.run_in_executor(pool, client_phase, measured)
        cpu = meter.lap()
    finally:
        for w in workers:
            if w.proc.poll() is None:
                await asyncio.to_thread(w.stop, signal.SIGTERM, 60)
    n = len(measured)
    cpu["workers"] = round(sum(v for k, v in cpu.items() if k.startswith("worker")), 3)
    cpu["client"] = round(run["cpu"], 3)
    per_job = {k: round(v / n, 4) for k, v in cpu.items()}
    total = per_job["workers"] + sum(per_job.get(k, 0.0) for k in ("temporal", "postgres"))
    return {
        "workers": n_workers,
        "jobs": n,
        "seconds": round(run["elapsed"], 2),
        "jobs_per_s": round(n / run["elapsed"], 3),
        "unprepared": len(run["unprepared"]),
        "cpu_s_per_job": per_job,
        # Worker + Temporal + PostgreSQL CPU per job: the rate one core could sustain.
        "server_side_cpu_s_per_job": round(total, 4),
        "cpu_bound_jobs_per_s_per_core": round(1 / total, 2) if total else None,
    }


async def run_store(
    kind: str, pg: Any, n_fill: int, n_jobs: int, counts: list[int], pages: list[str]
) -> dict[str, Any]:
    use_store(kind, pg, f"bench_workers_{os.getpid()}")
    home, store = fresh_home("jobctrl-bench-workers-", settings=SETTINGS)
    out: dict[str, Any] = {"store": kind, "fill": fill(store, n_fill)}
    print(f"{kind}: filled {json.dumps(out['fill'])}", file=sys.stderr)
    spawn = multiprocessing.get_context("spawn")
    try:
        async with embedded_temporal(home) as (client, temporal_pid):
            os.environ["JOBCTRL_TEMPORAL_ADDRESS"] = client.service_client.config.target_host
            fixed = {"temporal": temporal_pid}
            if kind == "postgres":
                fixed["postgres"] = pg.process.pid
            out["phases"] = []
            first = 0
            for n in counts:
                urls = pages[first : first + n_jobs + WARMUP_PER_WORKER * n]
                first += len(urls)
                with ProcessPoolExecutor(1, mp_context=spawn, max_tasks_per_child=1) as pool:
                    phase = await run_phase(pool, urls, n, fixed)
                print(f"{kind}: {json.dumps(phase)}", file=sys.stderr)
                out["phases"].append(phase)
    finally:
        os.environ.pop("JOBCTRL_TEMPORAL_ADDRESS", None)
        store.dispose()
    return out


# -- the run -------------------------------------------------------------------------------


def _report(figures: dict[str, Any]) -> None:
    base = figures.get("baseline_jobs_per_s")
    print(f"\n{figures['jobs']} jobs per phase, {figures['fill']} prefilled, {os.cpu_count()} CPUs")
    print(
        f"{'store':<10}{'workers':>8}{'jobs/s':>9}{'ratio':>7}{'s':>8}"
        f"{'CPU s/job: workers':>20}{'temporal':>10}{'postgres':>10}{'client':>8}{'1/core':>8}"
    )
    for store in figures["stores"]:
        for p in store["phases"]:
            c = p["cpu_s_per_job"]
            ratio = f"{p['jobs_per_s'] / base:.2f}" if base else "-"
            print(
                f"{store['store']:<10}{p['workers']:>8}{p['jobs_per_s']:>9.2f}{ratio:>7}"
                f"{p['seconds']:>8.1f}{c['workers']:>20.3f}{c['temporal']:>10.3f}"
                f"{c.get('postgres', 0.0):>10.3f}{c['client']:>8.3f}"
                f"{p['cpu_bound_jobs_per_s_per_core'] or 0:>8.2f}"
            )
    print("ratio: jobs/s over 1 worker on SQLite in this run; 1/core: 1 / server-side CPU per job")


async def main(n_fill: int, n_jobs: int, counts: list[int], stores: list[str]) -> dict[str, Any]:
    need = sum(n_jobs + WARMUP_PER_WORKER * n for n in counts)
    figures: dict[str, Any] = {"fill": n_fill, "jobs": n_jobs, "cpus": os.cpu_count()}
    figures["stores"] = []
    with posting_site(need, SEED) as base_url:
        pages = [base_url + path for path in generate_postings(need, seed=SEED)]
        for kind in stores:
            with store_server(kind) as pg:
                figures["stores"].append(await run_store(kind, pg, n_fill, n_jobs, counts, pages))
    for store in figures["stores"]:
        for p in store["phases"]:
            if store["store"] == "sqlite" and p["workers"] == 1:
                figures["baseline_jobs_per_s"] = p["jobs_per_s"]
    base = figures.get("baseline_jobs_per_s")
    for store in figures["stores"]:
        for p in store["phases"]:
            p["ratio_vs_sqlite_1"] = round(p["jobs_per_s"] / base, 3) if base else None
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fill", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--workers", default="1,2,3", help="worker counts, comma-separated")
    args = parse_with_stores(parser, "sqlite,postgres")
    counts = [int(w) for w in args.workers.split(",")]
    emit(asyncio.run(main(args.fill, args.jobs, counts, args.stores)), args, _report)
