"""Benchmark: the time from an event's commit to its arrival at clients of
`GET /v1/events/stream`, on PostgreSQL (and SQLite for comparison), with a writer in
another process committing at a steady rate. Issue 14; see docs/PERFORMANCE.md.

    .venv/bin/python bench/sse_postgres.py [--events 1000] [--rate 20] [--clients 2]
        [--stores postgres,sqlite] [--json]

Per store: a fresh home (SQLite in it, or a new database on the tests' throwaway
PostgreSQL server); the real app under uvicorn in a spawned process (bench/api.py's
``_serve``), as `jobctrl up` runs apart from the worker that writes; ``--clients`` streams
opened from this process (a thread each), tokenless (the server's tenant, ``local``),
each ready once the stream's first line (``: from SEQ``, its starting cursor) came. Then
a writer process commits ``--events`` new jobs one by one (`jobs.create_job`: one write
transaction, one JobCreated, the store's own write path) at ``--rate`` per second, each on
its tick, and notes the time each commit returned; each client notes when each job's
event arrives. Both clocks are CLOCK_MONOTONIC (``time.monotonic``), one clock for every
process of the machine. Printed: p50/p95/p99/max ms over every (client, event), the events
a client never got (lost: must be 0), duplicates and order, the commit's own duration and
the server's (and PostgreSQL's) CPU per event.

The stream polls the log every 250 ms (api/events.py), so commit → arrival is about
uniform over 0–250 ms plus the read and the send: p50 ≈ 125 ms, p95 ≈ 240 ms by design.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event

from api import Listener, _serve
from jobctrl.home import Home
from jobctrl.store import jobs
from jobctrl.store.store import Store
from support import (
    TreeCpu,
    emit,
    fresh_home,
    parse_with_stores,
    percentiles,
    spawned,
    store_server,
    use_store,
)

SETTLE_S = 5.0  # how long clients may take to receive the last events


# -- the writer process --------------------------------------------------------------------


def writer(root: str, n: int, rate: float, queue: multiprocessing.Queue) -> None:
    """``n`` new jobs at ``rate`` per second through the store's write path; puts
    ``[(job id, commit started, commit returned)]`` (monotonic seconds) on ``queue``."""
    store = Store.open(Home(Path(root)))
    began: list[float] = []
    event.listen(store.writer, "commit", lambda conn: began.append(time.monotonic()))
    jobs.create_job(store, "https://live.example.com/warm-up")  # the first connection
    out = []
    start = time.monotonic()
    for i in range(n):
        tick = start + i / rate
        if (wait := tick - time.monotonic()) > 0:
            time.sleep(wait)
        job_id = jobs.create_job(store, f"https://live.example.com/{os.getpid()}/{i}").job_id
        out.append((job_id, began[-1], time.monotonic()))
    queue.put(out)


def run_writer(root: str, n: int, rate: float) -> list[tuple[str, float, float]]:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=writer, args=(root, n, rate, queue), daemon=True)
    proc.start()
    try:
        return list(queue.get(timeout=n / rate + 300))
    finally:
        proc.join(30)


# -- one store -----------------------------------------------------------------------------


def _wait_for(done: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def run_store(kind: str, pg: Any, args: argparse.Namespace) -> dict[str, Any]:
    use_store(kind, pg, f"bench_sse_{os.getpid()}")
    home, store = fresh_home("jobctrl-bench-sse-")
    out: dict[str, Any] = {"store": kind, "events": args.events, "clients": args.clients}
    with spawned(_serve, str(home.root), False) as (base_url, server_pid):
        clients = [Listener(base_url, clock=time.monotonic) for _ in range(args.clients)]
        for c in clients:
            if not c.opened.wait(60) or c.head.get("status") != 200:
                raise RuntimeError(f"stream not available: {c.head}")
        pids = {"server": server_pid} | ({"postgres": pg.process.pid} if pg else {})
        meter = TreeCpu(pids)
        committed = run_writer(str(home.root), args.events, args.rate)
        cpu = meter.lap()
        ids = [job_id for job_id, _, _ in committed]
        _wait_for(lambda: all(j in c.arrivals for c in clients for j in ids), SETTLE_S)
        for c in clients:
            c.stop.set()
        jobs.create_job(store, "https://live.example.com/stop")  # wakes each client to leave
        for c in clients:
            c.join(10)
    ms = [
        (c.arrivals[j] - done) * 1000
        for c in clients
        for j, _, done in committed
        if j in c.arrivals
    ]
    out["commit_to_arrival_ms"] = percentiles(ms)
    out["lost"] = sum(j not in c.arrivals for c in clients for j in ids)
    out["duplicates"] = sum(len(c.seqs) - len(set(c.seqs)) for c in clients)
    out["in_order"] = all(c.seqs == sorted(c.seqs) for c in clients)
    out["commit_ms"] = percentiles([(done - began) * 1000 for _, began, done in committed])
    span = committed[-1][2] - committed[0][2] if len(committed) > 1 else 0.0
    out["rate_achieved_per_s"] = round((len(committed) - 1) / span, 2) if span else None
    out["cpu_ms_per_event"] = {k: round(v * 1000 / args.events, 2) for k, v in cpu.items()}
    store.dispose()
    return out


# -- the run -------------------------------------------------------------------------------


def _report(figures: dict[str, Any]) -> None:
    print(f"\n{'store':<10}{'n':>7}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}{'lost':>6}{'dup':>5}"
          f"{'order':>7}{'commit p50':>11}{'CPU ms/event':>22}")  # fmt: skip
    for s in figures["stores"]:
        a, c = s["commit_to_arrival_ms"], s["commit_ms"]
        cpu = ", ".join(f"{k} {v}" for k, v in s["cpu_ms_per_event"].items())
        print(
            f"{s['store']:<10}{a['n']:>7}{a.get('p50', 0):>8.1f}{a.get('p95', 0):>8.1f}"
            f"{a.get('p99', 0):>8.1f}{a.get('max', 0):>8.1f}{s['lost']:>6}{s['duplicates']:>5}"
            f"{'yes' if s['in_order'] else 'NO':>7}{c.get('p50', 0):>11.2f}   {cpu}"
        )
    print(
        f"ms from each commit's return to its arrival, over {figures['clients']} clients × "
        f"events at {figures['rate']}/s (the stream polls every 250 ms)"
    )


def main(args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {"cpus": os.cpu_count(), "rate": args.rate, "stores": []}
    figures["clients"] = args.clients
    for kind in args.stores:
        with store_server(kind) as pg:
            figures["stores"].append(run_store(kind, pg, args))
            print(f"{kind}: {json.dumps(figures['stores'][-1])}", file=sys.stderr)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=20.0, help="commits per second")
    parser.add_argument("--clients", type=int, default=2)
    args = parse_with_stores(parser, "postgres,sqlite")
    emit(main(args), args, _report)
