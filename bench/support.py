"""What the benchmarks share: a fresh home, the embedded Temporal server and a jobctrl
worker, RSS and CPU meters, helper processes (spawned, so their CPU is not the bench's)
and the posting site served from one of them (it stands for the internet, whose CPU cost
is not jobctrl's)."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import os
import resource
import sys
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import psutil
from temporalio.client import Client

from jobctrl.app.home import init_home
from jobctrl.demo.postings import generate_postings
from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.demo.site import DemoSite
from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.devserver import EmbeddedTemporal
from jobctrl.worker.run import build_worker
from jobctrl.workflows.client import connect

# Settings for a bench that fetches from its own loopback servers as fast as they answer.
LOOPBACK_FETCH = {"fetch.allow_hosts": ["127.0.0.1"], "fetch.min_host_interval_seconds": 0.0}


def fresh_home(
    prefix: str = "jobctrl-bench-", settings: Mapping[str, Any] | None = None
) -> tuple[Home, Store]:
    """A new home in a temporary directory, made this process's (``JOBCTRL_HOME``, a task
    queue of its own, no outside Temporal server), with the demo profile and ``settings``
    set in order; returns it and its open store."""
    os.environ["JOBCTRL_HOME"] = tempfile.mkdtemp(prefix=prefix)
    os.environ.pop("JOBCTRL_TEMPORAL_ADDRESS", None)
    os.environ["JOBCTRL_TASK_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
    home = Home.resolve()
    init_home(home, profile=DEMO_PROFILE)
    store = Store.open(home)
    stored = Settings(store)
    for key, value in (settings or {}).items():
        stored.set_value(key, value)
    return home, store


@contextlib.asynccontextmanager
async def embedded_temporal(home: Home) -> AsyncIterator[tuple[Client, int]]:
    """The embedded Temporal server of ``home`` (history on disk), stopped on exit; yields
    a client of it and the server's pid."""
    server = EmbeddedTemporal(home)
    await server.ensure()
    try:
        yield await connect(home), server._server_pid or 0
    finally:
        server.stop()


@contextlib.asynccontextmanager
async def jobctrl_worker(
    client: Client, store: Store, home: Home, **options: Any
) -> AsyncIterator[None]:
    """A jobctrl worker (``build_worker``'s ``options``) running in this process."""
    worker, ctx = build_worker(client, store, home, **options)
    try:
        async with worker:
            yield
    finally:
        ctx.close()


def peak_rss_self_mb() -> float:
    """This process's peak RSS so far, in MB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


class PeakRss:
    """Samples the RSS of a process every 50 ms."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.peak = max(self.peak, psutil.Process(self.pid).memory_info().rss)
            except psutil.Error:
                return

    def stop(self) -> int:
        self._stop.set()
        return self.peak


class CpuMeter:
    """CPU seconds used by the worker (this process) and the server, per lap."""

    def __init__(self, server_pid: int) -> None:
        self.procs = {"worker": psutil.Process(), "server": psutil.Process(server_pid)}
        self.last = self._read()

    def _read(self) -> dict[str, float]:
        return {k: sum(p.cpu_times()[:2]) for k, p in self.procs.items()}

    def lap(self) -> dict[str, float]:
        now = self._read()
        lap = {k: round(now[k] - self.last[k], 2) for k in now}
        self.last = now
        return lap


@contextlib.contextmanager
def spawned(
    target: Callable[..., None], *args: Any, timeout: float = 60
) -> Iterator[tuple[Any, int]]:
    """``target(*args, queue)`` in a spawned daemon process, ended on exit; yields the first
    thing it puts on ``queue`` (its URL, once it serves) and its pid."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue), daemon=True)
    proc.start()
    try:
        yield queue.get(timeout=timeout), proc.pid or 0
    finally:
        proc.terminate()
        proc.join(10)
        if proc.is_alive():
            proc.kill()
            proc.join()


def _serve_postings(n: int, seed: int, queue: multiprocessing.Queue) -> None:
    with DemoSite(extra_pages=generate_postings(n, seed=seed)) as site:
        queue.put(site.base_url)
        threading.Event().wait()


@contextlib.contextmanager
def posting_site(n: int, seed: int) -> Iterator[str]:
    """``n`` generated postings served from a spawned process; yields its base URL."""
    with spawned(_serve_postings, n, seed, timeout=30) as (base_url, _):
        yield base_url


# -- stores and processes (bench/workers_scale.py, api_tenants.py, sse_postgres.py) --------

STORES = ("sqlite", "postgres")


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[Any]:
    """The tests' throwaway PostgreSQL server (tests/support/postgres.py: loopback only,
    fsync off), stopped on exit; yields it (``.url(name)``, ``.process.pid``)."""
    # Imported here: only the PostgreSQL runs need tests/ on the path.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.postgres import PostgresServer, binaries

    bindir = binaries()
    if bindir is None:
        raise SystemExit("no PostgreSQL binaries (apt-get install postgresql): --stores sqlite")
    server = PostgresServer(bindir).start()
    try:
        yield server
    finally:
        server.stop()


def store_server(kind: str) -> contextlib.AbstractContextManager[Any]:
    """A throwaway PostgreSQL server for ``kind == "postgres"``, nothing (None) for SQLite."""
    return throwaway_postgres() if kind == "postgres" else contextlib.nullcontext()


def parse_with_stores(parser: argparse.ArgumentParser, default: str) -> argparse.Namespace:
    """Adds ``--stores`` (comma-separated, of STORES) and ``--json`` to a benchmark's
    parser and parses; ``args.stores`` is the list."""
    parser.add_argument("--stores", default=default, help=f"comma-separated, of {STORES}")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    args = parser.parse_args()
    args.stores = [s.strip() for s in args.stores.split(",")]
    if not set(args.stores) <= set(STORES):
        parser.error(f"--stores: {', '.join(STORES)}")
    return args


def emit(result: Mapping[str, Any], args: argparse.Namespace, report: Callable[..., None]) -> None:
    """Prints the figures: as JSON with ``--json``, else through the script's ``report``."""
    if args.json:
        # Flushed now: a Temporal worker's native thread can end the interpreter's exit in a
        # fatal error, and a pipe's buffer would be lost with it.
        print(json.dumps(result, indent=2), flush=True)
    else:
        report(result)
        sys.stdout.flush()


def use_store(kind: str, pg: Any, name: str) -> str:
    """Make the next ``fresh_home`` use ``kind``: SQLite in the home, or a new empty
    database ``name`` on ``pg`` (``JOBCTRL_DATABASE_URL``); returns the URL or "sqlite"."""
    if kind == "sqlite":
        os.environ.pop("JOBCTRL_DATABASE_URL", None)
        return "sqlite"
    pg.execute(f"CREATE DATABASE {name}")
    os.environ["JOBCTRL_DATABASE_URL"] = url = pg.url(name)
    return str(url)


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid``, its live descendants and the children it
    has reaped (a PostgreSQL server's ended backends); 0 once it is gone."""
    try:
        proc = psutil.Process(pid)
        t = proc.cpu_times()
        total = t.user + t.system + t.children_user + t.children_system
        for child in proc.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                c = child.cpu_times()
                total += c.user + c.system
        return total
    except psutil.Error:
        return 0.0


class TreeCpu:
    """CPU seconds of named process trees (``tree_cpu``) per lap."""

    def __init__(self, pids: Mapping[str, int]) -> None:
        self.pids = dict(pids)
        self.last = self._read()

    def _read(self) -> dict[str, float]:
        return {name: tree_cpu(pid) for name, pid in self.pids.items()}

    def lap(self) -> dict[str, float]:
        now = self._read()
        lap = {k: round(now[k] - self.last[k], 3) for k in now}
        self.last = now
        return lap


def percentiles(ms: list[float]) -> dict[str, float]:
    """n, p50, p95, p99 and max of ``ms`` (nearest rank), rounded to 0.01."""
    if not ms:
        return {"n": 0}
    s = sorted(ms)

    def rank(p: float) -> float:
        return round(s[max(0, math.ceil(p * len(s)) - 1)], 2)

    return {"n": len(s), "p50": rank(0.5), "p95": rank(0.95), "p99": rank(0.99), "max": rank(1)}
