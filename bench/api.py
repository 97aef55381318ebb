"""Benchmark: the HTTP API over a store of 20,000 jobs.

- Latency (p50/p95/max) and server CPU of `GET /v1/jobs`: the first page; filtered by
  status, score and text; sorted by update and by creation with an offset; against the
  framework's floor measured in the same run (a 404, and `GET /v1/settings`).
- The query plans of those listings without migration 0009's order indexes (dropped in
  the bench's own database for a baseline) and as shipped; what they cost the write path.
- The time from an event's commit to its arrival at a client of `GET /v1/events/stream`,
  and the server CPU an idle open stream costs.
- The floor again through the socket `jobctrl up` makes (`jobctrl.api.server.bind`).

The server is the real app under uvicorn in a spawned process (as `jobctrl up` runs
apart from the worker that writes); this process seeds the store, sends the requests over
one keep-alive connection and writes the events the stream should deliver. See
docs/PERFORMANCE.md.

    .venv/bin/python bench/api.py [--jobs 20000] [--requests 200] [--events 100] [--keep]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import multiprocessing
import os
import random
import runpy
import shutil
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import event, func, select
from sqlalchemy.schema import CreateIndex, DropIndex

import jobctrl
from jobctrl.domain import ids
from jobctrl.domain.clock import utcnow
from jobctrl.domain.errors import ENRICH_TIMEOUT, MIN_SCORE, PROVIDER_UNAVAILABLE
from jobctrl.domain.events import (
    JobCreated,
    JobEnriched,
    JobScored,
    StageFailed,
    StageStarted,
    StageSucceeded,
)
from jobctrl.domain.stages import LATER_STAGES, PREPARATION_STAGES
from jobctrl.domain.tenants import LOCAL
from jobctrl.home import Home
from jobctrl.store import jobs, schema, stage_states
from jobctrl.store.db import upsert
from jobctrl.store.store import Store, WriteTx
from support import CpuMeter, PeakRss, fresh_home, spawned

SEED = 5
BATCH = 250  # jobs per write transaction while seeding
MIN_FIT = 60  # jobs scored below it have their later stages skipped, as Score does

# The listings measured (query parameters of GET /v1/jobs).
LISTINGS: dict[str, dict[str, Any]] = {
    "first_page": {},
    "filtered": {"status": "prepared", "min_score": 70, "q": "engineer"},
    "sorted_updated": {"sort": "updated", "offset": 1000},
    "sorted_created": {"sort": "created", "offset": 1000},
    "status_only": {"status": "failed"},  # 1,458 rows
    "rare_q": {"q": "principal go developer"},  # 67 rows, nothing else to narrow them
}
FLOORS = {"floor_404": "/v1/no-such-route", "settings": "/v1/settings"}
# The Jobs list's order indexes (migration 0009's, tenant-first since 0023), one per order
# with its ORDER BY's exact expressions (so SQLite reads a page in index order instead of
# sorting every row). The bench drops them for its baseline and puts back the schema's own
# definitions: one source of truth.
MIGRATION = (
    Path(jobctrl.__file__).parent / "store/migrations/versions/0009_job_list_order_indexes.py"
)
ORDER_INDEXES = [
    ix
    for ix in schema.job_list_projections.indexes
    if ix.name in runpy.run_path(str(MIGRATION))["INDEXES"]
]
INDEXES: dict[str, list[str]] = {
    str(ix.name): [str(e) for e in ix.expressions] for ix in ORDER_INDEXES
}

_SENIORITY = ("", "Junior ", "Senior ", "Staff ", "Lead ", "Principal ", "Senior ", "")
_ROLES = (
    "Backend Engineer", "Frontend Engineer", "Full-Stack Engineer", "Data Engineer",
    "Platform Engineer", "Site Reliability Engineer", "Machine Learning Engineer",
    "Software Engineer", "Mobile Engineer (iOS)", "Android Developer", "Data Scientist",
    "Data Analyst", "Product Manager", "Product Designer", "UX Researcher",
    "Engineering Manager", "Security Analyst", "QA Specialist", "DevOps Specialist",
    "Solutions Architect", "Technical Writer", "Developer Advocate", "Analytics Lead",
    "Python Developer", "Go Developer", "Database Administrator", "Support Specialist",
)  # fmt: skip
_COMPANY_A = (
    "Alder", "Bright", "Cinder", "Dove", "Ember", "Fox", "Granite", "Hollow", "Iron",
    "Juniper", "Kitti", "Lark", "Moor", "Nettle", "Oak", "Pebble", "Quarry", "Rowan", "Salt",
    "Thistle", "Umber", "Vale", "Willow", "Yarrow",
)  # fmt: skip
_COMPANY_B = (
    "brook Health", "lane Mobility", "well Games", "tail Robotics", "line Insurance",
    "glove Learning", " Peak Analytics", "tree Media", "bark Security", " Grid", "wake Travel",
    "spur Legal", "hen Logistics", "field Agritech", "um Payments", " Finance", " Studio",
    " & Slate", "marsh Bio", "down HR",
)  # fmt: skip
_PLACES = (
    "London, GB", "Manchester, GB", "Dublin, IE", "Amsterdam, NL", "Berlin, DE", "Munich, DE",
    "Paris, FR", "Lisbon, PT", "Barcelona, ES", "Stockholm, SE", "New York, US", "Remote",
    "Remote (EU)", "Austin, US", "Toronto, CA",
)  # fmt: skip
# What becomes of a job: the states Enrich and Score are left in, with its weight (the mix
# gives the list every status).
_FATES = (
    (("failed", "pending"), 4), (("running", "pending"), 2), (("succeeded", "pending"), 8),
    (("succeeded", "failed"), 3), (("succeeded", "succeeded"), 73),
)  # fmt: skip
_FAILURES = {"enrich": ENRICH_TIMEOUT, "score": PROVIDER_UNAVAILABLE}
NEW_SHARE = 0.10  # jobs only added (JobCreated), made through jobs.create_job one by one


def _posting(rng: random.Random, i: int) -> tuple[str, dict[str, Any]]:
    company = rng.choice(_COMPANY_A) + rng.choice(_COMPANY_B)
    slug = company.lower().replace(" ", "").replace("&", "and")
    url = f"https://boards.example-{rng.randrange(40)}.com/{slug}/jobs/{i}?utm_source=bench"
    return url, {
        "title": rng.choice(_SENIORITY) + rng.choice(_ROLES),
        "company": company,
        "location": rng.choice(_PLACES),
        "remote": rng.random() < 0.3,
    }


def _score(rng: random.Random) -> int:
    return max(0, min(100, round(rng.gauss(62, 16))))


def _add_job(
    tx: WriteTx, url: str, posting: dict[str, Any], fate: tuple[str, str], score: int
) -> None:
    """One job as the worker leaves it, with the rows and events Enrich and Score write:
    ``fate`` is the two stages' states (pending, running, failed or succeeded)."""
    canonical = ids.canonical_url(url)
    key = ids.idempotency_key(canonical, LOCAL)
    job_id = ids.job_id_for(key)
    now = utcnow()
    upsert(
        tx.conn,
        schema.jobs,
        {
            "id": job_id,
            "idempotency_key": key,
            "url": url,
            "canonical_url": canonical,
            "source": "manual",
            "created_at": now,
            "updated_at": now,
        },
        keys=["id"],
    )
    states = dict(zip((s.value for s in PREPARATION_STAGES), fate, strict=True))
    for stage, state in states.items():
        upsert(
            tx.conn,
            schema.job_stage_states,
            {
                "job_id": job_id,
                "stage": stage,
                "state": state,
                "attempts": 0 if state == "pending" else 1,
                "created_at": now,
                "updated_at": now,
            },
            keys=["job_id", "stage"],
        )
    tx.append(
        JobCreated(job_id=job_id, url=url, canonical_url=canonical, idempotency_key=key),
        key=f"job-created:{key}",
    )
    run = f"bench-{job_id}"
    sha = hashlib.sha256(url.encode()).hexdigest()
    for stage, state in states.items():
        if state == "pending":
            break
        if stage == "enrich" and state == "succeeded":
            tx.append(
                JobEnriched(
                    job_id=job_id, method="jsonld", raw_artifact=sha, text_artifact=sha, **posting
                ),
                key=f"job-enriched:{job_id}:{run}:1",
            )
        tx.append(
            StageStarted(job_id=job_id, stage=stage, attempt=1, run_id=run),
            key=f"stage-started:{job_id}:{stage}:{run}:1",
        )
        if state == "failed":
            tx.append(
                StageFailed(
                    job_id=job_id,
                    stage=stage,
                    attempt=1,
                    run_id=run,
                    error_code=_FAILURES[stage],
                    retryable=True,
                ),
                key=f"stage-failed:{job_id}:{stage}:{run}:1",
            )
        elif state == "succeeded":
            if stage == "score":
                verdict = "strong fit" if score >= 80 else "fit" if score >= MIN_FIT else "weak fit"
                tx.append(
                    JobScored(
                        job_id=job_id,
                        score=score,
                        verdict=verdict,
                        provider="offline",
                        model="offline-v1",
                        requirements_total=8,
                        requirements_matched=round(score / 12.5),
                        report_artifact=sha,
                    ),
                    key=f"job-scored:{job_id}:{run}:1",
                )
            tx.append(
                StageSucceeded(job_id=job_id, stage=stage, attempt=1, run_id=run),
                key=f"stage-succeeded:{job_id}:{stage}:{run}:1",
            )
    if states["score"] == "succeeded" and score < MIN_FIT:
        for later in LATER_STAGES:
            stage_states.skip_stage(tx, job_id, later.value, MIN_SCORE)


def seed_batched(store: Store, indexes: range, rng: random.Random) -> float:
    """Jobs ``indexes`` in transactions of ``BATCH``; returns the seconds it took."""
    fates = [f for f, _ in _FATES]
    weights = [w for _, w in _FATES]
    started = time.perf_counter()
    for lo in range(indexes.start, indexes.stop, BATCH):
        with store.write() as tx:
            for i in range(lo, min(lo + BATCH, indexes.stop)):
                url, posting = _posting(rng, i)
                _add_job(tx, url, posting, rng.choices(fates, weights)[0], _score(rng))
    return time.perf_counter() - started


def seed(store: Store, n: int, rng: random.Random) -> dict[str, Any]:
    """``n`` jobs: a tenth through `jobs.create_job` (one transaction each, as `jobctrl add`
    writes them), the rest in batches of ``BATCH`` per transaction with every event of
    Enrich and Score, folded into the projections by the store as it commits."""
    n_new = round(n * NEW_SHARE)
    started = time.perf_counter()
    for i in range(n_new):
        jobs.create_job(store, _posting(rng, i)[0])
    single = time.perf_counter() - started
    batched = seed_batched(store, range(n_new, n), rng)
    with store.read() as conn:
        events = conn.execute(select(func.count()).select_from(schema.job_events)).scalar_one()
    return {
        "jobs": n,
        "create_job_jobs": n_new,
        "create_job_jobs_per_s": round(n_new / single, 1),
        "batched_jobs": n - n_new,
        "batched_jobs_per_s": round((n - n_new) / batched, 1),
        "seed_seconds": round(single + batched, 1),
        "events": events,
    }


# -- the server ----------------------------------------------------------------------------


def _serve(root: str, product_socket: bool, queue: multiprocessing.Queue) -> None:
    """The app under uvicorn on a free loopback port, in a process of its own (as `jobctrl
    up` runs apart from the worker), so its CPU can be measured; puts its base URL on
    ``queue``. ``product_socket``: the socket comes from `jobctrl.api.server.bind`, as
    `jobctrl up` makes it; otherwise it is made with an explicit IPPROTO_TCP, so asyncio
    switches Nagle's algorithm off on each connection (it does so only for sockets whose
    ``proto`` says TCP)."""
    import uvicorn

    from jobctrl.api.app import create_app
    from jobctrl.api.server import bind

    if product_socket:
        sock = bind("127.0.0.1", 0)
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(Home(Path(root)), port=port),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=1,
    )
    queue.put(f"http://127.0.0.1:{port}")
    uvicorn.Server(config).run(sockets=[sock])


# -- GET latency ---------------------------------------------------------------------------


def _url(path: str, params: dict[str, Any]) -> str:
    return str(httpx.URL(path, params=params)) if params else path


def _stats(ms: list[float]) -> dict[str, float]:
    s = sorted(ms)
    mid = len(s) // 2
    return {
        "n": len(s),
        "p50": round(s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2, 2),
        "p95": round(s[math.ceil(0.95 * len(s)) - 1], 2),
        "max": round(s[-1], 2),
    }


def measure(
    client: httpx.Client, paths: dict[str, str], n: int, *, warmup: int = 20, budget_s: float = 45
) -> dict[str, dict[str, float]]:
    """``n`` requests per path, taken in turn (so the machine's noise falls on all alike),
    after ``warmup`` rounds; stops early when ``budget_s`` is spent."""
    expected = {name: 404 if name == "floor_404" else 200 for name in paths}
    for _ in range(warmup):
        for path in paths.values():
            client.get(path)
    times: dict[str, list[float]] = {name: [] for name in paths}
    deadline = time.perf_counter() + budget_s
    for _ in range(n):
        for name, path in paths.items():
            started = time.perf_counter()
            response = client.get(path)
            times[name].append((time.perf_counter() - started) * 1000)
            if response.status_code != expected[name]:
                raise RuntimeError(f"{path}: HTTP {response.status_code} {response.text[:200]}")
        if time.perf_counter() > deadline:
            break
    return {name: _stats(ms) for name, ms in times.items()}


def cpu_per_request(
    client: httpx.Client, meter: CpuMeter, paths: dict[str, str], n: int
) -> dict[str, float]:
    """Server CPU ms per request, path by path (``n`` requests each)."""
    out = {}
    for name, path in paths.items():
        meter.lap()
        for _ in range(n):
            client.get(path)
        out[name] = round(meter.lap()["server"] * 1000 / n, 2)
    return out


# -- query plans ---------------------------------------------------------------------------

_LIST_DEFAULTS: dict[str, Any] = {
    "stage": None,
    "status": None,
    "min_score": None,
    "q": None,
    "sort": "score",
    "limit": 50,
    "offset": 0,
}
Statements = dict[str, list[tuple[str, Any]]]


def listing_sql(home: Home, store: Store) -> Statements:
    """The exact statements `GET /v1/jobs` runs for each listing (count first, then the
    page): the app's own handler, called here with a listener on the store's read engine."""
    from jobctrl.api.app import create_app

    app = create_app(home)
    handler = next(r.endpoint for r in app.routes if getattr(r, "path", None) == "/v1/jobs")
    captured: list[tuple[str, Any]] = []

    def grab(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("SELECT"):
            captured.append((statement, tuple(parameters)))

    event.listen(store.reader, "before_cursor_execute", grab)
    out = {}
    try:
        for name, params in LISTINGS.items():
            captured.clear()
            handler(home=home, **{**_LIST_DEFAULTS, **params})  # the app's TenantHome
            out[name] = sorted(captured, key=lambda c: "count(" not in c[0].lower())
    finally:
        event.remove(store.reader, "before_cursor_execute", grab)
    return out


def query_plans(db: Path, sqls: Statements) -> dict[str, list[str]]:
    """EXPLAIN QUERY PLAN of each statement, one line each (steps joined by ';'). A fresh
    connection: one opened before an index was made plans without it under EXPLAIN."""
    out: dict[str, list[str]] = {}
    with contextlib.closing(sqlite3.connect(db)) as conn:
        for name, statements in sqls.items():
            out[name] = []
            for sql, params in statements:
                rows = conn.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall()
                kind = "count" if "count(" in sql.lower() else "page"
                out[name].append(f"{kind}: " + "; ".join(r[-1] for r in rows))
    return out


def query_ms(db: Path, sqls: Statements, n: int = 30) -> dict[str, float]:
    """Median ms of each listing's statements run straight on SQLite (no HTTP, no app)."""
    out = {}
    with contextlib.closing(sqlite3.connect(db)) as conn:
        for name, statements in sqls.items():
            times = []
            for _ in range(n):
                started = time.perf_counter()
                for sql, params in statements:
                    conn.execute(sql, params).fetchall()
                times.append((time.perf_counter() - started) * 1000)
            out[name] = _stats(times)["p50"]
    return out


def set_indexes(store: Store, present: bool) -> None:
    """Create (or drop) the Jobs list's order indexes in this benchmark's database, as the
    schema declares them."""
    with store.write() as tx:
        for ix in ORDER_INDEXES:
            tx.conn.execute(
                CreateIndex(ix, if_not_exists=True) if present else DropIndex(ix, if_exists=True)
            )


def write_cost(store: Store, rng: random.Random, first: int, *, n: int = 1000) -> dict[str, Any]:
    """What the indexes cost the write path: batched jobs per second (every event folded
    into the projections) without and with them, three rounds each, in turn; medians."""
    rates: dict[str, list[float]] = {"without": [], "with": []}
    for _ in range(3):
        for label in rates:
            set_indexes(store, label == "with")
            rates[label].append(round(n / seed_batched(store, range(first, first + n), rng), 1))
            first += n
    return {f"jobs_per_s_{label}_indexes": sorted(r)[1] for label, r in rates.items()} | {
        "rounds": rates
    }


# -- live updates --------------------------------------------------------------------------


class Listener(threading.Thread):
    """A client of `GET /v1/events/stream` that notes when each job's first event arrives.
    It leaves after the first event that comes once ``stop`` is set (closing a blocked
    stream from another thread would leave the server's side open). ``opened`` is set at the
    stream's first line (``: from SEQ``: its cursor is set) or when it fails; ``clock``
    stamps arrivals (``time.monotonic`` to compare with another process's stamps)."""

    def __init__(self, base_url: str, clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__(daemon=True)
        self.base_url = base_url
        self.clock = clock
        self.arrivals: dict[str, float] = {}
        self.seqs: list[int] = []
        self.head: dict[str, Any] = {}
        self.opened, self.stop = threading.Event(), threading.Event()
        self.start()

    def run(self) -> None:
        timeout = httpx.Timeout(10.0, read=None)
        try:
            with (
                httpx.Client(base_url=self.base_url, timeout=timeout) as client,
                client.stream("GET", "/v1/events/stream") as response,
            ):
                self.head.update(
                    status=response.status_code, type=response.headers.get("content-type")
                )
                if response.status_code != 200:
                    self.opened.set()
                    return
                for line in response.iter_lines():
                    self.opened.set()
                    if line.startswith("data:"):
                        at = self.clock()
                        data = json.loads(line[5:])
                        self.arrivals.setdefault(data["jobId"], at)
                        self.seqs.append(int(data["seq"]))
                        if self.stop.is_set():
                            return
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            self.head.setdefault("error", repr(exc))
            self.opened.set()


def _new_job(store: Store, rng: random.Random, tag: str) -> tuple[str, float]:
    """A new job through `jobs.create_job` (one transaction, one `JobCreated`): its id and
    the time of its commit (taken as the commit starts: a stamp taken after `create_job`
    returns could come late, when this thread waits for the GIL, and show less latency)."""
    stamps: list[float] = []

    def stamp(conn) -> None:  # type: ignore[no-untyped-def]
        stamps.append(time.perf_counter())

    event.listen(store.writer, "commit", stamp)
    try:
        new = jobs.create_job(store, f"https://live.example.com/{tag}/{rng.getrandbits(64):x}")
    finally:
        event.remove(store.writer, "commit", stamp)
    return new.job_id, stamps[-1]


def _close(listeners: list[Listener], store: Store, rng: random.Random) -> None:
    for listener in listeners:
        listener.stop.set()
    _new_job(store, rng, "stop")
    for listener in listeners:
        listener.join(5)


def sse_latency(base_url: str, store: Store, n: int, rng: random.Random) -> dict[str, Any]:
    """Time from the commit of a new job's `JobCreated` to its message on the stream, for
    ``n`` jobs added one by one at random intervals of 0–300 ms."""
    listener = Listener(base_url)
    if not listener.opened.wait(10) or listener.head.get("status") != 200:
        return {"error": f"stream not available: {listener.head}"}
    # With neither `after` nor Last-Event-ID the stream starts at the end of the log as
    # the server first reads it: wait for a first event before timing any.
    for k in range(20):
        job_id, _ = _new_job(store, rng, f"warm-{k}")
        if _wait_for(lambda j=job_id: j in listener.arrivals, 1.0):
            break
    else:
        return {"error": "no event arrived on the stream within 20 s"}
    committed: dict[str, float] = {}
    for k in range(n):
        time.sleep(rng.uniform(0, 0.3))
        job_id, at = _new_job(store, rng, f"live-{k}")
        committed[job_id] = at
    _wait_for(lambda: all(j in listener.arrivals for j in committed), 3.0)
    _close([listener], store, rng)
    ms = [
        (listener.arrivals[j] - at) * 1000 for j, at in committed.items() if j in listener.arrivals
    ]
    seqs = listener.seqs
    figures: dict[str, Any] = {
        "events": n,
        "arrived": len(ms),
        "seq_in_order": seqs == sorted(seqs),
        "duplicates": len(seqs) - len(set(seqs)),
        "content_type": listener.head.get("type"),
    }
    if ms:
        figures.update(_stats(ms), mean=round(sum(ms) / len(ms), 2), min=round(min(ms), 2))
    return figures


def idle_stream_cpu(
    base_url: str, meter: CpuMeter, store: Store, rng: random.Random, *, clients: int = 10
) -> dict[str, float]:
    """Server CPU while nothing happens: with no stream open, then with ``clients`` open
    streams (each polls the log every 250 ms on its own). ms of CPU per second."""
    seconds = 5.0
    meter.lap()
    time.sleep(seconds)
    none = meter.lap()["server"]
    listeners = [Listener(base_url) for _ in range(clients)]
    for listener in listeners:
        listener.opened.wait(10)
    time.sleep(0.5)
    meter.lap()
    time.sleep(seconds)
    some = meter.lap()["server"]
    _close(listeners, store, rng)
    return {
        "no_stream_ms_per_s": round(none * 1000 / seconds, 2),
        f"{clients}_streams_ms_per_s": round(some * 1000 / seconds, 2),
        "per_stream_ms_per_s": round((some - none) * 1000 / seconds / clients, 2),
    }


def _wait_for(done: Callable[[], bool], seconds: float) -> bool:
    deadline = time.perf_counter() + seconds
    while not done():
        if time.perf_counter() > deadline:
            return False
        time.sleep(0.002)
    return True


# -- the run -------------------------------------------------------------------------------


def _table(title: str, rows: dict[str, dict[str, float]], cpu: dict[str, float]) -> None:
    floor = rows["floor_404"]["p50"]
    print(f"\n{title}")
    print(f"  {'':<16}{'p50':>9}{'p95':>9}{'max':>9}{'p50/floor':>11}{'server CPU':>12}")
    for name, s in rows.items():
        ratio = s["p50"] / floor if floor else float("nan")
        used = f"{cpu[name]:.2f}" if name in cpu else "-"
        print(
            f"  {name:<16}{s['p50']:>9.2f}{s['p95']:>9.2f}{s['max']:>9.2f}{ratio:>11.1f}{used:>12}"
        )


def _report(figures: dict[str, Any]) -> None:
    print(f"\nrows matched: {json.dumps(figures['totals'])}")
    cpu = figures["server_cpu_ms_per_request"]
    _table(
        "GET latency without the order indexes (before migration 0009), ms; server CPU, ms",
        figures["get_ms"],
        cpu,
    )
    cpu = {**cpu, **figures["server_cpu_ms_per_request_indexed"]}
    _table("the same as shipped (migration 0009's indexes)", figures["get_ms_indexed"], cpu)
    print("\nSQLite alone, median ms per listing (count + page):")
    print("  without:      ", json.dumps(figures["sqlite_ms"]))
    print("  as shipped:   ", json.dumps(figures["sqlite_ms_indexed"]))
    for label, key in (("query plans, without", "plans"), ("as shipped", "plans_indexed")):
        print(f"\n{label}:")
        for name, lines in figures[key].items():
            for line in lines:
                print(f"  {name:<16}{line}")
    print("\nthe order indexes (as the schema declares them):")
    for name, columns in INDEXES.items():
        print(f"  CREATE INDEX {name} ON job_list_projections ({', '.join(columns)})")
    product = figures["product_socket_ms"]
    print(
        "\nthrough jobctrl.api.server.bind's own socket (as `jobctrl up` serves), p50 ms: "
        + ", ".join(f"{k} {v['p50']}" for k, v in product.items())
    )
    print(f"\nwrite path and the indexes: {json.dumps(figures['write_cost'])}")
    print(f"\nSSE, commit → arrival, ms: {json.dumps(figures['sse'])}")
    print(f"SSE, server CPU while idle: {json.dumps(figures['sse_idle_cpu'])}")
    print(
        f"peak RSS: server {figures['peak_rss_server_mb']} MB, "
        f"bench (seeding, client) {figures['peak_rss_bench_mb']} MB"
    )


def main(n_jobs: int, n_requests: int, n_events: int, keep: bool) -> dict[str, Any]:
    os.environ.pop("JOBCTRL_DATABASE_URL", None)  # SQLite in the home: the plans are SQLite's
    home, store = fresh_home()
    root = str(home.root)
    rss = PeakRss(os.getpid())
    rng = random.Random(SEED)
    figures: dict[str, Any] = {"seed": seed(store, n_jobs, rng)}
    db_bytes = sum(p.stat().st_size for p in home.root.glob("jobctrl.db*"))
    figures["seed"]["db_mb"] = round(db_bytes / 2**20, 1)
    print(f"seeded: {json.dumps(figures['seed'])}")

    paths = {name: _url("/v1/jobs", params) for name, params in LISTINGS.items()}
    all_paths = {**FLOORS, **paths}
    figures["paths"] = all_paths
    with spawned(_serve, root, False) as (base_url, server_pid):
        server_rss = PeakRss(server_pid)
        with httpx.Client(base_url=base_url, timeout=30) as client:
            figures["totals"] = {n: client.get(p).json()["total"] for n, p in paths.items()}
            meter = CpuMeter(server_pid)

            sqls = listing_sql(home, store)
            set_indexes(store, False)  # the baseline: before migration 0009
            figures["get_ms"] = measure(client, all_paths, n_requests)
            figures["server_cpu_ms_per_request"] = cpu_per_request(client, meter, all_paths, 50)
            figures["plans"] = query_plans(home.database_path, sqls)
            figures["sqlite_ms"] = query_ms(home.database_path, sqls)
            set_indexes(store, True)
            figures["indexes"] = INDEXES
            figures["plans_indexed"] = query_plans(home.database_path, sqls)
            figures["sqlite_ms_indexed"] = query_ms(home.database_path, sqls)
            figures["get_ms_indexed"] = measure(client, all_paths, n_requests)
            figures["server_cpu_ms_per_request_indexed"] = cpu_per_request(client, meter, paths, 50)
        figures["write_cost"] = write_cost(store, rng, n_jobs)
        figures["sse"] = sse_latency(base_url, store, n_events, rng)
        figures["sse_idle_cpu"] = idle_stream_cpu(base_url, meter, store, rng)
        figures["peak_rss_server_mb"] = round(server_rss.stop() / 2**20, 1)
    with (
        spawned(_serve, root, True) as (base_url, _),
        httpx.Client(base_url=base_url, timeout=30) as client,
    ):
        some = {k: all_paths[k] for k in ("floor_404", "first_page")}
        figures["product_socket_ms"] = measure(client, some, 30, warmup=3)
    figures["peak_rss_bench_mb"] = round(rss.stop() / 2**20, 1)
    _report(figures)
    store.dispose()
    if keep:
        print(f"\nthe home is kept: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--keep", action="store_true", help="keep the home (and its database)")
    args = parser.parse_args()
    print(json.dumps(main(args.jobs, args.requests, args.events, args.keep)))
