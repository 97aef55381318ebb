"""Benchmark: `GET /v1/jobs` with 100 tenants × 1,000 jobs (100,000 list rows) in one
store, on SQLite and on PostgreSQL, each request sent with a tenant's own API token (the
server acts for the token's tenant: api/security.py, api/deps.py). Issue 14; see
docs/PERFORMANCE.md.

    .venv/bin/python bench/api_tenants.py [--tenants 100] [--per-tenant 1000]
        [--sample 10] [--requests 200] [--stores sqlite,postgres] [--json]

Per store: a fresh home (SQLite in it, or a new database on the tests' throwaway
PostgreSQL server); ``--tenants`` tenants added as `jobctrl tenants add` adds them (folder,
api-token, config.yaml, the token's hash in the store); then each tenant's
``--per-tenant`` rows written straight into the Jobs list projection
(``job_list_projections``, stamped with the tenant; one multi-row INSERT per tenant
through ``Store.for_tenant(t).write()``): only the list's rows, no jobs, stage rows or
events behind them — the listing reads nothing else. The mix of statuses, scores and
titles is bench/api.py's. On PostgreSQL the table is then ANALYZEd (what autovacuum does
within a minute of such a load); SQLite is read as shipped (no ANALYZE).

The server is the real app under uvicorn in a spawned process (bench/api.py's ``_serve``);
this process sends, over one keep-alive connection, each listing in turn as ``--sample``
tenants (each with its Bearer token), ``--requests`` times per listing. Printed per
listing: p50/p95/p99/max ms and the server's CPU ms per request; each tenant's total is
checked against its own row count (another tenant's rows would show). Then the statements
the listing runs are captured from the app's own query and EXPLAINed on that store: the
first line of the plan, the index it reads (a tenant-leading one?) and whether it sorts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import event, insert

from api import _FATES, _posting, _score, _serve, _url
from jobctrl.app import queries
from jobctrl.app.tenants import add_tenant
from jobctrl.domain.clock import utcnow
from jobctrl.home import Home
from jobctrl.store import schema
from jobctrl.store.store import Store
from support import (
    CpuMeter,
    emit,
    fresh_home,
    parse_with_stores,
    percentiles,
    spawned,
    store_server,
    use_store,
)

SEED = 14
JL = schema.job_list_projections
# Each row's list status from the stages bench/api.py's mix leaves (enrich, score).
_STATUS = {
    ("failed", "pending"): ("failed", "enrich"),
    ("running", "pending"): ("running", "enrich"),
    ("succeeded", "pending"): ("pending", "score"),
    ("succeeded", "failed"): ("failed", "score"),
    ("succeeded", "succeeded"): ("prepared", "pdf"),
}


def listings(per_tenant: int) -> dict[str, dict[str, Any]]:
    """The listings measured (query parameters of GET /v1/jobs)."""
    return {
        "first_page": {},
        "filtered": {"status": "prepared", "min_score": 70, "q": "engineer"},
        "status_only": {"status": "failed"},
        "min_score": {"min_score": 80},
        "rare_q": {"q": "principal go developer"},
        "sorted_updated": {"sort": "updated", "offset": per_tenant // 2},
        "sorted_created": {"sort": "created", "offset": per_tenant // 2},
    }


# -- the fill ------------------------------------------------------------------------------


def _rows(tenant: str, n: int, rng: random.Random) -> list[dict[str, Any]]:
    fates = [f for f, _ in _FATES]
    weights = [w for _, w in _FATES]
    now = utcnow()
    rows = []
    for i in range(n):
        url, posting = _posting(rng, i)
        url = url.replace("?", f"?tenant={tenant}&")
        status, stage = _STATUS[rng.choices(fates, weights)[0]]
        score = _score(rng) if stage == "pdf" else None  # scored: prepared, or skipped
        if score is not None and score < 60:
            status = "skipped"
        created = now - timedelta(minutes=rng.randrange(90 * 24 * 60))
        rows.append(
            {
                "job_id": hashlib.sha256(f"{tenant}:{i}".encode()).hexdigest()[:12],
                "url": url,
                **posting,
                "score": score,
                "verdict": None if score is None else "fit" if score >= 60 else "weak fit",
                "status": status,
                "current_stage": stage,
                "error_code": "enrich_timeout" if status == "failed" else None,
                "created_at": created,
                "updated_at": created + timedelta(minutes=rng.randrange(600)),
                "last_seq": 0,
                "stages": None,
                "title_source": "page",
                "tenant_id": tenant,
            }
        )
    return rows


def fill(home: Home, store: Store, n_tenants: int, per_tenant: int) -> dict[str, Any]:
    """The tenants (as `jobctrl tenants add`) and their rows; {tenant: token}."""
    rng = random.Random(SEED)
    started = time.perf_counter()
    names = [f"tenant{i:03d}" for i in range(n_tenants)]
    for name in names:
        add_tenant(home, name)
    added = time.perf_counter() - started
    for name in names:
        with store.for_tenant(name).write() as tx:
            tx.conn.execute(insert(JL), _rows(name, per_tenant, rng))
    if store.writer.dialect.name == "postgresql":
        with store.writer.begin() as conn:
            conn.exec_driver_sql("ANALYZE job_list_projections")
    seconds = time.perf_counter() - started
    tokens = {n: home.with_tenant(n).token_path.read_text().strip() for n in names}
    return {
        "tokens": tokens,
        "figures": {
            "tenants": n_tenants,
            "rows": n_tenants * per_tenant,
            "tenants_add_s": round(added, 1),
            "seconds": round(seconds, 1),
        },
    }


# -- requests ------------------------------------------------------------------------------


def measure(
    client: httpx.Client,
    meter: CpuMeter,
    tokens: dict[str, str],
    paths: dict[str, str],
    n: int,
    per_tenant: int,
) -> dict[str, Any]:
    """``n`` requests per listing, the listings in turn, each as the next sampled tenant;
    then ``n`` more per listing for its server CPU. Checks each first page's total."""
    sample = list(tokens.items())
    heads = {t: {"Authorization": f"Bearer {tok}"} for t, tok in sample}
    for k in range(5):  # warm-up (and the token cache)
        for path in paths.values():
            client.get(path, headers=heads[sample[k % len(sample)][0]])
    times: dict[str, list[float]] = {name: [] for name in paths}
    for i in range(n):
        tenant = sample[i % len(sample)][0]
        for name, path in paths.items():
            started = time.perf_counter()
            response = client.get(path, headers=heads[tenant])
            times[name].append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                raise RuntimeError(f"{path} as {tenant}: HTTP {response.status_code}")
            if name == "first_page" and response.json()["total"] != per_tenant:
                raise RuntimeError(f"{tenant} sees {response.json()['total']} jobs")
    out: dict[str, Any] = {name: percentiles(ms) for name, ms in times.items()}
    for name, path in paths.items():
        meter.lap()
        for i in range(n):
            client.get(path, headers=heads[sample[i % len(sample)][0]])
        out[name]["server_cpu_ms"] = round(meter.lap()["server"] * 1000 / n, 2)
    return out


def plans(home: Home, store: Store, tenant: str, wanted: dict[str, dict[str, Any]]) -> Any:
    """Each listing's statements (count, page) as the app runs them for ``tenant``,
    EXPLAINed on this store: {listing: [(kind, first line, first access line)]}."""
    captured: list[tuple[str, Any]] = []

    def grab(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if "job_list_projections" in statement:  # not the tenant check of a first open
            captured.append((statement, parameters))

    sqlite = store.reader.dialect.name == "sqlite"
    out: dict[str, list[dict[str, str]]] = {}
    for name, params in wanted.items():
        captured.clear()
        event.listen(store.reader, "before_cursor_execute", grab)
        try:
            queries.find_jobs(home.with_tenant(tenant), queries.JobFilter(limit=50, **params))
        finally:
            event.remove(store.reader, "before_cursor_execute", grab)
        out[name] = []
        with store.reader.connect() as conn:
            for sql, parameters in captured:
                explain = ("EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN ") + sql
                lines = [str(r[-1]) for r in conn.exec_driver_sql(explain, parameters)]
                scans = [x for x in lines if "SCAN" in x.upper() or "SEARCH" in x]
                access = next((x for x in scans if "INDEX" in x.upper()), scans[0] if scans else "")
                access = access.strip().removeprefix("->").strip()
                if any(" Sort " in f" {x} " or "TEMP B-TREE" in x for x in lines):
                    access += " + a sort"
                kind = "count" if "count(" in sql.lower() else "page"
                out[name].append(
                    {"kind": kind, "first": lines[0].strip(), "access": access, "plan": lines}
                )
    return out


# -- the run -------------------------------------------------------------------------------


def run_store(kind: str, pg: Any, args: argparse.Namespace) -> dict[str, Any]:
    use_store(kind, pg, f"bench_tenants_{os.getpid()}")
    home, store = fresh_home("jobctrl-bench-tenants-")
    filled = fill(home, store, args.tenants, args.per_tenant)
    print(f"{kind}: filled {json.dumps(filled['figures'])}", file=sys.stderr)
    tokens = dict(list(filled["tokens"].items())[:: max(1, args.tenants // args.sample)])
    wanted = listings(args.per_tenant)
    paths = {name: _url("/v1/jobs", params) for name, params in wanted.items()}
    out: dict[str, Any] = {"store": kind, "fill": filled["figures"], "tenants_sampled": len(tokens)}
    with (
        spawned(_serve, str(home.root), False) as (base_url, server_pid),
        httpx.Client(base_url=base_url, timeout=60) as client,
    ):
        tokenless = client.get("/v1/jobs").json()["total"]  # the server's tenant: local
        out["tokenless_total"] = tokenless
        out["get"] = measure(
            client, CpuMeter(server_pid), tokens, paths, args.requests, args.per_tenant
        )
    out["plans"] = plans(home, store, next(iter(tokens)), wanted)
    store.dispose()
    return out


def _plan(page: dict[str, str]) -> str:
    first, access = page.get("first", ""), page.get("access", "")
    return access or first if access.startswith(first) else f"{first} | {access}"


def _report(figures: dict[str, Any]) -> None:
    for s in figures["stores"]:
        f = s["fill"]
        print(
            f"\n{s['store']}: {f['rows']} rows, {f['tenants']} tenants "
            f"(filled in {f['seconds']} s); as {s['tenants_sampled']} of them; "
            f"without a token: {s['tokenless_total']} rows"
        )
        print(
            f"  {'listing':<16}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}{'CPU ms':>8}  plan (page)"
        )
        for name, st in s["get"].items():
            page = next((p for p in s["plans"][name] if p["kind"] == "page"), {})
            print(
                f"  {name:<16}{st['p50']:>8.2f}{st['p95']:>8.2f}{st['p99']:>8.2f}{st['max']:>8.2f}"
                f"{st['server_cpu_ms']:>8.2f}  {_plan(page)}"
            )


def main(args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {"cpus": os.cpu_count(), "requests": args.requests, "stores": []}
    for kind in args.stores:
        with store_server(kind) as pg:
            figures["stores"].append(run_store(kind, pg, args))
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--per-tenant", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=10, help="tenants the requests act as")
    parser.add_argument("--requests", type=int, default=200, help="per listing")
    args = parse_with_stores(parser, "sqlite,postgres")
    emit(main(args), args, _report)
