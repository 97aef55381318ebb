"""Benchmark: the standing apply loop draining N approved jobs. Prints one JSON object:
per apply_concurrency, each job's claim-to-ready latency (the claim's write transaction to
the committed draft, p50/p95/max), the time from the loop's start to each job's draft,
and the whole drain. See docs/PERFORMANCE.md.

    .venv/bin/python bench/apply_loop.py [--n 50] [--concurrency 1 4]

Setup (not timed): N generated postings (every other one naming a ``mailto:`` address, so
half are email drafts and half form hand-overs) served on loopback, prepared end to end
by the offline provider through a jobctrl worker in this process on the embedded Temporal
server (history on disk), with ``min_fit_score 0``. For each concurrency a fresh batch
of N jobs has its materials approved, then ``apply-auto-local`` is started and timed
until every one has its draft; then it is cancelled. Nothing is sent.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jobctrl.app.jobs import add_job
from jobctrl.app.materials import decide_materials
from jobctrl.demo.postings import generate_postings
from jobctrl.demo.site import DemoSite
from jobctrl.domain import ids
from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.store import applications, apply_claims, workflow_runs
from jobctrl.store.settings import Settings
from jobctrl.workflows import starts
from support import LOOPBACK_FETCH, embedded_temporal, fresh_home, jobctrl_worker

SEED = 12
LD_TYPE = '"@type": "JobPosting"'
MAILTO = ', "applicationUrl": "mailto:jobs@hiring.example"'


def _pages(n: int, offset: int) -> dict[str, str]:
    """``n`` postings; every other one with JSON-LD names a ``mailto:`` address to apply."""
    pages = {}
    for i, (path, page) in enumerate(generate_postings(n + offset, seed=SEED).items()):
        if i < offset:
            continue
        if i % 2 == 0 and LD_TYPE in page:
            page = page.replace(
                LD_TYPE, LD_TYPE + ', "applicationUrl": "mailto:jobs@hiring.example"'
            )
        pages[path] = page
    return pages


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def _ms(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(values) * 1000, 1),
        "p95_ms": round(_pct(values, 0.95) * 1000, 1),
        "max_ms": round(max(values) * 1000, 1),
    }


async def _drain(home, store, client, job_ids: list[str], concurrency: int) -> dict:
    settings = Settings(store)
    settings.set_values({"apply_concurrency": concurrency, "apply_poll_seconds": 0.5})
    for job_id in job_ids:
        decide_materials(home, job_id, "approve")
    started_at: datetime = utcnow()
    clock = time.perf_counter()
    await starts.start_apply(client, store, None, "")
    wanted = set(job_ids)
    while True:
        run = workflow_runs.latest_runs(store, ids.APPLY_LOOP_ID)[0]
        claims = [
            c
            for c in apply_claims.claims_of_run(store, ids.APPLY_LOOP_ID, run["run_id"])
            if c["job_id"] in wanted and c["state"] in ("ready", "failed")
        ]
        if len(claims) >= len(job_ids):
            break
        await asyncio.sleep(0.02)
    drained = time.perf_counter() - clock
    await starts.cancel_running(client, ids.APPLY_LOOP_ID)
    while (await starts.describe(client, ids.APPLY_LOOP_ID)).status.name == "RUNNING":
        await asyncio.sleep(0.05)  # the cancelled run has ended: the next start is a new run
    claim_to_ready = [
        (as_utc(c["finished_at"]) - as_utc(c["claimed_at"])).total_seconds() for c in claims
    ]
    start_to_ready = [(as_utc(c["finished_at"]) - started_at).total_seconds() for c in claims]
    states = [c["state"] for c in claims]
    return {
        "apply_concurrency": concurrency,
        "jobs": len(job_ids),
        "ready": states.count("ready"),
        "failed": states.count("failed"),
        "claim_to_ready": _ms(claim_to_ready),
        "loop_start_to_ready": _ms(start_to_ready),
        "drain_seconds": round(drained, 2),
        "jobs_per_s": round(len(job_ids) / drained, 1),
    }


async def main(n: int, concurrencies: list[int]) -> dict:
    home, store = fresh_home("jobctrl-bench-apply-", {**LOOPBACK_FETCH, "min_fit_score": 0})
    batches = len(concurrencies)
    figures: dict = {"n": n, "cpus": os.cpu_count(), "runs": []}
    with DemoSite(extra_pages=_pages(n * batches, 0)) as site:
        urls = [site.base_url + path for path in sorted(_pages(n * batches, 0))]
        async with embedded_temporal(home) as (client, _), jobctrl_worker(client, store, home):
            setup = time.perf_counter()
            views = await asyncio.gather(*(add_job(home, url, wait=True) for url in urls))
            figures["setup_seconds"] = round(time.perf_counter() - setup, 1)
            job_ids = [v.job_id for v in views]
            for index, concurrency in enumerate(concurrencies):
                batch = job_ids[index * n : (index + 1) * n]
                figures["runs"].append(await _drain(home, store, client, batch, concurrency))
    channels = [(applications.get(store, j) or {}).get("channel") for j in job_ids]
    figures["drafts_by_channel"] = {c: channels.count(c) for c in ("email", "browser")}
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.n, args.concurrency)), indent=1), flush=True)
