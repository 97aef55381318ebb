"""kill -9 of `jobctrl worker` twenty times over one batch, at stage boundaries and inside
every stage (seeded moments), the worker started again after each kill.

The batch: JOBS postings through all five stages (two PDFs each), added in WAVES waves
between kills so that every stage is at work throughout; the three model lanes on a
loopback OpenAI-compatible provider that answers after PROVIDER_DELAY s and counts each
answer by lane and job; the stock retry policy (3 attempts), so stages a kill interrupted
too often are left to automatic recovery. Each kill waits (at most CONDITION_WAIT s) for
its moment: ``inside`` a stage is a row of it running that the current worker started,
then a random 0–0.4 s more; a ``boundary`` is a row of that stage newly succeeded.
Restarts fork from a zygote (tests/support/fault_zygote.py: the real entry point without
re-importing). Once the last worker has run for at most SETTLE s: every job prepared, no
row or run left running, no paid call repeated, no duplicate material, integrity ok,
projections rebuilt equal the incremental ones.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from datetime import UTC, datetime

import pytest

from tests.support.fault import (
    CLEAN,
    STAGES,
    Worker,
    add_all,
    configure,
    exceptions,
    paid_calls,
    postings,
    prepared,
    settled,
    stage_rows,
    until,
    violations,
)
from tests.support.fault_provider import FaultProvider

# Two minutes and more of one core restarting workers: CI runs it after `make test`, in
# `make test-faults` (Makefile), with the multi-worker PostgreSQL test.
pytestmark = [pytest.mark.fault, pytest.mark.heavy_fault]

SEED = 13
JOBS = int(os.environ.get("FAULT_JOBS", 24))  # smaller while developing
KILLS = int(os.environ.get("FAULT_KILLS", 20))
WAVES = 4  # the batch is added in this many waves, one before each KILLS/WAVES kills
PROVIDER_DELAY = 0.4  # below the 1.5 s heartbeat timeout: see test_provider_faults.py
PAGE_DELAY = 0.3  # Enrich's fetch, so that a kill can land inside it
CONDITION_WAIT = 4.0
SETTLE = float(os.environ.get("FAULT_SETTLE", 120))


def kill_plan(seed: int, kills: int) -> list[tuple[str, str]]:
    """(mode, stage) per kill: every stage inside and at its boundary, in a seeded order."""
    plan = [(mode, stage) for stage in STAGES for mode in ("inside", "boundary")]
    plan = (plan * (kills // len(plan) + 1))[:kills]
    random.Random(seed).shuffle(plan)
    return plan


def _observe(store, stage: str, since: datetime) -> tuple[bool, int]:
    """(a row of ``stage`` started by the current worker is running, rows succeeded)."""
    rows = [r for r in stage_rows(store) if r["stage"] == stage]
    running = any(
        r["state"] == "running" and r["started_at"] and r["started_at"] >= since for r in rows
    )
    return running, sum(r["state"] == "succeeded" for r in rows)


async def _moment(store, mode: str, stage: str, since: datetime, rng: random.Random) -> bool:
    """Wait for the kill's moment; False when it did not come within CONDITION_WAIT."""
    deadline = time.monotonic() + CONDITION_WAIT
    _, before = await asyncio.to_thread(_observe, store, stage, since)
    while time.monotonic() < deadline:
        running, succeeded = await asyncio.to_thread(_observe, store, stage, since)
        if mode == "inside" and running:
            await asyncio.sleep(rng.uniform(0, 0.4))
            return True
        if mode == "boundary" and succeeded > before:
            return True
        await asyncio.sleep(0.03)
    return False


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)  # as SQLite hands stored times back


async def test_twenty_kill_9s_lose_nothing_and_pay_once(
    home, embedded, store, settings, site, zygote
):
    started = time.monotonic()
    rng = random.Random(SEED)
    with FaultProvider(delay=PROVIDER_DELAY) as provider:
        configure(home, settings, provider)
        urls = list(postings(site, JOBS, delay=PAGE_DELAY).items())
        worker = Worker(zygote)
        ready_times = [await asyncio.to_thread(worker.start)]
        since = _now()
        job_ids: list[str] = []
        titles: dict[str, str] = {}
        kills = []
        per_wave = -(-KILLS // WAVES)
        for n, (mode, stage) in enumerate(kill_plan(SEED, KILLS)):
            if n % per_wave == 0:  # the next wave of postings
                wave = urls[len(job_ids) : len(job_ids) + -(-JOBS // WAVES)]
                added = await add_all(home, [url for _, url in wave])
                titles.update({title: job for (title, _), job in zip(wave, added, strict=True)})
                job_ids += added
            met = await _moment(store, mode, stage, since, rng)
            await asyncio.to_thread(worker.kill9)
            done = len(await asyncio.to_thread(prepared, store, job_ids))
            kills.append(f"{mode} {stage}: {'met' if met else 'not met'}, {done} prepared")
            ready_times.append(await asyncio.to_thread(worker.start))
            since = _now()
        rest = urls[len(job_ids) :]
        added = await add_all(home, [url for _, url in rest])
        titles.update({title: job for (title, _), job in zip(rest, added, strict=True)})
        job_ids += added
        killed_at = time.monotonic()
        settle: float | None = None
        try:  # the figures are printed either way; the invariants below say what broke
            settle = await until(lambda: settled(store, job_ids), SETTLE)
        except AssertionError:
            pass
        finally:
            await asyncio.to_thread(worker.stop)
        paid = paid_calls(store, provider, titles)
    broken = await asyncio.to_thread(violations, store, job_ids)
    rows = await asyncio.to_thread(stage_rows, store)
    figures = {
        "jobs": len(job_ids),
        "kills": len(kills),
        "moments_met": sum(": met" in k for k in kills),
        "kills_in_order": kills,
        "worker_ready_s": {
            "first": round(ready_times[0], 2),
            "restart_max": round(max(ready_times[1:] or [0]), 2),
        },
        "settle_after_last_kill_s": settle and round(settle, 1),
        "retried_stage_attempts": sum(max(0, r["attempts"] - 1) for r in rows),
        "auto_attempts": sum(r["auto_attempts"] for r in rows),
        "paid": paid,
        "provider": provider.counts(),
        "worker_exceptions": exceptions(worker.lines),
        "wall_s": round(time.monotonic() - started, 1),
        "after_kills_s": round(time.monotonic() - killed_at, 1),
        **broken,
    }
    print("\nFAULT kill-9 figures:", json.dumps(figures, indent=1))
    assert settle is not None, f"not settled within {SETTLE} s after the last kill"
    assert broken == CLEAN  # nothing lost or left running, integrity, projections
    # Paid once (B6 fixed: bbf0d7f, 2907de3, c5af7b3; two kills in a row on one step:
    # 4df64b9): a repeat only where a kill cut the call, held as an unsettled reservation
    # (assumed spend). Any other repeat fails the test, with its figures.
    assert not paid["recorded_twice"], f"a paid call recorded twice: {paid}"
    assert not paid["repeated_unaccounted"], f"a paid call repeated after a kill: {paid}"
