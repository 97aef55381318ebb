"""Benchmark: full preparation (Enrich, Score, Tailor, Cover, PDF: five stages and two PDFs,
offline provider) of N loopback postings, against bare five-activity workflows of the same
shape (``Bare5Workflow`` in bench/bare.py) on the same embedded Temporal server, in the same
run. Prints one JSON object; see docs/PERFORMANCE.md. JobPreparationWorkflow runs outside
Temporal's sandbox; ``--unsandboxed-bare`` makes the baseline do so too
(``Bare5UnsandboxedWorkflow``).

    .venv/bin/python bench/prep_vs_bare.py [--n 60] [--rounds 3] [--profile]
                                           [--unsandboxed-bare] [--stub-stages sleep|spin]

The figure is prepared jobs/s ÷ bare workflows/s (median over alternating rounds, so a
noisy machine's drift hits both). Where the time goes: each stage's mean and p90 duration
from the stage rows (started → finished), and with ``--profile`` the top functions of the
materials stages run in-process under cProfile on a few of the same postings.

Processes, as bench/prepare.py: the embedded Temporal server; this process as the worker
(one jobctrl worker, one worker for the baseline); a client process per phase that adds
the postings (`jobctrl add --wait`'s service) or starts the bare workflows; and a process
serving the postings.

``--stub-stages`` is a probe, not the figure: each stage's work is replaced by a stand-in
as long as that stage took in process on four postings (measured first, warm), which either
sleeps (costs the worker no CPU) or spins holding the interpreter (the same CPU, none of
the I/O). The two bound what making the stages' own work cheaper, or moving it out of the
worker's interpreter, could win here.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import multiprocessing
import os
import pstats
import statistics
import sys
import time
import uuid
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

from sqlalchemy import select
from temporalio.client import Client
from temporalio.worker import Worker

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bare import ACTIVITIES5, Bare5UnsandboxedWorkflow, Bare5Workflow
from jobctrl.app.jobs import add_job
from jobctrl.demo.postings import generate_postings
from jobctrl.home import Home
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.materials import cover, render, tailor
from jobctrl.stages.score import score
from jobctrl.store import jobs, schema
from jobctrl.store.settings import Settings
from jobctrl.workflows import activities
from jobctrl.workflows.client import connect, default_task_queue
from jobctrl.workflows.models import PrepInput, RetrySettings
from jobctrl.workflows.starts import retry_settings
from support import (
    LOOPBACK_FETCH,
    CpuMeter,
    embedded_temporal,
    fresh_home,
    jobctrl_worker,
    posting_site,
)

SEED = 11
STAGES = ("enrich", "score", "tailor", "cover", "pdf")


def client_phase(
    phase: str,
    urls: list[str],
    retry: RetrySettings,
    unsandboxed: bool = False,
    stubbed: bool = False,
) -> dict:
    """One load phase in a fresh client process (as each `jobctrl add` is)."""
    return asyncio.run(_client_phase(phase, urls, retry, unsandboxed, stubbed))


async def _client_phase(
    phase: str,
    urls: list[str],
    retry: RetrySettings,
    unsandboxed: bool = False,
    stubbed: bool = False,
) -> dict:
    home = Home.resolve()
    client = await connect(home)
    queue = default_task_queue() + "-bare5"

    async def bare_one(i: int) -> None:
        await client.execute_workflow(
            Bare5UnsandboxedWorkflow.run if unsandboxed else Bare5Workflow.run,
            PrepInput(f"bare{i}", f"bare{i}", retry),
            id=f"bare5-{uuid.uuid4().hex}",
            task_queue=queue,
        )

    async def add_one(url: str) -> None:
        view = await add_job(home, url, wait=True, wait_timeout=900)
        if stubbed:
            return  # stand-ins write no stage rows
        states = {s.stage: s.state for s in view.stages}
        assert all(states.get(s) == "succeeded" for s in STAGES), states

    todo = [bare_one(i) for i in range(len(urls))] if phase == "bare" else map(add_one, urls)
    cpu = time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*todo)
    return {"elapsed": time.perf_counter() - started, "cpu": time.process_time() - cpu}


def stage_durations(store) -> dict[str, dict[str, float]]:
    """Each stage's successful durations (started → finished), mean and p90 in ms."""
    s = schema.job_stage_states
    with store.read() as conn:
        rows = conn.execute(
            select(s.c.stage, s.c.started_at, s.c.finished_at).where(s.c.state == "succeeded")
        ).all()
    out = {}
    for stage in STAGES:
        ms = sorted((f - b).total_seconds() * 1000 for st, b, f in rows if st == stage and b and f)
        if ms:
            out[stage] = {
                "n": len(ms),
                "mean_ms": round(statistics.mean(ms), 1),
                "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 1),
            }
    return out


def stub_stages(ms_per_job: dict[str, float], mode: str) -> None:
    """Replace every stage's work in this process's worker by a stand-in that takes as
    long (``ms_per_job``) and either sleeps or spins holding the interpreter."""

    def stand_in(ctx, stage, job_id, workflow_id, run_id, work, heartbeat, *, cancellations=()):
        seconds = ms_per_job[getattr(stage, "value", stage)] / 1000
        if mode == "sleep":
            time.sleep(seconds)
        else:
            end = time.thread_time() + seconds
            while time.thread_time() < end:
                pass
        return SimpleNamespace(
            text_artifact=None, reused=False, score=80, below_threshold=False, generation=1
        )

    activities.stage_gate.run_gated = stand_in


def time_stages(
    home: Home, store, urls: list[str], *, profiler: cProfile.Profile | None = None, warm: int = 0
) -> dict[str, float]:
    """The five stages of ``urls`` run in-process, one job at a time: each stage's mean
    wall time in ms, the first ``warm`` jobs not counted; with ``profiler``, Tailor, Cover
    and PDF run under it."""
    ctx = StageContext(home=home, store=store)
    per_stage = dict.fromkeys(STAGES, 0.0)
    try:
        for n, url in enumerate(urls):
            job = jobs.create_job(store, url).job_id
            run = f"in-process-{n}"
            for stage, call, args in (
                ("enrich", enrich, ()),
                ("score", score, ()),
                ("tailor", tailor, (None,)),
                ("cover", cover, (None,)),
                ("pdf", render, ()),
            ):
                started = time.perf_counter()
                if profiler is not None and stage in ("tailor", "cover", "pdf"):
                    profiler.runcall(call, ctx, job, run, *args)
                else:
                    call(ctx, job, run, *args)
                if n >= warm:
                    per_stage[stage] += time.perf_counter() - started
    finally:
        ctx.close()
    counted = max(1, len(urls) - warm)
    return {k: round(1000 * v / counted, 1) for k, v in per_stage.items()}


def profile_materials(home: Home, store, urls: list[str], top: int = 25) -> dict:
    """The stages of ``urls`` run in-process under cProfile (``time_stages``): ms per stage
    and the top functions by cumulative time in Tailor, Cover and PDF."""
    profiler = cProfile.Profile()
    ms_per_job = time_stages(home, store, urls, profiler=profiler)
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(top)
    return {
        "jobs": len(urls),
        "ms_per_job": ms_per_job,
        "top_cumulative": [line for line in text.getvalue().splitlines() if line.strip()][-top:],
    }


async def main(
    n: int,
    concurrency: int,
    rounds: int,
    profile: bool,
    unsandboxed: bool = False,
    stub: str | None = None,
) -> dict:
    home, store = fresh_home(
        "jobctrl-bench-prep5-", settings={**LOOPBACK_FETCH, "min_fit_score": 0}
    )
    retry = retry_settings(Settings(store).all())
    extra = 3 if profile else 6 if stub else 0
    pages = list(generate_postings(n * rounds + extra, seed=SEED))
    figures: dict = {
        "n": n,
        "rounds": rounds,
        "concurrency": concurrency,
        "cpus": os.cpu_count(),
        "bare_sandboxed": not unsandboxed,
        "stub_stages": stub,
    }
    loop = asyncio.get_running_loop()
    spawn = multiprocessing.get_context("spawn")
    try:
        async with embedded_temporal(home) as (client, server_pid):
            with (
                posting_site(len(pages), SEED) as base_url,
                ProcessPoolExecutor(1, mp_context=spawn, max_tasks_per_child=1) as pool,
            ):
                urls = [base_url + path for path in pages]
                if stub:  # measured warm, not under the profiler
                    ms_per_job = time_stages(home, store, urls[n * rounds :], warm=2)
                    figures["stub_ms_per_job"] = ms_per_job
                    stub_stages(ms_per_job, stub)
                bare = Worker(
                    await Client.connect(client.service_client.config.target_host),
                    task_queue=default_task_queue() + "-bare5",
                    workflows=[Bare5Workflow, Bare5UnsandboxedWorkflow],
                    activities=ACTIVITIES5,
                    activity_executor=ThreadPoolExecutor(concurrency),
                    max_concurrent_activities=concurrency,
                )

                async def phase(name: str, phase_urls: list[str]) -> dict:
                    return await loop.run_in_executor(
                        pool, client_phase, name, phase_urls, retry, unsandboxed, bool(stub)
                    )

                async with jobctrl_worker(client, store, home, max_activities=concurrency), bare:
                    await phase("bare", urls[:4])  # warm both up
                    cpu = CpuMeter(server_pid)
                    bare_rates, prep_rates, ratios, cpus = [], [], [], []
                    for r in range(rounds):
                        cpu.lap()
                        bare_run = await phase("bare", urls[:n])
                        bare_cpu = cpu.lap()
                        prep_run = await phase("prep", urls[r * n : (r + 1) * n])
                        prep_cpu = cpu.lap()
                        bare_cpu["client"] = round(bare_run["cpu"], 2)
                        prep_cpu["client"] = round(prep_run["cpu"], 2)
                        cpus.append({"bare": bare_cpu, "prepared": prep_cpu})
                        bare_rates.append(n / bare_run["elapsed"])
                        prep_rates.append(n / prep_run["elapsed"])
                        ratios.append(prep_rates[-1] / bare_rates[-1])
                figures["bare5_workflows_per_s"] = round(statistics.median(bare_rates), 2)
                figures["prepared_jobs_per_s"] = round(statistics.median(prep_rates), 2)
                figures["bare_per_round"] = [round(x, 2) for x in bare_rates]
                figures["prepared_per_round"] = [round(x, 2) for x in prep_rates]
                figures["ratio_per_round"] = [round(x, 3) for x in ratios]
                figures["ratio_vs_bare5"] = round(statistics.median(ratios), 3)
                figures["cpu_s_per_round"] = cpus
                # When the machine's cores are the limit, the rate ratio cannot exceed the
                # ratio of CPU seconds each kind of work needs (worker + server + client).
                figures["cpu_bound_ratio"] = round(
                    statistics.median(
                        sum(c["bare"].values()) / sum(c["prepared"].values()) for c in cpus
                    ),
                    3,
                )
                if not stub:  # stand-ins write no stage rows
                    figures["stage_durations"] = stage_durations(store)
                if profile and not stub:
                    figures["profile"] = profile_materials(home, store, urls[n * rounds :])
    finally:
        store.dispose()
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--unsandboxed-bare", action="store_true")
    parser.add_argument("--stub-stages", choices=("sleep", "spin"))
    args = parser.parse_args()
    figures = asyncio.run(
        main(
            args.n,
            args.concurrency,
            args.rounds,
            args.profile,
            args.unsandboxed_bare,
            args.stub_stages,
        )
    )
    print(json.dumps(figures, indent=2), flush=True)  # before the exit (bench/support.emit)
