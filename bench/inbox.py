"""Benchmark: the Jobs page as an inbox (issue 30) at 20,000 jobs, against the plain list
measured in the same run.

The store is `bench/api.py`'s (every status, a tenth only added), plus what the inbox
groups by: drafts and approved materials on prepared jobs, sent applications (some past
their follow-up day), closed postings, hidden jobs and pairs of jobs that are one posting
on two boards. The app runs under uvicorn in a spawned process; one keep-alive client
asks, in turn:

- ``inbox``: ``GET /jobs`` (every job's next action decided, grouped, 25 rows a group);
- ``list``: ``GET /jobs?view=list`` (the plain list's first page of 50, as the page was
  before the inbox, each row with its next action);
- ``group``: ``GET /jobs?action=review`` (one group, a page of 50);
- ``api_inbox``: ``GET /v1/inbox``; ``api_list``: ``GET /v1/jobs`` (a page of 50).

    .venv/bin/python bench/inbox.py [--jobs 20000] [--requests 60]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import select, update

from api import _serve, measure, seed  # bench/api.py: the same store and server
from jobctrl.domain.clock import utcnow
from jobctrl.store import schema, tenancy
from jobctrl.store.application_tables import applications as A
from support import CpuMeter, fresh_home, spawned

SEED = 30
PATHS = {
    "inbox": "/jobs",
    "list": "/jobs?view=list",
    "group": "/jobs?action=review",
    "api_inbox": "/v1/inbox",
    "api_list": "/v1/jobs",
}


def shape(store: Any, rng: random.Random) -> dict[str, int]:
    """Give prepared jobs materials, applications, closed postings, hides and twins."""
    JL, J, M, H = (
        schema.job_list_projections,
        schema.jobs,
        schema.materials,
        schema.job_hides,
    )
    counts = dict.fromkeys(("drafts", "approved", "sent", "closed", "hidden", "twins"), 0)
    with store.read() as conn:
        rows = conn.execute(
            select(JL.c.job_id, JL.c.status, JL.c.title, JL.c.company, J.c.idempotency_key)
            .select_from(JL.join(J, J.c.id == JL.c.job_id))
            .where(tenancy.scoped(JL, conn), tenancy.scoped(J, conn))
        ).all()
    now = utcnow()
    with store.write() as tx:
        for job_id, status, _title, _company, key in rows:
            roll = rng.random()
            if status == "prepared" and roll < 0.30:
                state = "draft" if roll < 0.20 else "approved"
                counts["drafts" if state == "draft" else "approved"] += 1
                for kind in ("resume", "cover"):
                    tx.conn.execute(
                        M.insert().values(
                            job_id=job_id, kind=kind, generation=1, state=state, content={},
                            provider="offline", model="offline-v1", owner_run_id="bench",
                            created_at=now, tenant_id=tx.tenant,
                        )
                    )  # fmt: skip
            elif status == "prepared" and roll < 0.36:
                counts["sent"] += 1
                tx.conn.execute(
                    A.insert().values(
                        id=f"app-{job_id}", job_id=job_id, status="sent", channel="email",
                        applied_at=now - timedelta(days=rng.randrange(1, 20)),
                        created_at=now, updated_at=now, tenant_id=tx.tenant,
                    )
                )  # fmt: skip
            elif roll < 0.40:
                counts["closed"] += 1
                tx.conn.execute(
                    update(J)
                    .where(J.c.id == job_id, J.c.tenant_id == tx.tenant)
                    .values(availability="unavailable", availability_checked_at=now)
                )
            elif roll < 0.43:
                counts["hidden"] += 1
                tx.conn.execute(
                    H.insert().values(
                        tenant_id=tx.tenant, idempotency_key=key, job_id=job_id, hidden_at=now
                    )
                )
        # One posting on two boards: a job whose twin has its company, title and text.
        scored = [r for r in rows if r.title and r.company]
        for first, second in zip(scored[::50], scored[1::50], strict=False):
            counts["twins"] += 1
            text = f"{first.job_id:0<64}"
            for job_id in (first.job_id, second.job_id):
                tx.conn.execute(
                    update(J)
                    .where(J.c.id == job_id, J.c.tenant_id == tx.tenant)
                    .values(text_artifact=text)
                )
            tx.conn.execute(
                update(JL)
                .where(JL.c.job_id == second.job_id, JL.c.tenant_id == tx.tenant)
                .values(title=first.title, company=first.company)
            )
    return counts


def main(n_jobs: int, n_requests: int, keep: bool) -> dict[str, Any]:
    os.environ.pop("JOBCTRL_DATABASE_URL", None)
    home, store = fresh_home()
    root = str(home.root)
    rng = random.Random(SEED)
    figures: dict[str, Any] = {"seed": seed(store, n_jobs, rng), "shape": shape(store, rng)}
    print(f"seeded: {json.dumps(figures)}")
    with (
        spawned(_serve, root, False) as (base_url, server_pid),
        httpx.Client(base_url=base_url, timeout=60) as client,
    ):
        inbox = client.get("/v1/inbox").json()
        figures["groups"] = {g["action"]: g["count"] for g in inbox["groups"]}
        figures["hidden"] = inbox["hidden"]
        figures["get_ms"] = measure(client, PATHS, n_requests, warmup=3, budget_s=240)
        meter = CpuMeter(server_pid)
        cpu: dict[str, float] = {}
        for name, path in PATHS.items():
            meter.lap()
            for _ in range(10):
                client.get(path)
            cpu[name] = round(meter.lap()["server"] * 1000 / 10, 1)
        figures["server_cpu_ms_per_request"] = cpu
    print(json.dumps(figures, indent=2))
    store.dispose()
    if not keep:
        shutil.rmtree(root, ignore_errors=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--keep", action="store_true", help="keep the home (and its database)")
    args = parser.parse_args()
    main(args.jobs, args.requests, args.keep)
