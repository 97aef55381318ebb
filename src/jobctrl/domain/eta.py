"""pipeline-eta-v1: a conservative range for the remaining preparation work, or no
number and the named reason why one cannot be defended.

Evidence: successful stage durations (``started_at`` -> ``finished_at`` of succeeded
stage rows) from the last 14 days, the 50 most recent per stage; every stage with
remaining work needs at least 5 of them (else ``calibrating``). No number while the
runtime inventory is stale or missing, while work waits on a spent budget, a stop-loss
pause or a retry backoff (its start cannot be bounded), while the inventory is truncated
(contention unbounded), or while the Discover execution can still add members.

The range. For each stage, its demand (rows pending, running or retried by recovery,
plus the Tailor/Cover/PDF rows jobs not yet scored may still need) times a duration
quantile is its work; the work of all stages divided by the usable parallelism is the
time, never less than one job's remaining stages one after another (a job's stages are
sequential). ``low`` is the optimistic end: median durations (p50), the later stages only
for the share of scored jobs that went on to materials, every free activity slot used
(``capacity``). ``high`` is the conservative end: p90 durations, every unscored job
going on to materials, and only the parallelism seen now (``activeSlots``). Durations
are measured under the same contention the remaining work will see, so p50..p90 brackets
the typical pace. It is a projection from recent evidence, not a promise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any

from jobctrl.domain.operations import OPS_STAGES

CONTRACT = "pipeline-eta-v1"
WINDOW = timedelta(days=14)
MAX_SAMPLES = 50
MIN_SAMPLES = 5
LOW_QUANTILE = 0.5
HIGH_QUANTILE = 0.9
LATER = ("tailor", "cover", "pdf")  # stages a job reaches only when its score passes


class EtaState(StrEnum):
    AVAILABLE = "available"
    CALIBRATING = "calibrating"
    PAUSED = "paused"
    STALE = "stale"
    UNAVAILABLE = "unavailable"


# Reasons a number is withheld, and how each reads to a person.
REASONS = {
    "runtime_stale": "the worker's runtime report is stale",
    "worker_unavailable": "no worker is reporting",
    "budget_exhausted": "work waits on today's spent budget (resumes after the UTC rollover)",
    "stop_loss": "work waits on a lane paused by stop-loss",
    "unbounded_retries": "failed work waits on a retry backoff",
    "unbounded_contention": "the worker runs more than its report lists",
    "membership_open": "discovery is still adding jobs",
    "insufficient_samples": "not enough recent successful durations",
}


@dataclass(frozen=True)
class EtaInputs:
    """Everything the estimate reads; built by the app layer from the store."""

    phase: str
    runtime_state: str  # fresh | stale | unavailable
    active_slots: int | None = None
    capacity: int | None = None
    truncated: bool = False
    demand: Mapping[str, int] = field(default_factory=dict)  # stage -> remaining rows
    unscored_jobs: int = 0  # jobs whose Score is still to run (later stages may follow)
    pass_rate: float = 1.0  # share of scored jobs that went on to materials
    jobs_with_demand: int = 0
    samples: Mapping[str, Sequence[float]] = field(default_factory=dict)  # seconds
    retries_waiting: int = 0
    budget_blocked: frozenset[str] = frozenset()  # stages whose lane's ceiling is met
    paused_lanes: frozenset[str] = frozenset()  # stages paused by stop-loss


def quantile(samples: Sequence[float], fraction: float) -> float:
    """Nearest-rank quantile of ``samples`` (not empty)."""
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


def _counts(inp: EtaInputs) -> tuple[dict[str, float], dict[str, int]]:
    """Per-stage demand at the low end (expected) and the high end (every job passes)."""
    low: dict[str, float] = {}
    high: dict[str, int] = {}
    rate = min(1.0, max(0.0, inp.pass_rate))
    for stage in OPS_STAGES:
        base = max(0, int(inp.demand.get(stage, 0)))
        extra = inp.unscored_jobs if stage in LATER else 0
        low[stage] = base + extra * rate
        high[stage] = base + extra
    return low, high


def _withheld(inp: EtaInputs, high: Mapping[str, int]) -> tuple[EtaState, str] | None:
    wanted = {stage for stage, n in high.items() if n > 0}
    if inp.runtime_state == "stale":
        return EtaState.STALE, "runtime_stale"
    if inp.runtime_state != "fresh":
        return EtaState.UNAVAILABLE, "worker_unavailable"
    if wanted & inp.budget_blocked:
        return EtaState.PAUSED, "budget_exhausted"
    if wanted & inp.paused_lanes:
        return EtaState.PAUSED, "stop_loss"
    if inp.retries_waiting > 0:
        return EtaState.UNAVAILABLE, "unbounded_retries"
    if inp.truncated:
        return EtaState.UNAVAILABLE, "unbounded_contention"
    return None


def estimate(inp: EtaInputs) -> dict[str, Any]:
    """The ``eta`` object of the operations snapshot (camelCase keys)."""
    low_n, high_n = _counts(inp)
    capacity = max(1, inp.capacity or 1)
    jobs = max(1, inp.jobs_with_demand)
    par_low = max(1, min(capacity, jobs))
    par_high = max(1, min(capacity, jobs, inp.active_slots or 1))
    per_stage: dict[str, dict[str, Any]] = {}
    short: list[tuple[str, int]] = []
    work_low = work_high = chain_low = chain_high = 0.0
    for stage in OPS_STAGES:
        samples = list(inp.samples.get(stage, ()))[:MAX_SAMPLES]
        entry: dict[str, Any] = {
            "remaining": int(inp.demand.get(stage, 0)),
            "expected": round(low_n[stage], 1),
            "possible": high_n[stage],
            "samples": len(samples),
        }
        per_stage[stage] = entry
        if high_n[stage] <= 0:
            entry["state"] = "done"
            continue
        if len(samples) < MIN_SAMPLES:
            entry["state"] = EtaState.CALIBRATING.value
            short.append((stage, len(samples)))
            continue
        p50, p90 = quantile(samples, LOW_QUANTILE), quantile(samples, HIGH_QUANTILE)
        entry.update(
            state=EtaState.AVAILABLE.value,
            p50=round(p50, 3),
            p90=round(p90, 3),
            low=round(low_n[stage] * p50 / par_low, 1),
            high=round(high_n[stage] * p90 / par_high, 1),
        )
        work_low += low_n[stage] * p50
        work_high += high_n[stage] * p90
        chain_low += p50 if low_n[stage] > 0 else 0.0
        chain_high += p90
    eta: dict[str, Any] = {
        "contract": CONTRACT,
        "state": EtaState.AVAILABLE.value,
        "low": None,
        "high": None,
        "reason": None,
        "perStage": per_stage,
        "parallelism": {"low": par_low, "high": par_high},
    }
    withheld = _withheld(inp, high_n)
    if withheld is None and inp.phase == "discovering":
        withheld = EtaState.UNAVAILABLE, "membership_open"
    if withheld is None and short:
        withheld = EtaState.CALIBRATING, "insufficient_samples"
    if short:
        eta["calibrating"] = [
            {"stage": stage, "samples": n, "needed": MIN_SAMPLES} for stage, n in short
        ]
    if withheld is not None:
        state, reason = withheld
        detail = REASONS[reason]
        if reason == "insufficient_samples":
            detail = "; ".join(f"{s} has {n} of {MIN_SAMPLES} samples" for s, n in short)
        eta.update(state=state.value, reason=reason, detail=detail)
        return eta
    eta["low"] = round(max(work_low / par_low, chain_low), 1)
    eta["high"] = round(max(work_high / par_high, chain_high), 1)
    return eta
