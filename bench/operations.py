"""Benchmark: `GET /v1/pipeline/operations` over a store of 20,000 jobs.

The store is bench/api.py's (jobs written through the real write path: a tenth through
`jobs.create_job`, the rest batched with every Enrich/Score event), plus what the snapshot
reads besides: a closed Discover execution whose cohorts hold 2,000 observed jobs and 500
swept ones, 1,000 open preparation runs in `workflow_run_projections`, successful stage
rows with their start and finish times (the ETA's samples) and a fresh worker heartbeat.
The server is the real app under uvicorn in a spawned process; latency is measured over
one keep-alive connection against the framework's floor (a 404) in the same run, and the
snapshot's own parts are timed in this process.

It also measures, in its own database, the same without migration 0038's index on
``operational_attempt_metrics (tenant_id, stage, outcome, finished_at)`` (the duration
samples' read since issue 34: every successful attempt, not only a stage's last), for the
before/after figures.

    .venv/bin/python bench/operations.py [--jobs 20000] [--requests 200] [--keep]
    .venv/bin/python bench/operations.py --reuse HOME   # a kept home, no seeding
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert, select, text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api import _serve, measure, seed
from jobctrl.app.operations import operations_snapshot
from jobctrl.domain.clock import utcnow
from jobctrl.domain.discovery import Cohort, DiscoverFinish, ExecutionRef
from jobctrl.domain.runtime import home_identity
from jobctrl.home import Home
from jobctrl.store import discovery, runtime, schema
from jobctrl.store import operations as ops_store
from jobctrl.store.store import Store
from support import fresh_home, spawned

SEED = 13
REF = ExecutionRef("local", "discover-local", "bench-run")
OBSERVED, SWEPT, OPEN_RUNS = 2000, 500, 1000


def extras(home: Home, store: Store, rng: random.Random) -> dict[str, Any]:
    """The rows the snapshot reads besides the jobs: cohorts, open runs, durations, beat."""
    with store.read() as conn:
        ids = [r[0] for r in conn.execute(select(schema.jobs.c.id).order_by(schema.jobs.c.id))]
    rng.shuffle(ids)
    discovery.open_run(store, REF, ["greenhouse", "lever"], 4, 1, 2)
    with store.write() as tx:
        for i, job_id in enumerate(ids[: OBSERVED + SWEPT]):
            cohort = Cohort.OBSERVED if i < OBSERVED else Cohort.BACKLOG
            discovery.link_member(tx, REF, job_id, cohort)
        now = tx.now
        tx.conn.execute(
            insert(schema.workflow_run_projections),
            [
                {
                    "workflow_id": f"prep-bench-{job_id}",
                    "run_id": f"run-{i}",
                    "workflow_type": "JobPreparationWorkflow",
                    "job_id": job_id,
                    "status": "running",
                    "started_at": now,
                    "last_seq": 0,
                }
                for i, job_id in enumerate(ids[-OPEN_RUNS:])
            ],
        )
        # Successful rows get the start and finish times the stages stamp: 2-40 s apart,
        # spread over the last 10 days.
        tx.conn.execute(
            text(
                "UPDATE job_stage_states SET "
                "finished_at = datetime(:now, '-' || (abs(random()) % 864000) || ' seconds') "
                "WHERE state = 'succeeded'"
            ),
            {"now": now.strftime("%Y-%m-%d %H:%M:%S")},
        )
        tx.conn.execute(
            text(
                "UPDATE job_stage_states SET started_at = "
                "datetime(finished_at, '-' || (2 + abs(random()) % 38) || ' seconds') "
                "WHERE state = 'succeeded'"
            )
        )
        # The samples are read from the attempt metrics: one successful attempt per such
        # row (what the fold keeps), with those times.
        tx.conn.execute(text("DELETE FROM operational_attempt_metrics"))
        tx.conn.execute(
            text(
                "INSERT INTO operational_attempt_metrics (tenant_id, job_id, stage, run_id, "
                "attempt, outcome, started_at, finished_at, duration_seconds, last_seq) "
                "SELECT tenant_id, job_id, stage, 'bench', 1, 'succeeded', started_at, "
                "finished_at, (julianday(finished_at) - julianday(started_at)) * 86400, 0 "
                "FROM job_stage_states WHERE state = 'succeeded'"
            )
        )
    discovery.finish_run(store, DiscoverFinish(REF, "completed", None, {}))
    beat = utcnow()
    runtime.publish(
        store,
        {
            "worker_id": "bench:1:ops",
            "home_id": home_identity(home),
            "task_queue": os.environ["JOBCTRL_TASK_QUEUE"],
            "started_at": beat - timedelta(minutes=1),
            "beat_at": beat,
            "interval_seconds": 3600.0,  # stays fresh for the whole bench
            "active_slots": 12,
            "capacity": 16,
            "items_total": 0,
            "items": [],
            "durations": {},
            "queue": {"workflowPollers": 1, "activityPollers": 1, "backlog": 0},
        },
    )
    return {"observed": OBSERVED, "swept": SWEPT, "open_runs": OPEN_RUNS}


def parts_ms(home: Home, store: Store, n: int = 30) -> dict[str, float]:
    """Median ms of the snapshot and of its store reads, in this process."""
    execution = ops_store.selected_execution(store)
    now = utcnow()
    parts = {
        "snapshot": lambda: operations_snapshot(home),
        "selected_execution": lambda: ops_store.selected_execution(store),
        "scope_counts": lambda: ops_store.scope_counts(
            store, execution, non_retryable=frozenset(), max_auto_attempts=3
        ),
        "duration_samples": lambda: ops_store.duration_samples(store, now),
        "materials_pass_rate": lambda: ops_store.materials_pass_rate(store),
    }
    out = {}
    for name, fn in parts.items():
        fn()
        times = []
        for _ in range(n):
            started = time.perf_counter()
            fn()
            times.append((time.perf_counter() - started) * 1000)
        out[name] = round(statistics.median(times), 2)
    return out


# Migration 0038's index, which the duration samples read instead of scanning a tenant's
# attempts by their finish: dropped for the "before" figures, then put back.
INDEX = "ix_attempt_metrics_stage"
CREATE_INDEX = (
    f"CREATE INDEX IF NOT EXISTS {INDEX} "
    "ON operational_attempt_metrics (tenant_id, stage, outcome, finished_at)"
)


def _serve_and_measure(home: Home, n_requests: int) -> dict[str, Any]:
    paths = {"floor_404": "/v1/no-such-route", "operations": "/v1/pipeline/operations"}
    with (
        spawned(_serve, str(home.root), False) as (base_url, _),
        httpx.Client(base_url=base_url, timeout=30) as client,
    ):
        return measure(client, paths, n_requests, warmup=10, budget_s=90)


def main(n_jobs: int, n_requests: int, keep: bool, reuse: str | None) -> dict[str, Any]:
    os.environ.pop("JOBCTRL_DATABASE_URL", None)
    figures: dict[str, Any] = {}
    if reuse:  # a home an earlier run kept (--keep): no seeding
        os.environ["JOBCTRL_HOME"] = reuse
        home = Home.resolve()
        store = Store.open(home)
        os.environ["JOBCTRL_TASK_QUEUE"] = runtime.heartbeat_rows(store)[0]["task_queue"]
    else:
        home, store = fresh_home()
        rng = random.Random(SEED)
        figures["seed"] = seed(store, n_jobs, rng)
        figures["extras"] = extras(home, store, rng)
    snap = operations_snapshot(home)
    figures["snapshot"] = {
        "phase": snap.phase,
        "scopes": {k: v.jobs for k, v in snap.scopes.items()},
        "eta": {k: getattr(snap.eta, k) for k in ("state", "low", "high", "reason")},
        "runtime": snap.runtime.state,
    }
    print(json.dumps(figures["snapshot"]))
    figures["in_process_ms"] = parts_ms(home, store)
    figures["get_ms"] = _serve_and_measure(home, n_requests)
    print(f"as shipped, in-process median ms: {json.dumps(figures['in_process_ms'])}")
    print(f"as shipped, GET ms: {json.dumps(figures['get_ms'])}")
    with store.write() as tx:
        tx.conn.execute(text(f"DROP INDEX IF EXISTS {INDEX}"))
    figures["in_process_ms_before_0038"] = parts_ms(home, store)
    figures["get_ms_before_0038"] = _serve_and_measure(home, n_requests)
    with store.write() as tx:
        tx.conn.execute(text(CREATE_INDEX))
    print(f"without {INDEX} (before migration 0038):")
    print(f"  in-process median ms: {json.dumps(figures['in_process_ms_before_0038'])}")
    print(f"  GET ms: {json.dumps(figures['get_ms_before_0038'])}")
    store.dispose()
    if keep or reuse:
        print(f"the home is kept: {home.root}")
    else:
        shutil.rmtree(home.root, ignore_errors=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--keep", action="store_true", help="keep the home (and its database)")
    parser.add_argument("--reuse", help="measure a home an earlier --keep run left (no seeding)")
    args = parser.parse_args()
    print(json.dumps(main(args.jobs, args.requests, args.keep, args.reuse)))
