"""The reconciler of start intents never lets intents that keep failing starve new ones."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from jobctrl.domain.errors import JOB_NOT_FOUND, JobctrlError
from jobctrl.home import Home
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, start_intents
from jobctrl.store.store import Store
from jobctrl.worker import recovery


def test_intents_that_failed_before_go_after_new_ones(home: Home, store: Store, monkeypatch):
    ctx = StageContext(home=home, store=store)
    old = ctx.now() - timedelta(minutes=5)
    with store.write(clock=lambda: old) as tx:
        for n in range(4):  # four intents that cannot be started (their job is gone)
            start_intents.intend(tx, f"prep-gone-{n}", f"gone{n}")
        job = jobs.create_job_in(tx, "https://example.com/jobs/1")
        start_intents.intend(tx, "prep-good", job.job_id)
    tried: list[str] = []

    async def start(client: Any, home: Home, store: Store, job_id: str, key: str, **kw: Any):
        tried.append(kw["workflow_id"])
        if job_id.startswith("gone"):
            raise JobctrlError("no such job", code=JOB_NOT_FOUND)

    monkeypatch.setattr(recovery.starts, "start_preparation", start)
    monkeypatch.setattr(recovery.jobs, "job_row", lambda store, job_id: {"idempotency_key": job_id})
    failed: dict[str, str] = {}
    # With room for only two starts a pass, the first pass meets two of the failing ones …
    assert asyncio.run(recovery.start_intended(None, ctx, limit=2, failed=failed)) == 0
    assert len(failed) == 2
    # … and later passes try the others and the good one before those again.
    started = sum(
        asyncio.run(recovery.start_intended(None, ctx, limit=2, failed=failed)) for _ in range(2)
    )
    assert started == 1 and "prep-good" in tried
    ctx.close()
