"""Benchmark: the CPU one beat of the lease holder's heartbeat costs with many tenants, 1 %
of them active (issue 31; docs/PERFORMANCE.md, "Issue 31 — idle tenants cost nothing").

    .venv/bin/python bench/tenants.py [--tenants 100,1000,10000] [--active 0.01]
        [--beats 3] [--before-up-to 1000] [--stores sqlite,postgres] [--json]

Per store, one home (SQLite in it, or a new database on the tests' throwaway PostgreSQL
server) and its embedded Temporal server. Tenants are added up to each size in turn (a
row and a config.yaml each, as `jobctrl tenants add` makes them, ``local`` counted). Every
tenant has a past: one saved job, checked an hour ago (its next check 23 h away). A share
``--active`` of them (1 %) has work on every beat: a saved job never checked (a check is
due) and ``auto_apply`` on (its standing apply loop, started by the first beat and then
listed as running: no worker polls the bench's task queue, so what a beat finds stays as
it is, beat after beat).

Per size and path a fresh heartbeat (``WorkerHeartbeat``) beats once to warm up (it starts
the loops and one availability sweep) and then ``--beats`` times. The paths: ``census``
(today's: one census, then each tenant's due duties) and ``every tenant`` (the path before
issue 31, ``every_tenant=True``: every duty for every tenant; run up to ``--before-up-to``
tenants, as it costs ≈ 33 ms a tenant). Printed per beat: this process's CPU
(``time.process_time``: the heartbeat and, on SQLite, the database it runs in-process), the
PostgreSQL server's CPU (its backends), the Temporal server's, and the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from datetime import timedelta
from typing import Any

from jobctrl import config as config_file
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import utcnow
from jobctrl.home import Home
from jobctrl.stages.context import StageContext
from jobctrl.store import availability, jobs, tenants
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.heartbeat import WorkerHeartbeat
from support import (
    TreeCpu,
    embedded_temporal,
    emit,
    fresh_home,
    parse_with_stores,
    store_server,
    use_store,
)


def tenant_name(i: int) -> str:
    return f"t{i:05d}"


def grow(home: Home, store: Store, first: int, last: int, every: int) -> int:
    """Add tenants ``first``..``last`` - 1 (``local`` is number 0); each ``every``-th one
    is active. Returns how many active ones were added."""
    checked = utcnow() - timedelta(hours=1)
    active = 0
    for i in range(first, last):
        name = tenant_name(i)
        tenants.add(store, name, None)
        config_file.write_template(home.with_tenant(name))
        own = store.for_tenant(name)
        past = jobs.create_job(own, f"https://jobs.example.com/{name}/past").job_id
        availability.record_check(own, past, Availability.ACTIVE, None, checked)
        if i % every == 1 % every:
            jobs.create_job(own, f"https://jobs.example.com/{name}/new")  # due: never checked
            Settings(own).set_value("auto_apply", True)
            active += 1
    return active


async def measure(
    client: Any, home: Home, store: Store, pids: dict[str, int], every_tenant: bool, beats: int
) -> dict[str, Any]:
    heartbeat = WorkerHeartbeat(
        client, StageContext(home=home, store=store), every_tenant=every_tenant
    )
    try:
        await heartbeat.beat()  # warm-up: starts the loops and a sweep
        laps: list[dict[str, float]] = []
        for _ in range(beats):
            meter = TreeCpu(pids)
            cpu, wall = time.process_time(), time.perf_counter()
            await heartbeat.beat()
            lap = meter.lap()
            laps.append(
                {
                    "cpu_s": time.process_time() - cpu,
                    "wall_s": time.perf_counter() - wall,
                    "postgres_s": lap.get("postgres", 0.0),
                    "temporal_s": lap.get("temporal", 0.0),
                }
            )
    finally:
        await heartbeat.step_down()
    return {key: round(statistics.mean(lap[key] for lap in laps), 3) for key in laps[0]}


async def run_store(kind: str, pg: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    use_store(kind, pg, f"bench_tenants_{os.getpid()}")
    home, store = fresh_home("jobctrl-bench-tenants-")
    every = round(1 / args.active)
    out: list[dict[str, Any]] = []
    async with embedded_temporal(home) as (client, temporal_pid):
        pids = {"temporal": temporal_pid} | ({"postgres": pg.process.pid} if pg else {})
        have, active = 1, 0
        for size in args.tenants:
            began = time.perf_counter()
            active += grow(home, store, have, size, every)
            have = size
            print(
                f"  {kind}: {size} tenants ({active} active) added in "
                f"{time.perf_counter() - began:.0f} s",
                flush=True,
            )
            for every_tenant in (False, True):
                if every_tenant and size > args.before_up_to:
                    continue
                beat = await measure(client, home, store, pids, every_tenant, args.beats)
                path = "every tenant" if every_tenant else "census"
                row = {"store": kind, "tenants": size, "active": active, "path": path, **beat}
                print(f"  {row}", flush=True)
                out.append(row)
    return out


def cost(row: dict[str, Any]) -> float:
    """A beat's CPU: the worker's and the database server's (PostgreSQL)."""
    return float(row["cpu_s"] + row["postgres_s"])


def report(result: dict[str, Any]) -> None:
    print()
    print(
        "| store | tenants (active) | path | CPU s / beat: worker | PostgreSQL | Temporal "
        "| wall s | vs every tenant |"
    )
    print("|---|---|---|---|---|---|---|---|")
    rows = result["rows"]
    for r in rows:
        base = next(
            (
                b
                for b in rows
                if b["store"] == r["store"]
                and b["tenants"] == r["tenants"]
                and b["path"] == "every tenant"
            ),
            None,
        )
        ratio = (
            ""
            if base is None or r is base
            else (f"{(r['cpu_s'] + r['postgres_s']) / max(1e-9, cost(base)):.3f}×")
        )
        pg = f"{r['postgres_s']:.3f}" if r["store"] == "postgres" else "–"
        print(
            f"| {r['store']} | {r['tenants']:,} ({r['active']}) | {r['path']} | "
            f"{r['cpu_s']:.3f} | {pg} | {r['temporal_s']:.3f} | {r['wall_s']:.3f} | {ratio} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tenants", default="100,1000,10000")
    parser.add_argument("--active", type=float, default=0.01)
    parser.add_argument("--beats", type=int, default=3)
    parser.add_argument("--before-up-to", type=int, default=1000)
    args = parse_with_stores(parser, "sqlite,postgres")
    args.tenants = sorted(int(n) for n in args.tenants.split(","))
    os.environ["JOBCTRL_TENANT_GUARD"] = "0"  # production's setting (the tests' guard costs)
    rows: list[dict[str, Any]] = []
    for kind in args.stores:
        with store_server(kind) as pg:
            rows += asyncio.run(run_store(kind, pg, args))
    emit({"rows": rows}, args, report)


if __name__ == "__main__":
    main()
