"""The health checks that read the store and the home (`jobctrl doctor`'s database,
disk, artifact files, runs near the history retention, stale profile versions and paused
lanes), and the ``HealthCheck`` every check returns. ``app.health`` runs them with the
Temporal ones; the rules are ``domain.health``.
"""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timedelta
from typing import Any

from jobctrl.app.models import View
from jobctrl.app.staleness import current_version
from jobctrl.domain import health as rules
from jobctrl.domain.clock import as_utc
from jobctrl.domain.health import CheckStatus
from jobctrl.home import Home
from jobctrl.store import health as health_store
from jobctrl.store import staleness, stop_loss
from jobctrl.store.health import MissingArtifact
from jobctrl.store.store import Store

__all__ = ["MAX_JOBS_NAMED", "HealthCheck", "artifacts_fix", "check", "store_checks"]

OK, WARN, FAIL = CheckStatus.OK, CheckStatus.WARN, CheckStatus.FAIL
_STAGE_OF = {"posting_page": "enrich", "posting_text": "enrich", "fit_report": "score"}
_ORDER = ("enrich", "score", "pdf")
MAX_JOBS_NAMED = 5  # jobs whose commands the artifacts check's fix spells out


class HealthCheck(View):
    """One check: its ``status`` (ok, warn, fail), what it found in a sentence, the
    command that fixes it (None when there is nothing to do) and its figures."""

    name: str
    status: str
    summary: str
    fix: str | None
    details: dict[str, Any]


def check(
    name: str, status: CheckStatus, summary: str, fix: str | None = None, **details: Any
) -> HealthCheck:
    """A check's result; its summary starts with a capital, and an ok one has no fix."""
    return HealthCheck(
        name=name,
        status=status.value,
        summary=summary[:1].upper() + summary[1:],
        fix=fix if status != OK else None,
        details=details,
    )


def store_checks(
    home: Home, store: Store, now: datetime, retention: timedelta | None, wanted_days: int
) -> list[HealthCheck]:
    """The checks that read the store and the home (run in a thread: they block)."""
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
        return check(
            "database",
            FAIL,
            f"The database is damaged ({problem}).",
            f"restore {home.database_path.name} from a backup",
            **figures,
        )
    if not state.up_to_date:
        newer = (state.current or "") > state.newest
        return check(
            "database",
            FAIL,
            f"The database's schema is at {state.current}, this jobctrl's at {state.newest}.",
            "upgrade jobctrl (the database is newer)" if newer else "jobctrl init",
            **figures,
        )
    if health_store.write_lock_held(store):
        return check(
            "database",
            WARN,
            "Another program holds the database's write lock: every change waits for it.",
            f"close the other program that has {home.database_path.name} open",
            **figures,
        )
    return check(
        "database", OK, f"The database is sound and migrated ({state.current}).", **figures
    )


def _disk(home: Home) -> HealthCheck:
    usage = shutil.disk_usage(home.root)
    writable = os.access(home.root, os.W_OK)  # False on a read-only disk, even for root
    status = rules.disk_status(usage.free, writable=writable)
    if not writable:
        return check(
            "disk",
            status,
            "The home cannot be written to (a read-only disk, or its permissions).",
            f"make {home.root} writable for the user that runs jobctrl",
            freeBytes=usage.free,
            totalBytes=usage.total,
        )
    return check(
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
        return check("artifacts", OK, "Every file the jobs refer to is in the home.", missing=0)
    return check(
        "artifacts",
        WARN,
        f"{count} file(s) the jobs refer to are missing from the home.",
        artifacts_fix(missing, count),
        missing=count,
        items=items,
    )


def artifacts_fix(missing: list[MissingArtifact], count: int) -> str:
    """The commands that make the missing files again, one per job (the earliest stage
    of each job's missing files: a reset puts the later stages back too), the first
    ``MAX_JOBS_NAMED`` jobs named, and where the rest are listed."""
    stages: dict[str, str] = {}
    for m in missing:
        stage = _STAGE_OF.get(m.what, "pdf")
        held = stages.get(m.job_id)
        if held is None or _ORDER.index(stage) < _ORDER.index(held):
            stages[m.job_id] = stage
    named = list(stages.items())[:MAX_JOBS_NAMED]
    fix = "; ".join(
        f"jobctrl reset {job} --stage {stage} && jobctrl retry {job}" for job, stage in named
    )
    listed = sum(1 for m in missing if m.job_id in dict(named))
    if count > listed:
        fix += f" (and {count - listed} more file(s): `jobctrl doctor --json` lists them)"
    return fix


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
        return check(
            "expiring_runs",
            OK,
            f"No run the store holds open is near the {days:g}-day history retention.",
            runs=0,
            retentionKnown=known,
        )
    return check(
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
        return check(
            "profile_versions", OK, "Every job was scored with the current profile.", **figures
        )
    return check(
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
        return check("paused", OK, "No lane or source is paused.", paused=0)
    names = ", ".join(f"{p.kind} {p.name} ({p.code})" for p in pauses)
    first = pauses[0]
    return check(
        "paused",
        WARN,
        f"Paused after repeated failures: {names}.",
        f"jobctrl resume {first.kind}:{first.name}",
        paused=len(pauses),
        items=items,
    )
