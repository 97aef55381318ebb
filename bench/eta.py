"""Benchmark: how often pipeline-eta-v1's range held the truth over a real offline run.

A real `jobctrl worker` (its own process: the embedded Temporal server, the runtime
heartbeat every 3 s, 16 activity slots) prepares postings served from a loopback site
with the offline provider (Score answers after ``--latency-ms``; Tailor, Cover and PDF
for the jobs at or above min_fit_score). A warm-up of ``--warmup`` jobs gives the ETA its
first samples (as yesterday's work would); then ``--n`` jobs are added at once and the
operations snapshot (`jobctrl ops --json`'s function) is read every ``--every`` seconds
until nothing remains. At each checkpoint with a range, the actual remaining time (the
last stage's finish minus the checkpoint) is inside [low, high] or not; checkpoints
without a number are counted by reason. Prints one JSON object.

    .venv/bin/python bench/eta.py [--n 200] [--warmup 12] [--every 3] [--latency-ms 400]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jobctrl.app.jobs import add_jobs
from jobctrl.app.operations import OperationsSnapshot, operations_snapshot
from jobctrl.demo.postings import generate_postings
from jobctrl.demo.site import DemoSite
from jobctrl.domain.clock import as_utc
from jobctrl.home import Home
from jobctrl.store import schema
from jobctrl.store.store import Store
from support import LOOPBACK_FETCH, fresh_home, spawned

SEED = 17
JOBCTRL = Path(sys.executable).parent / "jobctrl"


def serve_postings(n: int, seed: int, queue: Any) -> None:
    """The generated postings from a process of its own (bench/support's site, with the
    patience a loaded machine needs to start it)."""
    with DemoSite(extra_pages=generate_postings(n, seed=seed)) as site:
        queue.put(site.base_url)
        threading.Event().wait()


def _remaining(snap: OperationsSnapshot) -> int:
    return sum(sum(s.remaining.values()) for s in snap.scopes.values())


def _jobs_saved(store: Store) -> int:
    with store.read() as conn:
        return int(conn.execute(select(func.count()).select_from(schema.jobs)).scalar_one())


def _last_finish(store: Store) -> datetime:
    S = schema.job_stage_states
    with store.read() as conn:
        return as_utc(conn.execute(select(func.max(S.c.finished_at))).scalar_one())


async def _drain(home: Home, every: float, timeout: float) -> list[dict[str, Any]]:
    """Snapshots every ``every`` s until no stage row remains and no slot is busy."""
    points: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snap = await asyncio.to_thread(operations_snapshot, home)
        eta, rt = snap.eta, snap.runtime
        points.append(
            {
                "at": snap.generated_at,
                "state": eta.state,
                "reason": eta.reason,
                "low": eta.low,
                "high": eta.high,
                "remaining": _remaining(snap),
                "slots": rt.active_slots,
            }
        )
        if points[-1]["remaining"] == 0 and rt.state == "fresh" and not rt.active_slots:
            return points
        await asyncio.sleep(every)
    raise SystemExit(f"the run did not finish within {timeout} s")


async def _wait_fresh(home: Home, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snap = await asyncio.to_thread(operations_snapshot, home)
        if snap.runtime.state == "fresh":
            return
        await asyncio.sleep(0.5)
    raise SystemExit("the worker never reported")


def figures_of(points: list[dict[str, Any]], end: datetime) -> dict[str, Any]:
    ranged = [p for p in points if p["state"] == "available" and p["remaining"] > 0]
    inside, below, above, widths = 0, 0, 0, []
    for p in ranged:
        actual = (end - p["at"]).total_seconds()
        if actual < p["low"]:
            above += 1  # finished sooner than the low end
        elif actual > p["high"]:
            below += 1  # took longer than the high end
        else:
            inside += 1
        if actual > 0:
            widths.append((p["high"] - p["low"]) / actual)
    withheld = collections.Counter(
        p["reason"] for p in points if p["state"] != "available" and p["remaining"] > 0
    )
    return {
        "checkpoints": sum(1 for p in points if p["remaining"] > 0),
        "with_range": len(ranged),
        "inside": inside,
        "inside_fraction": round(inside / len(ranged), 3) if ranged else None,
        "finished_before_low": above,
        "finished_after_high": below,
        "range_width_over_actual_median": round(statistics.median(widths), 2) if widths else None,
        "withheld_by_reason": dict(withheld),
    }


async def main(n: int, warmup: int, every: float, latency_ms: int) -> dict[str, Any]:
    home, store = fresh_home(
        "jobctrl-bench-eta-",
        {
            **LOOPBACK_FETCH,
            "providers.offline.latency_ms": latency_ms,
            "worker.heartbeat_seconds": 3,
        },
    )
    pages = list(generate_postings(warmup + n, seed=SEED))
    figures: dict[str, Any] = {"n": n, "warmup": warmup, "every_s": every, "cpus": os.cpu_count()}
    worker = subprocess.Popen(
        [str(JOBCTRL), "worker"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        with spawned(serve_postings, warmup + n, SEED, timeout=180) as (base_url, _):
            urls = [base_url + path for path in pages]
            await _wait_fresh(home)
            await add_jobs(home, urls[:warmup], wait=True, wait_timeout=600)
            started = time.monotonic()
            # Checkpoints begin once every job is saved (each with its start intent), while
            # their preparations are still being started.
            adding = asyncio.create_task(add_jobs(home, urls[warmup:]))
            while await asyncio.to_thread(_jobs_saved, store) < warmup + n:
                await asyncio.sleep(0.2)
            points = await _drain(home, every, timeout=3600)
            await adding
            figures["wall_s"] = round(time.monotonic() - started, 1)
        end = _last_finish(store)
        figures.update(figures_of(points, end))
        figures["timeline"] = [
            {
                "t": round((p["at"] - points[0]["at"]).total_seconds(), 1),
                "left_s": round((end - p["at"]).total_seconds(), 1),
                "state": p["state"] if p["state"] == "available" else p["reason"],
                "low": p["low"],
                "high": p["high"],
                "remaining": p["remaining"],
                "slots": p["slots"],
            }
            for p in points
        ]
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(60)
        except subprocess.TimeoutExpired:
            worker.kill()
        store.dispose()
        shutil.rmtree(home.root, ignore_errors=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=12)
    parser.add_argument("--every", type=float, default=3.0)
    parser.add_argument("--latency-ms", type=int, default=400)
    args = parser.parse_args()
    out = asyncio.run(main(args.n, args.warmup, args.every, args.latency_ms))
    timeline = out.pop("timeline")
    for p in timeline:
        print(json.dumps(p))
    print(json.dumps(out, default=str))
