"""Benchmark: N postings from a loopback site through Enrich + Score (offline provider),
against bare workflows of the same shape on the same embedded Temporal server (history
on disk). Prints one JSON object of figures; see docs/PERFORMANCE.md.

    .venv/bin/python bench/prepare.py [--n 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
from temporalio.worker import Worker

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bare import ACTIVITIES, BareWorkflow
from jobctrl import services
from jobctrl.demo.postings import generate_postings
from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.demo.site import DemoSite
from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.connection import connect, default_task_queue
from jobctrl.worker.devserver import EmbeddedTemporal
from jobctrl.worker.run import build_worker
from jobctrl.workflows.models import PrepInput


class PeakRss:
    """Samples the RSS of a process tree (here: the Temporal server) every 50 ms."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.peak = max(self.peak, psutil.Process(self.pid).memory_info().rss)
            except psutil.Error:
                return

    def stop(self) -> int:
        self._stop.set()
        return self.peak


async def main(n: int, concurrency: int) -> dict:
    tmp = tempfile.mkdtemp(prefix="jobctrl-bench-")
    os.environ["JOBCTRL_HOME"] = tmp
    os.environ.pop("JOBCTRL_TEMPORAL_ADDRESS", None)
    os.environ["JOBCTRL_TASK_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
    home = Home.resolve()
    services.init_home(home, profile=DEMO_PROFILE)
    store = Store.open(home)
    settings = Settings(store)
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    settings.set_value("fetch.min_host_interval_seconds", 0.0)
    server = EmbeddedTemporal(home)
    await server.ensure()
    server_rss = PeakRss(server._server_pid or 0)
    client = await connect(home)
    pages = generate_postings(n + 1, seed=7)
    figures: dict = {"n": n, "concurrency": concurrency, "cpus": os.cpu_count()}
    try:
        with DemoSite(extra_pages=pages) as site:
            urls = [site.base_url + path for path in pages]
            worker, ctx = build_worker(client, store, home, max_activities=concurrency)
            bare = Worker(
                client,
                task_queue=default_task_queue() + "-bare",
                workflows=[BareWorkflow],
                activities=ACTIVITIES,
                activity_executor=ThreadPoolExecutor(concurrency),
                max_concurrent_activities=concurrency,
            )
            async with worker, bare:
                retry = services.retry_settings(settings)

                async def bare_one(i: int) -> None:
                    await client.execute_workflow(
                        BareWorkflow.run,
                        PrepInput(f"bare{i}", f"bare{i}", retry),
                        id=f"bare-{uuid.uuid4().hex}",
                        task_queue=default_task_queue() + "-bare",
                    )

                # Single-job latency, nothing else running (after one warm-up each).
                await bare_one(-1)
                started = time.perf_counter()
                await bare_one(-2)
                figures["bare_single_latency_ms"] = round((time.perf_counter() - started) * 1000, 1)
                await services.add_job(home, urls[0], wait=True)
                started = time.perf_counter()
                view = await services.add_job(home, urls[1], wait=True)
                figures["job_single_latency_ms"] = round((time.perf_counter() - started) * 1000, 1)
                assert view["score"] is not None, view

                # Throughput: N bare workflows, then N real preparations.
                started = time.perf_counter()
                await asyncio.gather(*(bare_one(i) for i in range(n)))
                bare_elapsed = time.perf_counter() - started
                figures["bare_workflows_per_s"] = round(n / bare_elapsed, 2)

                started = time.perf_counter()
                batch = urls[2 : n + 1]
                views = await asyncio.gather(
                    *(services.add_job(home, url, wait=True, wait_timeout=600) for url in batch)
                )
                elapsed = time.perf_counter() - started
                done = sum(1 for v in views if v["score"] is not None)
                figures["jobs_prepared"] = done + 1
                figures["prepared_jobs_per_s"] = round((n - 1) / elapsed, 2)
                figures["ratio_vs_bare"] = round(
                    figures["prepared_jobs_per_s"] / figures["bare_workflows_per_s"], 3
                )
                figures["latency_ratio_vs_bare"] = round(
                    figures["job_single_latency_ms"] / figures["bare_single_latency_ms"], 2
                )  # fmt: skip
            ctx.close()
    finally:
        figures["peak_rss_worker_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
        )
        figures["peak_rss_temporal_server_mb"] = round(server_rss.stop() / 2**20, 1)
        store.dispose()
        server.stop()
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.n, args.concurrency)), indent=2))
