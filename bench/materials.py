"""Benchmark: N postings from a loopback site prepared end to end with the offline provider
(Enrich -> Score -> Tailor -> Cover -> PDF), on an embedded Temporal server (history on
disk). Prints one JSON object: wall time, per-job latency, PDFs produced, peak RSS, and the
estimated USD per job if the three LLM lanes (score, tailor, cover) were real models.

    .venv/bin/python bench/materials.py [--n 100] [--concurrency 16]

Processes, as in bench/prepare.py: the embedded Temporal server; this process as the
worker; a client process that adds all postings at once through `jobctrl add --wait`'s
service and times each one from add to result; a process serving the postings.

Cost: the offline provider reports no usage, so tokens are estimated as len(text) / 4 of
what an LLM call would send (the posting description, the profile JSON, the score report
JSON, as each lane needs) and receive (the offline output's JSON), priced with
genai-prices through `jobctrl.llm.prices.estimate_cost_usd`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jobctrl.app.jobs import add_job
from jobctrl.config import load_config
from jobctrl.demo.postings import generate_postings
from jobctrl.home import Home
from jobctrl.llm.prices import estimate_cost_usd
from jobctrl.store import jobs, schema
from jobctrl.store.store import Store
from support import (
    LOOPBACK_FETCH,
    PeakRss,
    embedded_temporal,
    fresh_home,
    jobctrl_worker,
    peak_rss_self_mb,
    posting_site,
)

SEED = 11
# (provider, model) pairs priced by genai-prices' bundled data.
MODELS = (("openai", "gpt-4o-mini"), ("anthropic", "claude-3-5-haiku"))
LANE_INPUTS = {
    "score": "title + posting description + profile JSON",
    "tailor": "title + company + posting description + profile JSON + score report JSON",
    "cover": "title + company + posting description + profile JSON + score report JSON",
}
LANE_OUTPUTS = {
    "score": "score report JSON",
    "tailor": "tailored resume JSON",
    "cover": "cover letter JSON",
}


# -- the client process ------------------------------------------------------------------


def client_run(urls: list[str]) -> dict:
    """Add every posting at once and wait for each; per-job latency from add to result."""
    return asyncio.run(_client_run(urls))


async def _client_run(urls: list[str]) -> dict:
    home = Home.resolve()

    async def add_one(url: str) -> tuple[float, str]:
        started = time.perf_counter()
        view = await add_job(home, url, wait=True, wait_timeout=600)
        return time.perf_counter() - started, view.status

    started = time.perf_counter()
    done = await asyncio.gather(*(add_one(url) for url in urls))
    return {
        "elapsed": time.perf_counter() - started,
        "latencies": [t for t, _ in done],
        "statuses": [s for _, s in done],
    }


# -- figures from the store --------------------------------------------------------------


def _chars(value: object) -> int:
    return len(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def token_estimates(store: Store, home: Home) -> list[dict[str, tuple[int, int]]]:
    """Per job with both materials: lane -> (input tokens, output tokens), as chars / 4."""
    profile = _chars(load_config(home).profile.model_dump(mode="json"))
    with store.read() as conn:
        job_ids = [r.id for r in conn.execute(select(schema.jobs.c.id))]
        rows = conn.execute(
            select(schema.materials.c.job_id, schema.materials.c.kind, schema.materials.c.content)
        ).all()
    content = {(r.job_id, r.kind): r.content for r in rows}
    out = []
    for job_id in job_ids:
        job = jobs.job_row(store, job_id)
        score = jobs.score_row(store, job_id)
        resume, letter = content.get((job_id, "resume")), content.get((job_id, "cover"))
        if not (job["text_artifact"] and score and resume and letter):
            continue
        description = store.artifacts.get(job["text_artifact"]).decode("utf-8")
        posting = _chars(job["title"] or "") + _chars(description)
        report = _chars(score["report"])
        company = _chars(job["company"] or "")
        chars = {
            "score": (posting + profile, report),
            "tailor": (posting + company + profile + report, _chars(resume)),
            "cover": (posting + company + profile + report, _chars(letter)),
        }
        out.append({lane: (i // 4, o // 4) for lane, (i, o) in chars.items()})
    return out


def cost_figures(estimates: list[dict[str, tuple[int, int]]]) -> dict:
    lanes = ("score", "tailor", "cover")
    tokens = {
        lane: {
            "input_mean": round(statistics.mean(e[lane][0] for e in estimates)),
            "output_mean": round(statistics.mean(e[lane][1] for e in estimates)),
        }
        for lane in lanes
    }
    usd: dict = {}
    for provider, model in MODELS:
        per_lane = {lane: 0.0 for lane in lanes}
        for e in estimates:
            for lane in lanes:
                cost, priced = estimate_cost_usd(provider, model, *e[lane])
                if not priced:
                    raise SystemExit(f"genai-prices has no price for {provider}/{model}")
                per_lane[lane] += cost
        total = sum(per_lane.values()) / len(estimates)
        usd[f"{provider}/{model}"] = {
            "per_job": round(total, 6),
            "per_lane": {lane: round(v / len(estimates), 6) for lane, v in per_lane.items()},
            "per_1000_jobs": round(total * 1000, 2),
        }
    return {"tokens_per_job_by_lane": tokens, "usd_per_job": usd}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


# -- the worker process ------------------------------------------------------------------


def _figures(store: Store, home: Home, n: int, run: dict) -> dict:
    """The figures of a run: wall time and latency, what was made, the estimated cost."""
    latencies = run["latencies"]
    figures: dict = {
        "seconds": round(run["elapsed"], 2),
        "jobs_per_s": round(n / run["elapsed"], 2),
        "latency_p50_s": round(statistics.median(latencies), 2),
        "latency_p95_s": round(_pct(latencies, 0.95), 2),
        "latency_max_s": round(max(latencies), 2),
        "job_status": {s: run["statuses"].count(s) for s in sorted(set(run["statuses"]))},
    }
    with store.read() as conn:
        kinds = conn.execute(select(schema.materials.c.kind, schema.materials.c.pdf_artifact)).all()
    figures["resumes"] = sum(1 for k, _ in kinds if k == "resume")
    figures["cover_letters"] = sum(1 for k, _ in kinds if k == "cover")
    figures["pdfs_produced"] = sum(1 for _, pdf in kinds if pdf)
    estimates = token_estimates(store, home)
    figures["jobs_costed"] = len(estimates)
    figures["tokens_estimated_as"] = "chars/4"
    figures["lane_inputs"] = LANE_INPUTS
    figures["lane_outputs"] = LANE_OUTPUTS
    if estimates:
        figures.update(cost_figures(estimates))
    return figures


async def main(n: int, concurrency: int) -> dict:
    home, store = fresh_home(
        "jobctrl-bench-materials-",
        {
            **LOOPBACK_FETCH,
            "min_fit_score": 0,  # every job gets materials
            "preparation.materials": True,
        },
    )
    pages = list(generate_postings(n, seed=SEED))
    figures: dict = {"n": n, "concurrency": concurrency, "cpus": os.cpu_count()}
    loop = asyncio.get_running_loop()
    spawn = multiprocessing.get_context("spawn")
    try:
        async with embedded_temporal(home) as (client, server_pid):
            server_rss = PeakRss(server_pid)
            with (
                posting_site(n, SEED) as base_url,
                ProcessPoolExecutor(1, mp_context=spawn) as pool,
            ):
                urls = [base_url + path for path in pages]
                async with jobctrl_worker(client, store, home, max_activities=concurrency):
                    run = await loop.run_in_executor(pool, client_run, urls)
            figures.update(_figures(store, home, n, run))
            figures["peak_rss_worker_mb"] = peak_rss_self_mb()
            figures["peak_rss_temporal_server_mb"] = round(server_rss.stop() / 2**20, 1)
    finally:
        store.dispose()
        shutil.rmtree(home.root, ignore_errors=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.n, args.concurrency)), indent=2), flush=True)
