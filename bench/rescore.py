"""Benchmark: rescore N stale jobs (issue 28) with the offline scorer, on an embedded
Temporal server (history on disk). Prints one JSON object; see docs/PERFORMANCE.md
("Rescore (issue 28)").

    .venv/bin/python bench/rescore.py [--n 1000] [--concurrency 8]

Setup (not timed): N demo postings from a loopback site added and scored (Enrich, Score;
materials off) on the demo profile, version 1; then config.yaml's profile loses half its
skills and roles and gains a skill: version 2, and every job is stale.

Timed:
- ``dry_run``: `jobctrl rescore --dry-run`'s work (``app.rescore.plan_rescore``) with the
  score lane set to a paid model: every job scored by the free offline scorer, and priced
  at the spend authority's worst case (nothing is asked);
- ``rescore``: `jobctrl rescore`'s work with the offline lane: Score reset and one
  JobPreparationWorkflow started per job (``rescore``), then waited for
  (``wait_for_rescore``), through this process's worker.

The spend it would have cost at a reference price: per job, the score request's input
(system prompt + posting + profile JSON) and output (the offline report's JSON) as
chars/4 tokens, priced by genai-prices (``llm.prices.estimate_cost_usd``), beside the
dry run's worst case (what the budget reserves: the lane's maximum output).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jobctrl import config as config_file
from jobctrl.app.jobs import add_jobs, wait_for_jobs
from jobctrl.app.lanes import set_lane
from jobctrl.app.rescore import plan_rescore, rescore, wait_for_rescore
from jobctrl.app.staleness import stale_job_ids
from jobctrl.demo.postings import generate_postings
from jobctrl.llm import prompts
from jobctrl.llm.offline import score_offline
from jobctrl.llm.prices import estimate_cost_usd
from jobctrl.store import jobs, profiles
from support import LOOPBACK_FETCH, embedded_temporal, fresh_home, jobctrl_worker, posting_site

SEED = 28
REFERENCE = ("openai", "gpt-4o-mini")
BATCH = 100  # postings added per call (as `jobctrl add URL…`)


def reference_spend(home, store, job_ids: list[str]) -> dict:
    """What scoring ``job_ids`` for real on the current profile would cost at the
    reference price: tokens as chars/4 of the request and of the offline answer."""
    profile = config_file.load_config(home).profile
    usd, tokens_in, tokens_out = 0.0, 0, 0
    for job_id in job_ids:
        job = jobs.job_row(store, job_id)
        text = store.artifacts.get(job["text_artifact"]).decode("utf-8")
        asked = prompts.SCORE_SYSTEM + prompts.score_prompt(job["title"], text, profile)
        answer = score_offline(job["title"], text, profile).model_dump_json()
        i, o = len(asked) // 4, len(answer) // 4
        tokens_in, tokens_out = tokens_in + i, tokens_out + o
        usd += estimate_cost_usd(*REFERENCE, i, o)[0]
    n = max(1, len(job_ids))
    return {
        "model": "/".join(REFERENCE),
        "tokens_estimated_as": "chars/4",
        "input_tokens_per_job": round(tokens_in / n),
        "output_tokens_per_job": round(tokens_out / n),
        "usd_total": round(usd, 4),
        "usd_per_1000_jobs": round(usd / n * 1000, 4),
    }


async def main(n: int, concurrency: int) -> dict:
    home, store = fresh_home(
        "jobctrl-bench-rescore-", {**LOOPBACK_FETCH, "preparation.materials": False}
    )
    figures: dict = {"n": n, "concurrency": concurrency, "cpus": os.cpu_count()}
    try:
        async with embedded_temporal(home) as (client, _):
            with posting_site(n, SEED) as base_url:
                urls = [base_url + path for path in generate_postings(n, seed=SEED)]
                async with jobctrl_worker(client, store, home, max_activities=concurrency):
                    started = time.perf_counter()
                    for at in range(0, n, BATCH):
                        added = await add_jobs(home, urls[at : at + BATCH])
                        await wait_for_jobs(home, added, 1200)
                    figures["setup_seconds"] = round(time.perf_counter() - started, 1)

                    profile = config_file.load_config(home).profile
                    # Half the skills and the roles gone, one skill new: scores move.
                    kept = profile.skills[: len(profile.skills) // 2]
                    roles = profile.experience[: max(1, len(profile.experience) // 2)]
                    changed = profile.model_copy(
                        update={"skills": [*kept, "Rust"], "experience": roles}
                    )
                    config_file.edit_profile(home, changed)  # a config edit: version 2
                    figures["profile_version"] = profiles.version_of(store, changed)
                    stale = stale_job_ids(home, store)
                    figures["stale_jobs"] = len(stale)

                    set_lane(home, "score", *REFERENCE, None, None)
                    started = time.perf_counter()
                    dry = await asyncio.to_thread(plan_rescore, home, [], "stale")
                    seconds = time.perf_counter() - started
                    changed_scores = sum(1 for j in dry.jobs if j.new_score != j.old_score)
                    figures["dry_run"] = {
                        "seconds": round(seconds, 2),
                        "jobs_per_s": round(len(dry.jobs) / seconds, 1),
                        "scores_changed": changed_scores,
                        "worst_case_usd": dry.estimated_cost_usd,
                        "remaining_budget_usd": dry.remaining_budget_usd,
                    }
                    figures["reference_spend"] = reference_spend(home, store, stale)

                    set_lane(home, "score", "offline", "offline-extractive-v1", None, None)
                    started = time.perf_counter()
                    result = await rescore(home, [], "stale")
                    start_seconds = time.perf_counter() - started
                    done = await wait_for_rescore(home, result, 3600)
                    seconds = time.perf_counter() - started
                    figures["rescore"] = {
                        "seconds": round(seconds, 1),
                        "jobs_per_s": round(len(done.jobs) / seconds, 2),
                        "start_seconds": round(start_seconds, 1),
                        "starts_per_s": round(len(done.jobs) / start_seconds, 1),
                        "rescored": sum(1 for j in done.jobs if j.new_score is not None),
                        "skipped": done.skipped,
                    }
                    figures["stale_after"] = len(stale_job_ids(home, store))
    finally:
        store.dispose()
        shutil.rmtree(home.root, ignore_errors=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.n, args.concurrency)), indent=2))
