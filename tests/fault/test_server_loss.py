"""The embedded Temporal server `kill -9`ed twice under a running `jobctrl worker` (its
`temporal` child): the worker starts it again on the same address and history, every
preparation finishes or is visibly reconciled, nothing is silently lost.

JOBS postings through all five stages, Score slowed to SCORE_MS by the offline provider so
that work is in flight at each kill: the first while a Score runs, the second
SECOND_KILL s later.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time

import psutil
import pytest

from tests.support.fault import (
    CLEAN,
    Worker,
    add_all,
    configure,
    postings,
    server_pid,
    settled,
    stage_rows,
    until,
    violations,
)

pytestmark = pytest.mark.fault

JOBS = 12
SCORE_MS = 1500
SECOND_KILL = 3.0
SETTLE = 120.0


async def _kill_server(home) -> float:
    """kill -9 the server; seconds until a new one (another pid) is recorded and alive."""
    before = server_pid(home)
    assert before is not None and psutil.pid_exists(before)
    os.kill(before, signal.SIGKILL)
    killed = time.monotonic()

    def back() -> bool:
        pid = server_pid(home)
        return pid is not None and pid != before and psutil.pid_exists(pid)

    await until(back, 30, step=0.05)
    return time.monotonic() - killed


async def test_a_killed_server_is_restarted_and_nothing_is_lost(
    home, embedded, store, settings, site
):
    started = time.monotonic()
    configure(home, settings, None, providers__offline__latency_ms=SCORE_MS)
    urls = postings(site, JOBS)
    worker = Worker()
    await asyncio.to_thread(worker.start)
    try:
        job_ids = await add_all(home, list(urls.values()))
        await until(lambda: any(r["state"] == "running" for r in stage_rows(store)), 30, 0.05)
        in_flight = sum(r["state"] == "running" for r in stage_rows(store))
        restarts = [await _kill_server(home)]
        await asyncio.sleep(SECOND_KILL)
        restarts.append(await _kill_server(home))
        settle = await until(lambda: settled(store, job_ids), SETTLE)
        assert worker.process is not None and worker.process.proc.poll() is None, "kept running"
    finally:
        code = await asyncio.to_thread(worker.stop)
    broken = await asyncio.to_thread(violations, store, job_ids)
    rows = await asyncio.to_thread(stage_rows, store)
    figures = {
        "jobs": JOBS,
        "server_kills": len(restarts),
        "rows_running_at_first_kill": in_flight,
        "server_back_s": [round(s, 2) for s in restarts],
        "all_prepared_after_s": round(settle, 1),
        "retried_stage_attempts": sum(max(0, r["attempts"] - 1) for r in rows),
        "auto_attempts": sum(r["auto_attempts"] for r in rows),
        "wall_s": round(time.monotonic() - started, 1),
        **broken,
    }
    print("\nFAULT server-loss figures:", json.dumps(figures, indent=1))
    assert broken == CLEAN
    assert code == 0, "the worker stops cleanly on SIGTERM"
    assert sum("restarting it at" in line for line in worker.lines) == 2
    assert not any("Traceback" in line for line in worker.lines)
