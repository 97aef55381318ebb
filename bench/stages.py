"""jobctrl's own work per job, without Temporal: create, Enrich, Score, the evaluation
report and the close, called in one process one job at a time, timed by CPU.

The end-to-end benchmarks share the machine with the Temporal server, whose CPU and
scheduling dominate their noise; this one measures only jobctrl's code (the store, the
safe fetch from a loopback site, extraction, offline scoring), so a change to that code
shows here first.

    .venv/bin/python bench/stages.py            # --n 300 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid

from jobctrl.demo.postings import generate_postings
from jobctrl.demo.site import DemoSite
from jobctrl.domain.executions import Outcome, WorkflowType
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, reports, workflow_runs
from support import LOOPBACK_FETCH, fresh_home


def one_round(n: int, seed: int) -> dict[str, float]:
    home, store = fresh_home("jobctrl-bench-stages-", settings=LOOPBACK_FETCH)
    with DemoSite(extra_pages=generate_postings(n, seed=seed)) as site:
        urls = [u for u in site.urls() if "/jobs/" in u][-n:]
        ctx = StageContext(home=home, store=store)
        with ctx.fetcher() as fetcher:
            fetcher.fetch(urls[0])  # connections and robots.txt are not what is measured
        cpu, wall = time.process_time(), time.perf_counter()
        for url in urls:
            job = jobs.create_job(store, url)
            run = uuid.uuid4().hex
            wf = f"prep-{job.idempotency_key}"
            workflow_runs.record_workflow_started(
                store,
                workflow_id=wf,
                run_id=run,
                workflow_type=WorkflowType.PREPARATION,
                job_id=job.job_id,
            )
            enrich(ctx, job.job_id, run)
            score(ctx, job.job_id, run, None)
            reports.write_report(home, store, job.job_id)
            workflow_runs.record_workflow_closed(
                store, workflow_id=wf, run_id=run, job_id=job.job_id, outcome=Outcome.PREPARED
            )
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        ctx.close()
    return {"cpu_ms_per_job": 1000 * cpu / n, "wall_ms_per_job": 1000 * wall / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds = [one_round(args.n, seed=round_) for round_ in range(args.rounds)]
    figures = {
        "n": args.n,
        "rounds": [{k: round(v, 2) for k, v in r.items()} for r in rounds],
        "cpu_ms_per_job": round(statistics.median(r["cpu_ms_per_job"] for r in rounds), 2),
        "wall_ms_per_job": round(statistics.median(r["wall_ms_per_job"] for r in rounds), 2),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
