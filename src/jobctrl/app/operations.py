"""The pipeline operations snapshot (`jobctrl ops`, ``GET /v1/pipeline/operations``, the
Operations page): which Discover execution owns work and its phase, what remains in each
scope, what the worker executes now, and an ETA range only when one can be defended.

Read-only: every figure comes from the store (stage rows, discovery runs, the workers'
runtime heartbeats, stop-loss, orphans, recovery's retry demand) and the spend authority;
nothing here asks Temporal or changes a row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jobctrl.domain import eta as eta_rules
from jobctrl.domain import operations as rules
from jobctrl.domain import recovery as recovery_rules
from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.domain.errors import BudgetExceededError
from jobctrl.domain.runtime import home_identity
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import operations as ops_store
from jobctrl.store import orphans as orphans_store
from jobctrl.store import recovery as recovery_store
from jobctrl.store import runtime as runtime_store
from jobctrl.store import stop_loss
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = ["duration_text", "eta_text", "operations_snapshot", "phase_text", "range_text"]


def _runtime(store: Store, home: Home, now: datetime) -> dict[str, Any]:
    """What the workers of this home report executing now (unknown, never zero, without a
    fresh report); task-queue figures labelled approximate."""
    out = runtime_store.read_runtime(store, now, home_id=home_identity(home)).as_json()
    if out.get("queue"):
        out["queue"] = {**out["queue"], "approximate": True}
    return out


def _orphans(store: Store) -> list[dict[str, Any]]:
    return orphans_store.orphans(store)


def _iso(value: datetime | None) -> str | None:
    """An instant as ISO 8601 in UTC (SQLite reads it back without its zone)."""
    return as_utc(value).isoformat() if value is not None else None


def _execution(row: dict[str, Any] | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {
        "workflowId": row["workflow_id"],
        "runId": row["run_id"],
        "status": row["status"],
        "errorCode": row["error_code"],
        "startedAt": _iso(row["started_at"]),
        "finishedAt": _iso(row["finished_at"]),
    }


def _budget_blocked(store: Store, settings: Settings, stages: set[str], now: datetime) -> set[str]:
    """The stages with work whose LLM lane the spend authority would refuse right now."""
    authority = SpendAuthority(store, settings, clock=lambda: now)
    blocked: set[str] = set()
    for stage in stages:
        lane = rules.STAGE_LANES.get(stage)
        if lane is None:
            continue
        try:
            authority.preflight(lane)
        except BudgetExceededError:
            blocked.add(stage)
    return blocked


def _issues(scopes: dict[str, dict[str, Any]]) -> tuple[int, int]:
    """(remaining rows, jobs failed or blocked) of the execution's two cohorts."""
    own = [scopes[rules.CURRENT], scopes[rules.SWEEP]]
    remaining = sum(sum(s["remaining"].values()) for s in own)
    return remaining, sum(s["failed"] + s["blocked"] for s in own)


def operations_snapshot(home: Home, *, now: datetime | None = None) -> dict[str, Any]:
    """The snapshot, with the keys of the ``jobctrl ops --json`` contract."""
    now = now or utcnow()
    store = Store.open(home)
    settings = Settings(store)
    values = settings.all()
    execution = ops_store.selected_execution(store)
    limit = int(values["retry.max_attempts"])
    recovering = bool(values["recovery.enabled"])  # off: a failed row is final until `retry`
    counts = ops_store.scope_counts(
        store,
        execution,
        non_retryable=frozenset(recovery_rules.NON_RETRYABLE_CODES),
        max_auto_attempts=recovery_rules.max_auto_attempts(limit) if recovering else 0,
    )
    remaining, issues = _issues(counts.scopes)
    phase = rules.phase(
        execution["status"] if execution else None, remaining=remaining, issues=issues
    )
    runtime = _runtime(store, home, now)
    paused = [
        {**p, "pausedAt": _iso(p["pausedAt"]) if isinstance(p["pausedAt"], datetime) else None}
        for p in stop_loss.paused(store)
    ]
    demand = (
        recovery_store.retry_demand(store, now, stage_limit=limit)
        if recovering
        else {"due": 0, "waiting": 0}
    )
    wanted = {stage for stage, n in counts.demand.items() if n > 0}
    if counts.unscored_jobs and values["preparation.materials"]:
        wanted |= set(eta_rules.LATER)
    spans = ops_store.stage_spans(store, now)
    eta = eta_rules.estimate(
        eta_rules.EtaInputs(
            phase=phase.value,
            runtime_state=runtime["state"],
            active_slots=runtime["activeSlots"],
            capacity=runtime["capacity"],
            truncated=bool(runtime["truncated"]),
            demand=counts.demand,
            unscored_jobs=counts.unscored_jobs if values["preparation.materials"] else 0,
            pass_rate=ops_store.materials_pass_rate(store),
            jobs_with_demand=counts.jobs_with_demand,
            samples={st: [(b - a).total_seconds() for a, b in sp] for st, sp in spans.items()},
            retries_waiting=int(demand["waiting"]),
            budget_blocked=frozenset(_budget_blocked(store, settings, wanted, now)),
            observed_parallelism=eta_rules.observed_parallelism(
                spans, ops_store.running_since(store), now
            ),
            paused_lanes=frozenset(
                p["name"] for p in paused if p["kind"] == "lane" and p["name"] in wanted
            ),
            held=counts.held,
            pauses_active=any(p["kind"] == "lane" for p in paused),  # refusals are a lane's
        )
    )
    return {
        "phase": phase.value,
        "execution": _execution(execution),
        "scopes": counts.scopes,
        "runtime": runtime,
        "eta": eta,
        "stopLoss": paused,
        "orphans": _orphans(store),
        "recovery": {
            "enabled": bool(values["recovery.enabled"]),
            "due": demand["due"],
            "waiting": demand["waiting"],
        },
        "generatedAt": now.isoformat(),
    }


# -- how the snapshot reads to a person (the CLI and the Operations page) -----------------


def duration_text(seconds: float) -> str:
    """``95`` -> ``1m 35s``; ``7300`` -> ``2h 1m``."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {secs}s" if minutes else f"{secs}s"


def range_text(eta: dict[str, Any]) -> str | None:
    """An available ETA's range (``4m 10s – 12m 30s``), else None."""
    if eta["state"] != eta_rules.EtaState.AVAILABLE or eta["low"] is None:
        return None
    if not eta["high"]:
        return "nothing left to run"
    return f"{duration_text(eta['low'])} – {duration_text(eta['high'])}"


def eta_text(eta: dict[str, Any]) -> str:
    """The ETA as one sentence: the range and what it is, or "No ETA" and why."""
    span = range_text(eta)
    if span is None:
        return f"No ETA: {eta['reason']} ({eta.get('detail') or eta['state']})"
    return f"{span} (a projection from recent stage durations, not a promise)"


def phase_text(snapshot: dict[str, Any]) -> str:
    """The phase, and for draining that the sources are done while preparation goes on."""
    phase = snapshot["phase"]
    if phase == rules.Phase.DRAINING:
        return "draining: Source collection complete; its jobs are still being prepared"
    if phase == rules.Phase.IDLE:
        return "idle: no discovery run yet"
    return str(phase)
