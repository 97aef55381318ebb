"""The health check (`jobctrl doctor`, ``GET /v1/health``, the Operations page's Health
panel): is the Temporal server reachable and how long does it keep histories, do workers
poll and heartbeat, is the database sound and migrated, is there disk space in the home,
are artifact files missing, will an open run's history expire, how many jobs were scored
with an older profile, which lanes are paused. Each check has a status (ok, warn, fail),
a sentence and the command that fixes it. Read-only; the rules are ``domain.health``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from datetime import datetime, timedelta
from typing import Any

from jobctrl.app import runtime
from jobctrl.app.models import Timestamp, View
from jobctrl.app.staleness import current_version
from jobctrl.domain import health as rules
from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.domain.duties import duties_lease
from jobctrl.domain.errors import DatabaseDamagedError, JobctrlError
from jobctrl.domain.health import CheckStatus
from jobctrl.domain.runtime import home_identity
from jobctrl.home import Home
from jobctrl.store import health as health_store
from jobctrl.store import leases, staleness, stop_loss
from jobctrl.store import runtime as runtime_store
from jobctrl.store.store import Store
from jobctrl.workflows.client import (
    configured_address,
    default_task_queue,
    namespace_retention,
    server_options,
)

__all__ = ["HealthCheck", "HealthReport", "doctor", "recent_doctor"]

OK, WARN, FAIL = CheckStatus.OK, CheckStatus.WARN, CheckStatus.FAIL
_STAGE_OF = {"posting_page": "enrich", "posting_text": "enrich", "fit_report": "score"}


class HealthCheck(View):
    """One check: its ``status`` (ok, warn, fail), what it found in a sentence, the
    command that fixes it (None when there is nothing to do) and its figures."""

    name: str
    status: str
    summary: str
    fix: str | None
    details: dict[str, Any]


class HealthReport(View):
    """Every check, and the worst status among them (``fail``: `jobctrl doctor` exits 1)."""

    status: str
    checks: list[HealthCheck]
    generated_at: Timestamp


# The last report per home and tenant, for the Operations page (re-rendered every few
# seconds: its checks are run again once the report is ``max_age`` seconds old).
_recent: dict[tuple[str, str], HealthReport] = {}


async def recent_doctor(home: Home, *, max_age: float = 60.0) -> HealthReport:
    """``doctor``'s last report for this home if younger than ``max_age`` s, else a new one."""
    key = (str(home.root), home.tenant)
    kept = _recent.get(key)
    if kept is not None and (utcnow() - kept.generated_at).total_seconds() < max_age:
        return kept
    report = _recent[key] = await doctor(home)
    return report


def _check(
    name: str, status: CheckStatus, summary: str, fix: str | None = None, **details: Any
) -> HealthCheck:
    return HealthCheck(
        name=name,
        status=status.value,
        summary=summary[:1].upper() + summary[1:],
        fix=fix if status != OK else None,
        details=details,
    )


async def doctor(home: Home, *, now: datetime | None = None) -> HealthReport:
    """Run every check once (the Temporal ones with short timeouts)."""
    now = as_utc(now or utcnow())
    try:
        store = Store.open(home)
    except DatabaseDamagedError as exc:  # the report says so, rather than a crash
        return _damaged(home, exc, now)
    wanted_days = await asyncio.to_thread(health_store.retention_days, store)
    address, origin = configured_address(home)
    embedded = origin != "JOBCTRL_TEMPORAL_ADDRESS"
    checks: list[HealthCheck] = []
    client: runtime.Client | None = None
    try:
        namespace = server_options().namespace
        client = await runtime.client_for(home)
        checks.append(
            _check(
                "temporal",
                OK,
                f"The Temporal server at {address} answers.",
                address=address,
                namespace=namespace,
                embedded=embedded,
            )
        )
    except JobctrlError as exc:
        checks.append(
            _check(
                "temporal",
                FAIL,
                exc.message,
                "jobctrl up" if embedded else "check JOBCTRL_TEMPORAL_ADDRESS and its settings",
                address=address,
                embedded=embedded,
            )
        )
    retention = await _retention(client, embedded, wanted_days, checks)
    await _workers(client, store, home, now, checks)
    checks += await asyncio.to_thread(_store_checks, home, store, now, retention, wanted_days)
    return HealthReport(
        status=rules.worst([CheckStatus(c.status) for c in checks]).value,
        checks=checks,
        generated_at=now,
    )


def _damaged(home: Home, exc: DatabaseDamagedError, now: datetime) -> HealthReport:
    """The report on a database that cannot be opened: its one failed check (every other
    check reads the database, or needs it to find the server and the workers)."""
    check = _check(
        "database",
        FAIL,
        f"The database is damaged ({exc.detail}): nothing else could be checked.",
        f"restore {home.database_path.name} from a backup",
        integrity=exc.detail,
    )
    return HealthReport(status=FAIL.value, checks=[check], generated_at=now)


async def _retention(
    client: runtime.Client | None, embedded: bool, wanted_days: int, checks: list[HealthCheck]
) -> timedelta | None:
    if client is None:
        checks.append(
            _check(
                "retention",
                WARN,
                "Unknown: the Temporal server does not answer.",
                "jobctrl up",
                retentionDays=None,
                wantedDays=wanted_days,
            )
        )
        return None
    try:
        kept = await namespace_retention(client)
    except Exception:  # an RPC refused (permissions on a cluster): unknown, said so
        kept = None
    days = kept.total_seconds() / 86400 if kept is not None else None
    status = rules.retention_status(kept, wanted_days)
    shown = f"{days:g} days" if days is not None else "an unknown time"
    where = "the embedded server" if embedded else f"namespace {client.namespace}"
    fix = (
        f"jobctrl settings set temporal.retention_days {wanted_days}, then restart the worker"
        if embedded
        else f"temporal operator namespace update --retention {wanted_days}d {client.namespace}"
    )
    checks.append(
        _check(
            "retention",
            status,
            f"Temporal keeps a finished run's history for {shown} in {where}"
            + ("." if status == OK else f" (wanted: {wanted_days} days)."),
            fix,
            retentionDays=days,
            wantedDays=wanted_days,
        )
    )
    return kept


async def _workers(
    client: runtime.Client | None,
    store: Store,
    home: Home,
    now: datetime,
    checks: list[HealthCheck],
) -> None:
    beats = await asyncio.to_thread(
        runtime_store.read_runtime, store, now, home_id=home_identity(home)
    )
    polling = False
    if client is not None:
        try:
            polling = await runtime.worker_polling(client, patience=2.0)
        except JobctrlError:
            polling = False
    figures: dict[str, Any] = {
        "polling": polling,
        "heartbeat": str(beats.state),
        "workers": beats.workers,
        "beatAt": beats.beat_at.isoformat() if beats.beat_at else None,
    }
    # One worker of the queue runs the heartbeat's duties (recovery, the schedule, sweeps,
    # reconciling runs) under a lease: none held means none of that happens.
    lease = await asyncio.to_thread(leases.holder, store, duties_lease(default_task_queue()))
    duties = lease is not None and lease.expires_at > now
    figures["dutiesHeldUntil"] = lease.expires_at.isoformat() if lease and duties else None
    if not polling:
        checks.append(
            _check(
                "workers",
                FAIL,
                "No worker polls the task queue: nothing runs.",
                "jobctrl up",
                **figures,
            )
        )
    elif beats.state != "fresh":
        checks.append(
            _check(
                "workers",
                WARN,
                f"A worker polls, but its heartbeat is {beats.state}.",
                "restart the worker: jobctrl worker",
                **figures,
            )
        )
    elif not duties:
        checks.append(
            _check(
                "workers",
                WARN,
                "A worker polls and reports, but none holds the heartbeat's duties "
                "(recovery, the schedule, reconciling runs).",
                "restart the worker: jobctrl worker",
                **figures,
            )
        )
    else:
        checks.append(
            _check(
                "workers",
                OK,
                f"{beats.workers} worker(s) poll and their heartbeats are fresh.",
                **figures,
            )
        )


def _store_checks(
    home: Home, store: Store, now: datetime, retention: timedelta | None, wanted_days: int
) -> list[HealthCheck]:
    return [
        _database(home, store),
        _disk(home),
        _artifacts(store),
        _expiring(
            store, now, retention or timedelta(days=wanted_days), known=retention is not None
        ),
        _profile_versions(home, store),
        _paused(store),
    ]


def _database(home: Home, store: Store) -> HealthCheck:
    problem = health_store.integrity_problem(store)
    state = health_store.schema_state(store)
    figures: dict[str, Any] = {
        "revision": state.current,
        "newest": state.newest,
        "integrity": problem or "ok",
    }
    if problem is not None:
        return _check(
            "database",
            FAIL,
            f"The database is damaged ({problem}).",
            f"restore {home.database_path.name} from a backup",
            **figures,
        )
    if not state.up_to_date:
        newer = (state.current or "") > state.newest
        return _check(
            "database",
            FAIL,
            f"The database's schema is at {state.current}, this jobctrl's at {state.newest}.",
            "upgrade jobctrl (the database is newer)" if newer else "jobctrl init",
            **figures,
        )
    if health_store.write_lock_held(store):
        return _check(
            "database",
            WARN,
            "Another program holds the database's write lock: every change waits for it.",
            f"close the other program that has {home.database_path.name} open",
            **figures,
        )
    return _check(
        "database", OK, f"The database is sound and migrated ({state.current}).", **figures
    )


def _disk(home: Home) -> HealthCheck:
    usage = shutil.disk_usage(home.root)
    writable = os.access(home.root, os.W_OK)  # False on a read-only disk, even for root
    status = rules.disk_status(usage.free, writable=writable)
    if not writable:
        return _check(
            "disk",
            status,
            "The home cannot be written to (a read-only disk, or its permissions).",
            f"make {home.root} writable for the user that runs jobctrl",
            freeBytes=usage.free,
            totalBytes=usage.total,
        )
    return _check(
        "disk",
        status,
        f"{rules.free_space_words(usage.free)} free on the disk that holds the home.",
        f"free some space on the disk that holds {home.root}",
        freeBytes=usage.free,
        totalBytes=usage.total,
    )


def _artifacts(store: Store) -> HealthCheck:
    count, missing = health_store.missing_artifacts(store)
    items = [{"sha256": m.sha256, "what": m.what, "jobId": m.job_id} for m in missing]
    if not count:
        return _check("artifacts", OK, "Every file the jobs refer to is in the home.", missing=0)
    first = missing[0]
    stage = _STAGE_OF.get(first.what, "pdf")
    return _check(
        "artifacts",
        WARN,
        f"{count} file(s) the jobs refer to are missing from the home.",
        f"jobctrl reset {first.job_id} --stage {stage} && jobctrl retry {first.job_id}",
        missing=count,
        items=items,
    )


def _expiring(store: Store, now: datetime, retention: timedelta, *, known: bool) -> HealthCheck:
    # Workflow runs and discovery runs the store holds open (a discovery run's own row too).
    runs = health_store.open_runs_started_before(store, rules.expiry_cutoff(now, retention))
    items = [
        {
            "workflowId": r["workflow_id"],
            "runId": r["run_id"],
            "startedAt": as_utc(r["started_at"]).isoformat(),
        }
        for r in runs[:20]
    ]
    days = retention.total_seconds() / 86400
    if not runs:
        return _check(
            "expiring_runs",
            OK,
            f"No run the store holds open is near the {days:g}-day history retention.",
            runs=0,
            retentionKnown=known,
        )
    return _check(
        "expiring_runs",
        WARN,
        f"{len(runs)} run(s) held open for nearly {days:g} days or more: Temporal may "
        "delete their history before the store learns how they ended.",
        f"jobctrl executions stop {runs[0]['workflow_id']}",
        runs=len(runs),
        items=items,
        retentionKnown=known,
    )


def _profile_versions(home: Home, store: Store) -> HealthCheck:
    counts = staleness.count_stale(staleness.versions(store), current_version(home, store))
    figures: dict[str, Any] = {
        "jobs": counts.jobs,
        "scores": counts.scores,
        "materials": counts.materials,
    }
    if not counts.jobs:
        return _check(
            "profile_versions", OK, "Every job was scored with the current profile.", **figures
        )
    return _check(
        "profile_versions",
        WARN,
        f"{counts.jobs} job(s) were scored or written for with an older profile.",
        "jobctrl rescore",
        **figures,
    )


def _paused(store: Store) -> HealthCheck:
    pauses = stop_loss.paused(store)
    items = [{"kind": p.kind, "name": p.name, "code": p.code} for p in pauses]
    if not pauses:
        return _check("paused", OK, "No lane or source is paused.", paused=0)
    names = ", ".join(f"{p.kind} {p.name} ({p.code})" for p in pauses)
    first = pauses[0]
    return _check(
        "paused",
        WARN,
        f"Paused after repeated failures: {names}.",
        f"jobctrl resume {first.kind}:{first.name}",
        paused=len(pauses),
        items=items,
    )
