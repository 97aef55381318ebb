"""The health check (`jobctrl doctor`, ``GET /v1/health``, the Operations page's Health
panel): is the Temporal server reachable and how long does it keep histories, do workers
poll and heartbeat, is the database sound and migrated, is there disk space in the home,
are artifact files missing, will an open run's history expire, how many jobs were scored
with an older profile, which lanes are paused. Each check has a status (ok, warn, fail),
a sentence and the command that fixes it. Read-only; the rules are ``domain.health``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from jobctrl.app import runtime
from jobctrl.app.health_checks import HealthCheck, check, store_checks
from jobctrl.app.models import Timestamp, View
from jobctrl.domain import health as rules
from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.domain.duties import duties_lease
from jobctrl.domain.errors import DatabaseDamagedError, JobctrlError
from jobctrl.domain.health import CheckStatus
from jobctrl.domain.runtime import home_identity
from jobctrl.home import Home
from jobctrl.store import health as health_store
from jobctrl.store import leases
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
            check(
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
            check(
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
    checks += await asyncio.to_thread(store_checks, home, store, now, retention, wanted_days)
    return HealthReport(
        status=rules.worst([CheckStatus(c.status) for c in checks]).value,
        checks=checks,
        generated_at=now,
    )


def _damaged(home: Home, exc: DatabaseDamagedError, now: datetime) -> HealthReport:
    """The report on a database that cannot be opened: its one failed check (every other
    check reads the database, or needs it to find the server and the workers)."""
    failed = check(
        "database",
        FAIL,
        f"The database is damaged ({exc.detail}): nothing else could be checked.",
        f"restore {home.database_path.name} from a backup",
        integrity=exc.detail,
    )
    return HealthReport(status=FAIL.value, checks=[failed], generated_at=now)


async def _retention(
    client: runtime.Client | None, embedded: bool, wanted_days: int, checks: list[HealthCheck]
) -> timedelta | None:
    if client is None:
        checks.append(
            check(
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
        check(
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
            check(
                "workers",
                FAIL,
                "No worker polls the task queue: nothing runs.",
                "jobctrl up",
                **figures,
            )
        )
    elif beats.state != "fresh":
        checks.append(
            check(
                "workers",
                WARN,
                f"A worker polls, but its heartbeat is {beats.state}.",
                "restart the worker: jobctrl worker",
                **figures,
            )
        )
    elif not duties:
        checks.append(
            check(
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
            check(
                "workers",
                OK,
                f"{beats.workers} worker(s) poll and their heartbeats are fresh.",
                **figures,
            )
        )
