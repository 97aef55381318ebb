"""Benchmark: N postings from a loopback site through Enrich + Score (offline provider),
against bare workflows of the same shape on the same embedded Temporal server (history
on disk). Prints one JSON object of figures; see docs/PERFORMANCE.md.

    .venv/bin/python bench/prepare.py [--n 200] [--concurrency 8]

Processes, as in real use: the embedded Temporal server; this process as the worker (one
jobctrl worker, one worker for the bare baseline); a client process that adds the
postings (`jobctrl add`'s service) or starts the bare workflows; and a process serving
the postings (it stands for the internet).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import time
import uuid
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from temporalio.client import Client
from temporalio.worker import Worker

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bare import ACTIVITIES, BareWorkflow
from jobctrl.app.jobs import add_job
from jobctrl.app.queries import list_jobs
from jobctrl.demo.postings import generate_postings
from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.workflows.client import connect, default_task_queue
from jobctrl.workflows.models import PrepInput, RetrySettings
from jobctrl.workflows.starts import retry_settings
from support import (
    LOOPBACK_FETCH,
    CpuMeter,
    PeakRss,
    embedded_temporal,
    fresh_home,
    jobctrl_worker,
    peak_rss_self_mb,
    posting_site,
)

SEED = 7
SINGLE_RUNS = 5


# -- the client process ------------------------------------------------------------------


def client_phase(phase: str, urls: list[str], retry: RetrySettings) -> dict:
    """Run one load phase from the client process; returns elapsed seconds and its CPU.

    Each phase gets a fresh process, as each `jobctrl add` does: a second event loop in a
    process that already ran one made Temporal's task hand-offs ~40 ms slower here.
    """
    return asyncio.run(_client_phase(phase, urls, retry))


async def _client_phase(phase: str, urls: list[str], retry: RetrySettings) -> dict:
    home = Home.resolve()
    client = await connect(home)
    bare_queue = default_task_queue() + "-bare"

    async def bare_one(i: int) -> None:
        await client.execute_workflow(
            BareWorkflow.run,
            PrepInput(f"bare{i}", f"bare{i}", retry),
            id=f"bare-{uuid.uuid4().hex}",
            task_queue=bare_queue,
        )

    async def add_one(url: str) -> None:
        view = await add_job(home, url, wait=True, wait_timeout=600)
        assert view.score is not None, view.stages

    if phase in ("bare_single", "job_single"):
        # One at a time with nothing else running: the median of five after a warm-up.
        one = (
            (lambda i: bare_one(-1 - i)) if phase == "bare_single" else (lambda i: add_one(urls[i]))
        )
        await one(0)
        times = []
        for i in range(1, SINGLE_RUNS + 1):
            started = time.perf_counter()
            await one(i)
            times.append(time.perf_counter() - started)
        return {"elapsed": statistics.median(times), "cpu": 0.0}
    if phase == "bare_many":
        todo = [bare_one(i) for i in range(len(urls))]
    else:
        todo = [add_one(url) for url in urls]
    cpu = time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*todo)
    return {"elapsed": time.perf_counter() - started, "cpu": time.process_time() - cpu}


# -- the worker process ------------------------------------------------------------------


async def main(n: int, concurrency: int, rounds: int) -> dict:
    home, store = fresh_home(
        settings={**LOOPBACK_FETCH, "preparation.materials": False}  # Enrich + Score only
    )
    retry = retry_settings(Settings(store).all())
    pages = list(generate_postings(n * rounds + SINGLE_RUNS + 1, seed=SEED))
    figures: dict = {"n": n, "rounds": rounds, "concurrency": concurrency, "cpus": os.cpu_count()}
    loop = asyncio.get_running_loop()
    spawn = multiprocessing.get_context("spawn")
    try:
        async with embedded_temporal(home) as (client, server_pid):
            server_rss = PeakRss(server_pid)
            with (
                posting_site(len(pages), SEED) as base_url,
                ProcessPoolExecutor(1, mp_context=spawn, max_tasks_per_child=1) as pool,
            ):
                urls = [base_url + path for path in pages]
                bare = Worker(
                    await Client.connect(client.service_client.config.target_host),
                    task_queue=default_task_queue() + "-bare",
                    workflows=[BareWorkflow],
                    activities=ACTIVITIES,
                    activity_executor=ThreadPoolExecutor(concurrency),
                    max_concurrent_activities=concurrency,
                )

                async def phase(name: str, phase_urls: list[str]) -> dict:
                    return await loop.run_in_executor(pool, client_phase, name, phase_urls, retry)

                async with jobctrl_worker(client, store, home, max_activities=concurrency), bare:
                    single = await phase("bare_single", [])
                    figures["bare_single_latency_ms"] = round(single["elapsed"] * 1000, 1)
                    single = await phase("job_single", urls[-(SINGLE_RUNS + 1) :])
                    figures["job_single_latency_ms"] = round(single["elapsed"] * 1000, 1)

                    # Throughput, alternating baseline and real runs so that drift on a noisy
                    # machine hits both; the medians are reported.
                    cpu = CpuMeter(server_pid)
                    bare_rates, job_rates, ratios = [], [], []
                    for r in range(rounds):
                        cpu.lap()
                        bare_run = await phase("bare_many", urls[:n])
                        bare_cpu = {**cpu.lap(), "client": round(bare_run["cpu"], 2)}
                        job_run = await phase("job_many", urls[r * n : (r + 1) * n])
                        job_cpu = {**cpu.lap(), "client": round(job_run["cpu"], 2)}
                        bare_rates.append(n / bare_run["elapsed"])
                        job_rates.append(n / job_run["elapsed"])
                        ratios.append(job_rates[-1] / bare_rates[-1])
                    figures["bare_cpu_s_last_round"] = bare_cpu
                    figures["prepared_cpu_s_last_round"] = job_cpu
                    figures["bare_workflows_per_s"] = round(statistics.median(bare_rates), 2)
                    figures["prepared_jobs_per_s"] = round(statistics.median(job_rates), 2)
                    figures["ratio_per_round"] = [round(x, 3) for x in ratios]
                    figures["jobs_prepared"] = len(list_jobs(home))
            figures["ratio_vs_bare"] = round(statistics.median(ratios), 3)
            figures["latency_ratio_vs_bare"] = round(
                figures["job_single_latency_ms"] / figures["bare_single_latency_ms"], 2
            )
            figures["peak_rss_worker_mb"] = peak_rss_self_mb()
            figures["peak_rss_temporal_server_mb"] = round(server_rss.stop() / 2**20, 1)
    finally:
        store.dispose()
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.n, args.concurrency, args.rounds)), indent=2))
