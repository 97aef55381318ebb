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
import contextlib
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import psutil
from temporalio.worker import Worker

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bare import ACTIVITIES, BareWorkflow  # noqa: E402

from jobctrl import services  # noqa: E402
from jobctrl.demo.postings import generate_postings  # noqa: E402
from jobctrl.demo.profile import DEMO_PROFILE  # noqa: E402
from jobctrl.demo.site import DemoSite  # noqa: E402
from jobctrl.home import Home  # noqa: E402
from jobctrl.store.settings import Settings  # noqa: E402
from jobctrl.store.store import Store  # noqa: E402
from jobctrl.worker.connection import connect, default_task_queue  # noqa: E402
from jobctrl.worker.devserver import EmbeddedTemporal  # noqa: E402
from jobctrl.worker.run import build_worker  # noqa: E402
from jobctrl.workflows.models import PrepInput, RetrySettings  # noqa: E402

SEED = 7


class PeakRss:
    """Samples the RSS of a process every 50 ms."""

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


class CpuMeter:
    """CPU seconds used by the worker (this process) and the server, per lap."""

    def __init__(self, server_pid: int) -> None:
        self.procs = {"worker": psutil.Process(), "server": psutil.Process(server_pid)}
        self.last = self._read()

    def _read(self) -> dict[str, float]:
        return {k: sum(p.cpu_times()[:2]) for k, p in self.procs.items()}

    def lap(self) -> dict[str, float]:
        now = self._read()
        lap = {k: round(now[k] - self.last[k], 2) for k in now}
        self.last = now
        return lap


def _serve(n: int, queue: multiprocessing.Queue) -> None:
    with DemoSite(extra_pages=generate_postings(n, seed=SEED)) as site:
        queue.put(site.base_url)
        threading.Event().wait()


@contextlib.contextmanager
def posting_site(n: int) -> Iterator[str]:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_serve, args=(n, queue), daemon=True)
    proc.start()
    try:
        yield queue.get(timeout=30)
    finally:
        proc.terminate()
        proc.join()


# -- the client process ------------------------------------------------------------------


def client_phase(phase: str, urls: list[str], retry: RetrySettings) -> dict:
    """Run one load phase from the client process; returns elapsed seconds and its CPU."""
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
        view = await services.add_job(home, url, wait=True, wait_timeout=600)
        assert view["score"] is not None, view["stages"]

    if phase == "bare_single":
        await bare_one(-1)
        todo = [bare_one(-2)]
    elif phase == "job_single":
        await add_one(urls[0])
        todo = [add_one(urls[1])]
    elif phase == "bare_many":
        todo = [bare_one(i) for i in range(len(urls))]
    else:
        todo = [add_one(url) for url in urls]
    cpu = time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*todo)
    return {"elapsed": time.perf_counter() - started, "cpu": time.process_time() - cpu}


# -- the worker process ------------------------------------------------------------------


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
    retry = services.retry_settings(settings)
    server = EmbeddedTemporal(home)
    await server.ensure()
    server_rss = PeakRss(server._server_pid or 0)
    client = await connect(home)
    pages = list(generate_postings(n + 2, seed=SEED))
    figures: dict = {"n": n, "concurrency": concurrency, "cpus": os.cpu_count()}
    loop = asyncio.get_running_loop()
    spawn = multiprocessing.get_context("spawn")
    try:
        with posting_site(n + 2) as base_url, ProcessPoolExecutor(1, mp_context=spawn) as pool:
            urls = [base_url + path for path in pages]
            worker, ctx = build_worker(client, store, home, max_activities=concurrency)
            bare = Worker(
                client,
                task_queue=default_task_queue() + "-bare",
                workflows=[BareWorkflow],
                activities=ACTIVITIES,
                activity_executor=ThreadPoolExecutor(concurrency),
                max_concurrent_activities=concurrency,
            )

            async def phase(name: str, phase_urls: list[str]) -> dict:
                return await loop.run_in_executor(pool, client_phase, name, phase_urls, retry)

            async with worker, bare:
                single = await phase("bare_single", [])
                figures["bare_single_latency_ms"] = round(single["elapsed"] * 1000, 1)
                single = await phase("job_single", urls[:2])
                figures["job_single_latency_ms"] = round(single["elapsed"] * 1000, 1)

                cpu = CpuMeter(server._server_pid or 0)
                bare_run = await phase("bare_many", urls[2:])
                figures["bare_cpu_s"] = {**cpu.lap(), "client": round(bare_run["cpu"], 2)}
                figures["bare_workflows_per_s"] = round(n / bare_run["elapsed"], 2)

                job_run = await phase("job_many", urls[2:])
                figures["prepared_cpu_s"] = {**cpu.lap(), "client": round(job_run["cpu"], 2)}
                figures["prepared_jobs_per_s"] = round(n / job_run["elapsed"], 2)
                figures["jobs_prepared"] = len(services.list_jobs(home))
            ctx.close()
        figures["ratio_vs_bare"] = round(
            figures["prepared_jobs_per_s"] / figures["bare_workflows_per_s"], 3
        )
        figures["latency_ratio_vs_bare"] = round(
            figures["job_single_latency_ms"] / figures["bare_single_latency_ms"], 2
        )
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
