"""Benchmark: the follow-up scan at 10,000 applications (issue 33).

What a scan costs each time something asks which applications a follow-up is due for
(`jobctrl followups`, ``GET /v1/followups``, and once per heartbeat if the worker asks):
``app.followups.list_followups`` — one query (``query``: ``store.outbound.due_followups``
alone) over the applications sent long enough ago with no answer, joined with their
follow-ups counted, then the spacing rule and a view per due application — and the
inbox's follow-up facts (``store.outbound.followup_counts``, read with every inbox).

The store: ``--applications`` jobs, each with an application (sent, submitted or marked
applied, spread over the last 60 days; a fifth with an outcome that stops follow-ups),
and a sent follow-up on a third of those sent more than a week ago (two on some).

    .venv/bin/python bench/followups.py [--applications 10000] [--scans 50]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from datetime import timedelta
from typing import Any

from jobctrl.app.followups import list_followups
from jobctrl.domain.applications import new_application_id
from jobctrl.domain.clock import utcnow
from jobctrl.domain.followups import new_outbound_id
from jobctrl.store import outbound, schema
from jobctrl.store.application_tables import applications as A
from jobctrl.store.outbound_tables import outbound_messages as O
from support import fresh_home, percentiles

SEED = 33


def seed(store: Any, n: int, rng: random.Random) -> dict[str, int]:
    """``n`` jobs with an application each, and follow-ups on some; the counts."""
    now = utcnow()
    jobs, apps, sent = [], [], []
    counts = {"applications": n, "followups": 0, "answered": 0}
    for i in range(n):
        job_id = f"{i:012x}"
        applied = now - timedelta(days=rng.uniform(0, 60))
        outcome = rng.choice(["interview", "rejected"]) if rng.random() < 0.2 else None
        counts["answered"] += outcome is not None
        jobs.append(
            {
                "tenant_id": store.tenant,
                "id": job_id,
                "idempotency_key": f"k{i}",
                "url": f"https://jobs.example.com/{i}",
                "canonical_url": f"https://jobs.example.com/{i}",
                "title": "Engineer",
                "company": f"Company {i % 500}",
                "created_at": applied,
                "updated_at": applied,
            }
        )
        app_id = new_application_id()
        apps.append(
            {
                "tenant_id": store.tenant,
                "id": app_id,
                "job_id": job_id,
                "status": rng.choice(["sent", "sent", "submitted", "applied"]),
                "outcome": outcome,
                "channel": "email",
                "email_to": ["jobs@example.com"],
                "email_subject": "Application: Engineer",
                "message_id": f"<jobctrl.{app_id}@example.com>",
                "applied_at": applied,
                "created_at": applied,
                "updated_at": applied,
                "source": "jobctrl",
            }
        )
        if applied < now - timedelta(days=7) and rng.random() < 1 / 3:
            for k in range(1 if rng.random() < 0.7 else 2):
                sent.append(
                    {
                        "tenant_id": store.tenant,
                        "id": new_outbound_id(),
                        "kind": "followup",
                        "channel": "email",
                        "job_id": job_id,
                        "application_id": app_id,
                        "sequence": k + 1,
                        "status": "sent",
                        "email_to": ["jobs@example.com"],
                        "email_subject": "Re: Application: Engineer",
                        "email_body": "Following up.",
                        "sent_at": applied + timedelta(days=7 * (k + 1)),
                        "created_at": applied + timedelta(days=7 * (k + 1)),
                        "updated_at": applied + timedelta(days=7 * (k + 1)),
                    }
                )
    counts["followups"] = len(sent)
    with store.write() as tx:
        tx.conn.execute(schema.jobs.insert(), jobs)
        tx.conn.execute(A.insert(), apps)
        tx.conn.execute(O.insert(), sent)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--applications", type=int, default=10_000)
    parser.add_argument("--scans", type=int, default=50)
    args = parser.parse_args()
    home, store = fresh_home("jobctrl-bench-followups-")
    counts = seed(store, args.applications, random.Random(SEED))
    due = list_followups(home)  # warm: the settings and the engine
    scans, facts, queries = [], [], []
    for _ in range(args.scans):
        start = time.perf_counter()
        outbound.due_followups(store, utcnow(), after_days=7, max_count=2)
        queries.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        due = list_followups(home)
        scans.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        with store.read() as conn:
            counted = outbound.followup_counts(conn)
        facts.append((time.perf_counter() - start) * 1000)
    result = {
        **counts,
        "due": len(due),
        "with_followups": len(counted),
        "scan_ms": percentiles(scans),
        "scan_mean_ms": round(statistics.mean(scans), 2),
        "query_ms": percentiles(queries),
        "inbox_facts_ms": percentiles(facts),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
