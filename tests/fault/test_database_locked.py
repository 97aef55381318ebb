"""The database held locked by another process for HOLD s while `jobctrl worker` prepares a
batch: stages wait or fail retryably (``database_busy``), none is lost, all are prepared
once the lock is gone.

The other process holds ``BEGIN EXCLUSIVE`` on jobctrl.db (readers go on under WAL;
every writer waits). The worker's writers give up after BUSY_TIMEOUT s
(``JOBCTRL_DB_BUSY_TIMEOUT``), shorter than the hold, so both ways out are taken: a write
that waits it out, and one that fails as busy and is retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time

import pytest

from tests.support.fault import (
    CLEAN,
    Worker,
    add_all,
    by_job,
    configure,
    exceptions,
    postings,
    prepared,
    settled,
    stage_rows,
    until,
    violations,
)

# A `jobctrl worker` process and a locker process through the twenty seconds issue 13 asks
# for (34 s in all): `make test-faults` runs it before the three workers on PostgreSQL while
# its other worker runs the rate limits and the kill test, inside the time that pass takes;
# `make test` leaves it out (docs/PERFORMANCE.md, "Suite time, session of 2026-12-07
# afternoon").
pytestmark = [pytest.mark.fault, pytest.mark.heavy_fault]

JOBS = 10
HOLD = 20.0
BUSY_TIMEOUT = "8"
SCORE_MS = 1000

LOCKER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
print("released", flush=True)
"""


async def test_a_database_locked_for_twenty_seconds_loses_nothing(
    home, embedded, store, settings, site, monkeypatch, zygote
):
    started = time.monotonic()
    monkeypatch.setenv("JOBCTRL_DB_BUSY_TIMEOUT", BUSY_TIMEOUT)
    configure(home, settings, None, providers__offline__latency_ms=SCORE_MS)
    urls = postings(site, JOBS)
    worker = Worker(zygote)
    await asyncio.to_thread(worker.start)
    try:
        job_ids = await add_all(home, list(urls.values()))
        await until(lambda: any(r["state"] == "running" for r in stage_rows(store)), 30, 0.05)
        before = len(prepared(store, job_ids))
        locker = subprocess.Popen(
            [sys.executable, "-c", LOCKER, str(home.database_path), str(HOLD)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        locked_at = time.monotonic()
        await asyncio.to_thread(locker.wait, HOLD + 30)
        released = time.monotonic()
        during = len(prepared(store, job_ids)) - before
        settle = None
        with contextlib.suppress(AssertionError):  # the figures are printed either way
            settle = await until(lambda: settled(store, job_ids), 60)
    finally:
        await asyncio.to_thread(worker.stop)
    rows = await asyncio.to_thread(by_job, store)
    broken = await asyncio.to_thread(violations, store, job_ids)
    busy_lines = [line for line in worker.lines if "database_busy" in line or "locked" in line]
    figures = {
        "jobs": JOBS,
        "held_s": round(released - locked_at, 1),
        "busy_timeout_s": float(BUSY_TIMEOUT),
        "prepared_before_lock": before,
        "prepared_while_locked": during,
        "all_prepared_after_release_s": settle and round(settle, 1),
        "retried_stage_attempts": sum(
            max(0, r["attempts"] - 1) for j in rows.values() for r in j.values()
        ),
        "auto_attempts": sum(r["auto_attempts"] for j in rows.values() for r in j.values()),
        "worker_lines_saying_busy": len(busy_lines),
        "tracebacks_in_worker_output": sum("Traceback" in line for line in worker.lines),
        "worker_exceptions": exceptions(worker.lines),
        "wall_s": round(time.monotonic() - started, 1),
        **broken,
    }
    print("\nFAULT locked-database figures:", json.dumps(figures, indent=1))
    assert settle is not None, "not every job was prepared after the lock was released"
    assert broken == CLEAN
