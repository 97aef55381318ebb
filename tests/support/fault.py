"""The fault suite's harness: a home whose `jobctrl worker` runs its own embedded Temporal
server, a batch of postings, the worker killed and started again, and the invariants a
batch must keep whatever was done to it (see ``violations``).

Everything is read from the store with plain reads (never blocked by a writer under WAL)
and through the entry points a person uses: `jobctrl worker` as a child process, the app's
``add_job``, ``jobctrl resume``/``projections rebuild`` through the CLI.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
from sqlalchemy import func, select, text

from jobctrl.app.jobs import add_job
from jobctrl.app.lanes import set_lane
from jobctrl.home import Home
from jobctrl.store import projections, schema, tenancy
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.workflows.client import RuntimeRecord
from tests.support.fault_provider import REQUIREMENTS, FaultProvider, fault_company, fault_title
from tests.support.fault_zygote import Zygote, gone, wait_ready
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.processes import WorkerProcess, run_cli

STAGES = ("enrich", "score", "tailor", "cover", "pdf")
KEY_ENV = "FAULT_PROVIDER_KEY"
S = schema.job_stage_states


def configure(
    home: Home,
    settings: Settings,
    provider: FaultProvider | None,
    lanes: tuple[str, ...] = ("score", "tailor", "cover"),
    **values: Any,
) -> None:
    """Fast settings for a fault run (loopback fetches, a 1.5 s heartbeat timeout, a beat
    every 0.5 s), ``values`` (dots as ``__``) on top, and ``lanes`` on ``provider``."""
    defaults: dict[str, Any] = {
        "fetch.allow_hosts": ["127.0.0.1"],
        "fetch.min_host_interval_seconds": 0.0,
        "fetch.timeout_seconds": 5.0,
        "retry.initial_interval_seconds": 0.2,
        "worker.heartbeat_timeout_seconds": 1.5,
        "worker.heartbeat_seconds": 0.5,
        "availability.enabled": False,
    }
    defaults.update({k.replace("__", "."): v for k, v in values.items()})
    for key, value in defaults.items():
        settings.set_value(key, value)
    if provider is not None:
        os.environ[KEY_ENV] = "sk-fault-not-a-real-key"
        for lane in lanes:
            set_lane(home, lane, "openai", "gpt-4o-mini", provider.base_url, KEY_ENV)


def postings(site: FixtureServer, n: int, *, delay: float = 0.0) -> dict[str, str]:
    """``n`` postings on ``site``, each with its own title, answered after ``delay`` s:
    {title: url}."""
    return {
        fault_title(i): site.add(
            f"/jobs/fault-{i}",
            Route(body=posting_html(fault_title(i), fault_company(i), REQUIREMENTS), delay=delay),
        )
        for i in range(n)
    }


async def add_all(home: Home, urls: list[str]) -> list[str]:
    """Each URL added as `jobctrl add` does (the job and its start intent); the job ids."""
    ids = []
    for url in urls:
        ids.append((await add_job(home, url)).job_id)
    return ids


class Worker:
    """`jobctrl worker` as a child process (or forked from ``zygote``: the same entry point
    without paying for its imports again), killed with SIGKILL or stopped with SIGTERM."""

    def __init__(self, zygote: Zygote | None = None) -> None:
        self.zygote = zygote
        self.process: WorkerProcess | None = None
        self.forked: tuple[int, Path] | None = None
        self.lines: list[str] = []
        self.starts = 0

    @property
    def pid(self) -> int | None:
        if self.forked is not None:
            return self.forked[0]
        return self.process.proc.pid if self.process is not None else None

    def alive(self) -> bool:
        pid = self.pid
        if self.process is not None:
            return self.process.proc.poll() is None
        return pid is not None and psutil.pid_exists(pid)

    def start(self, timeout: float = 120) -> float:
        """Start it and wait until it is ready; the seconds that took."""
        started = time.monotonic()
        if self.zygote is not None:
            self.forked = self.zygote.spawn()
            wait_ready(*self.forked, timeout=timeout)
        else:
            self.process = WorkerProcess()
            self.process.wait_ready(timeout)
        self.starts += 1
        return time.monotonic() - started

    def _collect(self) -> None:
        if self.process is not None:
            self.lines += self.process.lines
        if self.forked is not None and self.forked[1].exists():
            self.lines += self.forked[1].read_text().splitlines()
        self.process = self.forked = None

    def kill9(self) -> None:
        if self.forked is not None:
            os.kill(self.forked[0], signal.SIGKILL)
            gone(self.forked[0])
        else:
            assert self.process is not None
            self.process.proc.kill()
            self.process.proc.wait(30)
        self._collect()

    def stop(self) -> int | None:
        """SIGTERM and wait; its exit status (None for a forked one: not our child)."""
        code = None
        if self.forked is not None:
            os.kill(self.forked[0], signal.SIGTERM)
            try:
                gone(self.forked[0], 60)
            except AssertionError:
                os.kill(self.forked[0], signal.SIGKILL)
                gone(self.forked[0])
        elif self.process is not None:
            try:
                code = self.process.stop(signal.SIGTERM, timeout=60)
            except Exception:
                self.process.proc.kill()
                code = self.process.proc.wait(30)
        self._collect()
        return code


_RAISED = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt)\b.*")


def exceptions(lines: list[str]) -> dict[str, int]:
    """The exceptions a worker's output ended its tracebacks with, counted (first 160
    characters of each)."""
    return dict(Counter(line[:160] for line in lines if _RAISED.match(line)))


def server_pid(home: Home) -> int | None:
    record = RuntimeRecord.load(home.temporal_runtime_file)
    return record.server_pid if record else None


@contextlib.contextmanager
def no_server_left(home: Home) -> Iterator[None]:
    """On exit, the embedded server a killed worker left behind (adopted, never stopped by
    the dead) is stopped: no test leaves a `temporal` process running."""
    try:
        yield
    finally:
        pid = server_pid(home)
        if pid and psutil.pid_exists(pid):
            with contextlib.suppress(psutil.Error):
                proc = psutil.Process(pid)
                proc.terminate()
                proc.wait(10)


def stage_rows(store: Store) -> list[dict[str, Any]]:
    with store.read() as conn:
        return [dict(r) for r in conn.execute(select(S).where(tenancy.scoped(S, conn))).mappings()]


def by_job(store: Store) -> dict[str, dict[str, dict[str, Any]]]:
    jobs: dict[str, dict[str, dict[str, Any]]] = {}
    for row in stage_rows(store):
        jobs.setdefault(row["job_id"], {})[row["stage"]] = row
    return jobs


def prepared(store: Store, job_ids: list[str], stages: tuple[str, ...] = STAGES) -> list[str]:
    """The jobs whose ``stages`` all succeeded."""
    rows = by_job(store)
    return [
        j
        for j in job_ids
        if all(rows.get(j, {}).get(s, {}).get("state") == "succeeded" for s in stages)
    ]


def open_runs(store: Store) -> list[str]:
    """Workflow ids of the runs the store still calls running."""
    runs = schema.workflow_run_projections
    with store.read() as conn:
        return list(
            conn.execute(
                select(runs.c.workflow_id).where(
                    tenancy.scoped(runs, conn), runs.c.status == "running"
                )
            ).scalars()
        )


def settled(store: Store, job_ids: list[str], stages: tuple[str, ...] = STAGES) -> bool:
    """Every job's ``stages`` succeeded, no row running, no run the store calls running."""
    if any(r["state"] == "running" for r in stage_rows(store)) or open_runs(store):
        return False
    return len(prepared(store, job_ids, stages)) == len(job_ids)


async def until(predicate: Callable[[], bool], timeout: float, step: float = 0.25) -> float:
    """Poll ``predicate`` (in a thread) until true; the seconds it took. Raises on timeout."""
    started = time.monotonic()
    while not await asyncio.to_thread(predicate):
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not reached within {timeout} s")
        await asyncio.sleep(step)
    return time.monotonic() - started


def _snapshot(store: Store) -> dict[str, str]:
    """Every projection row of every tenant (the rebuild folds them all)."""
    with store.read() as conn:
        return {
            t.name: repr(sorted(tuple(r) for r in conn.execute(tenancy.all_tenants(select(t)))))
            for t in projections.PROJECTION_TABLES
        }


def projections_rebuild_equal(store: Store) -> list[str]:
    """Rebuild the projections with `jobctrl projections rebuild`; the tables that differ."""
    before = _snapshot(store)
    result = run_cli("projections", "rebuild")
    assert result.returncode == 0, result.stderr
    after = _snapshot(store)
    return [name for name in before if before[name] != after[name]]


def paid_calls(store: Store, provider: FaultProvider, titles: dict[str, str]) -> dict[str, Any]:
    """What the provider answered against what the ledger recorded, per (lane, job).

    A repeated paid call is a second recorded usage for one lane of one job, or a 200
    answer beyond the first that the ledger cannot account for as a call whose worker
    died before reading it (an unsettled reservation: assumed spend, as designed)."""
    obs, res = schema.llm_usage_observations, schema.llm_reservations
    with store.read() as conn:
        observed = Counter(
            tuple(oid.split(":")[:2])
            for oid in conn.execute(
                select(obs.c.observation_id).where(tenancy.scoped(obs, conn))
            ).scalars()
        )
        unsettled = Counter(
            tuple(rid.split(":")[:2])
            for rid in conn.execute(
                select(res.c.reservation_id).where(
                    tenancy.scoped(res, conn), res.c.settled_at.is_(None)
                )
            ).scalars()
        )
    with provider.lock:
        answered = Counter(
            {(lane, titles.get(title, title)): n for (lane, title), n in provider.answered.items()}
        )
    recorded_twice = {f"{k[0]}:{k[1]}": n for k, n in observed.items() if n > 1}
    unaccounted = {f"{k[0]}:{k[1]}": n for k, n in answered.items() if n - 1 > unsettled.get(k, 0)}
    return {
        "answered": sum(answered.values()),
        "recorded": sum(observed.values()),
        "unsettled_reservations": sum(unsettled.values()),
        "recorded_twice": recorded_twice,
        "repeated_unaccounted": unaccounted,
    }


def violations(
    store: Store,
    job_ids: list[str],
    *,
    stages: tuple[str, ...] = STAGES,
) -> dict[str, Any]:
    """Every broken invariant of a settled batch (empty lists when none): lost jobs,
    rows left running, duplicate materials, runs the store still calls running,
    ``PRAGMA integrity_check``, projections rebuilt unlike the incremental ones."""
    rows = by_job(store)
    lost = [j for j in job_ids if j not in prepared(store, job_ids, stages)]
    running = [f"{r['job_id']}:{r['stage']}" for r in stage_rows(store) if r["state"] == "running"]
    m = schema.materials
    with store.read() as conn:
        per_kind = conn.execute(
            select(m.c.job_id, m.c.kind, func.count(), func.count(m.c.pdf_artifact))
            .where(tenancy.scoped(m, conn))
            .group_by(m.c.job_id, m.c.kind)
        ).all()
        integrity = conn.execute(text("PRAGMA integrity_check")).scalar_one()
    duplicates = [f"{j}:{k}:{n}" for j, k, n, _ in per_kind if n != 1]
    missing: list[str] = []
    if "pdf" in stages:  # with materials: one resume and one letter, each with its PDF
        kinds = {(j, k): pdfs for j, k, _, pdfs in per_kind}
        missing = [
            f"{j}:{k}"
            for j in job_ids
            for k in ("resume", "cover")
            if j in rows and kinds.get((j, k)) != 1
        ]
    return {
        "lost": lost,
        "running_rows": running,
        "duplicate_materials": duplicates,
        "materials_without_one_pdf": missing,
        "runs_still_running": open_runs(store),
        "integrity_check": integrity,
        "projections_differ": projections_rebuild_equal(store),
    }


CLEAN = {
    "lost": [],
    "running_rows": [],
    "duplicate_materials": [],
    "materials_without_one_pdf": [],
    "runs_still_running": [],
    "integrity_check": "ok",
    "projections_differ": [],
}
