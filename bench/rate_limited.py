"""Benchmark: preparation throughput against a rate-limited provider. A loopback
OpenAI-compatible provider (tests/support/fault_provider.py) admits PER_MINUTE requests in
any 60 s, refuses the rest with 429 and the seconds until a slot frees as ``Retry-After``,
and answers each admitted request after DELAY s; all three model lanes (Score, Tailor,
Cover) point at it. JOBS loopback postings go through a real `jobctrl worker` (the entry
point, a child process) with the stock settings (retries, recovery backoff) — only
loopback fetches are allowed. Prints one JSON object; see docs/PERFORMANCE.md.

    .venv/bin/python bench/rate_limited.py [--jobs 100] [--per-minute 60] [--delay 1.5]
        [--retry-after-only]

The provider sends OpenAI's ``x-ratelimit-*-requests`` headers with every answer and
refusal; ``--retry-after-only`` leaves them out (a provider that sends only Retry-After:
the worker's pace is then learned from the 429s).

Figures: jobs prepared per minute (from the first add to the last job prepared) ÷ the
ceiling PER_MINUTE / 3 (three paid calls a job; goal ≥ 0.9), and the same after the first
minute (the provider's window starts empty, so its first minute admits a burst); the 429
storm ratio
(requests refused ÷ requests sent); requests per job; stage attempts beyond each stage's
first (a 429 is answered inside the attempt, so none are expected); and the paid-call
check (no lane of a job answered twice beyond what the ledger shows as an interrupted
call).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fakes live in tests/

from tests.support.fault import KEY_ENV, add_all, by_job, paid_calls, postings, prepared
from tests.support.fault_provider import FaultProvider
from tests.support.http import FixtureServer
from tests.support.processes import WorkerProcess
from tests.support.profile import TEST_PROFILE

from jobctrl.app.home import init_home
from jobctrl.app.lanes import set_lane
from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from support import LOOPBACK_FETCH


def fresh_test_home() -> tuple[Home, Store]:
    """A new home (this process's: JOBCTRL_HOME, its own task queue, the embedded server)
    with the test profile, whose facts the fake provider's materials cite."""
    os.environ["JOBCTRL_HOME"] = tempfile.mkdtemp(prefix="jobctrl-bench-ratelimit-")
    os.environ.pop("JOBCTRL_TEMPORAL_ADDRESS", None)
    os.environ["JOBCTRL_TASK_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
    home = Home.resolve()
    init_home(home, profile=TEST_PROFILE)
    return home, Store.open(home)


async def main(
    jobs: int, per_minute: int, delay: float, timeout: float, rate_headers: bool = True
) -> dict:
    home, store = fresh_test_home()
    settings = Settings(store)
    figures: dict = {
        "jobs": jobs,
        "per_minute": per_minute,
        "provider_delay_s": delay,
        "rate_headers": rate_headers,
    }
    worker: WorkerProcess | None = None
    provider = FaultProvider(delay=delay, per_minute=per_minute, rate_headers=rate_headers)
    try:
        with provider, FixtureServer() as site:
            for key, value in LOOPBACK_FETCH.items():
                settings.set_value(key, value)
            for lane in ("score", "tailor", "cover"):
                set_lane(home, lane, "openai", "gpt-4o-mini", provider.base_url, KEY_ENV)
            urls = postings(site, jobs)
            worker = WorkerProcess()
            worker.wait_ready(180)
            started = time.monotonic()
            job_ids = await add_all(home, list(urls.values()))
            titles = {title: job_ids[i] for i, title in enumerate(urls)}
            done = 0
            timeline: list[tuple[float, int]] = []  # (seconds since the first add, prepared)
            while time.monotonic() - started < timeout:
                done = len(await asyncio.to_thread(prepared, store, job_ids))
                timeline.append((time.monotonic() - started, done))
                if done == jobs:
                    break
                await asyncio.sleep(1)
            elapsed = time.monotonic() - started
            counts = provider.counts()
            with provider.lock:
                arrivals = sorted(provider.arrivals)
            paid = paid_calls(store, provider, titles)
            rows = by_job(store)
    finally:
        if worker is not None and worker.proc.poll() is None:
            worker.stop(signal.SIGTERM, timeout=60)
        store.dispose()
    per_min = done / (elapsed / 60)
    # The provider's window starts empty: its first minute admits a burst no steady state
    # has. The rate after the first minute leaves that burst out.
    at_minute = next((n for t, n in timeline if t >= 60), done)
    steady = (done - at_minute) / ((elapsed - 60) / 60) if elapsed > 90 else None
    figures.update(
        prepared=done,
        elapsed_s=round(elapsed, 1),
        jobs_per_minute=round(per_min, 2),
        ceiling_jobs_per_minute=per_minute / 3,
        ratio_vs_ceiling=round(per_min / (per_minute / 3), 3),
        requests_sent=counts["sent"],
        requests_refused=counts["refused"],
        storm_ratio=round(counts["refused"] / max(1, counts["sent"]), 3),
        # When the refusals came (s after the first request; the first 30).
        refused_at_s=[round(t - arrivals[0][0], 1) for t, *_, s in arrivals if s == 429][:30],
        requests_per_job=round(counts["sent"] / max(1, done), 2),
        stage_attempts_beyond_first=sum(
            max(0, (r["attempts"] or 0) - 1) for job in rows.values() for r in job.values()
        ),
        paid=paid,
        steady_jobs_per_minute_after_first_minute=steady and round(steady, 2),
        steady_ratio_vs_ceiling=steady and round(steady / (per_minute / 3), 3),
    )
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--per-minute", type=int, default=60)
    parser.add_argument("--delay", type=float, default=1.5)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--retry-after-only", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault(KEY_ENV, "sk-bench-not-a-real-key")
    print(
        json.dumps(
            asyncio.run(
                main(
                    args.jobs,
                    args.per_minute,
                    args.delay,
                    args.timeout,
                    rate_headers=not args.retry_after_only,
                )
            ),
            indent=2,
        )
    )
