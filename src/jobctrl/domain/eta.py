"""pipeline-eta-v1: a conservative range for the remaining preparation work, or no
number and the named reason why one cannot be defended.

Evidence: successful stage durations (``started_at`` -> ``finished_at`` of succeeded
stage rows) from the last 14 days, the 50 most recent per stage; every stage with
remaining work needs at least 5 of them (else ``calibrating``). No number while the
runtime inventory is stale or missing, while work waits on a spent budget, a stop-loss
pause, a broken config.yaml or a retry backoff (its start cannot be bounded), while the
inventory is truncated (contention unbounded), or while a stage running now has run past
twice its p90 and a second (``overrunning``: a slow site or provider today, which the
samples no longer describe) — then no stage's number either — or while the Discover
execution can still add members (each stage's known backlog is still priced).

The range. For each stage, its demand (rows pending, running or retried by recovery,
plus the Tailor/Cover/PDF rows jobs not yet scored may still need) times a duration
quantile is its work; the work of all stages divided by the usable parallelism is the
time, never less than one job's remaining stages one after another (a job's stages are
sequential). ``low`` is the optimistic end: median durations (p50) and the later stages
only for the share of scored jobs that went on to materials; ``high`` the conservative
end: p90 durations and every unscored job going on to materials. The usable parallelism
is the observed one: stage-seconds the pipeline completed per second over the last
minute (every overhead between stages and a CPU shared by the slots included), capped by
the free slots and the jobs left; before anything was observed, every free slot for
``low`` and the slots busy now for ``high``. It is a projection from recent evidence,
not a promise.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from jobctrl.domain.errors import AUTOMATION_PAUSED, BUDGET_EXCEEDED, CONFIG_INVALID
from jobctrl.domain.operations import OPS_STAGES

CONTRACT = "pipeline-eta-v1"
WINDOW = timedelta(days=14)
MAX_SAMPLES = 50
MIN_SAMPLES = 5
LOW_QUANTILE = 0.5
HIGH_QUANTILE = 0.9
LATER = ("tailor", "cover", "pdf")  # stages a job reaches only when its score passes
OBSERVE_SECONDS = 60.0  # the recent window the observed parallelism is measured over
MIN_OBSERVED_SECONDS = 5.0
MIN_PARALLELISM = 0.25


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
    "config_invalid": "work waits on config.yaml being fixed",
    "awaiting_dispatch": "work a lifted pause stopped waits for automatic recovery to start it",
    "unbounded_retries": "failed work waits on a retry backoff",
    "unbounded_contention": "the worker runs more than its report lists",
    "membership_open": "discovery is still adding jobs",
    "insufficient_samples": "not enough recent successful durations",
    "overrunning": "work running now has taken far longer than its recent runs",
}
# A stage running longer than this against its p90 makes the samples no guide to what is
# left (a slow site, a provider slower today): no number rather than one already wrong.
OVERRUN_FACTOR = 2.0
OVERRUN_GRACE = 1.0  # seconds: below this a run is never called overrunning


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
    # Codes of the blocked rows the execution waits on (failed with a spent budget, a
    # stop-loss pause or a broken config.yaml): not remaining work, not finished either.
    held: frozenset[str] = frozenset()
    pauses_active: bool = False  # any lane or source is paused by stop-loss now
    observed_parallelism: float | None = None  # stage-seconds done per second, recently
    running_for: Mapping[str, float] = field(default_factory=dict)  # stage -> longest run now


def observed_parallelism(
    spans: Mapping[str, Sequence[tuple[datetime, datetime]]],
    running: Sequence[datetime],
    now: datetime,
) -> float | None:
    """Stage-seconds of work done per wall-clock second over the last minute: how many
    stages the pipeline really runs at once, with every overhead between them (dispatch,
    workflow tasks, a CPU shared by the slots) already in the measure.

    ``spans`` are each stage's most recent successful (started, finished) pairs (newest
    first, at most ``MAX_SAMPLES``), ``running`` the starts of the rows running now. The
    window never reaches further back than a stage's samples cover, and starts when work
    started in it (an idle worker before the run is not counted as slowness). None when
    there is no recent work to measure."""
    horizon = now - timedelta(seconds=OBSERVE_SECONDS)
    for pairs in spans.values():
        if len(pairs) >= MAX_SAMPLES:  # older successes of this stage were not read
            horizon = max(horizon, min(done for _, done in pairs))
    intervals = [(max(a, horizon), min(b, now)) for pairs in spans.values() for a, b in pairs]
    intervals += [(max(a, horizon), now) for a in running]
    intervals = [(a, b) for a, b in intervals if b > a]
    if not intervals:
        return None
    start = min(a for a, _ in intervals)
    length = (now - start).total_seconds()
    if length < MIN_OBSERVED_SECONDS:
        return None
    return sum((b - a).total_seconds() for a, b in intervals) / length


def running_for(running: Sequence[tuple[str, datetime]], now: datetime) -> dict[str, float]:
    """Per stage, the seconds its longest-running row has run so far."""
    out: dict[str, float] = {}
    for stage, started in running:
        out[stage] = max(out.get(stage, 0.0), (now - started).total_seconds())
    return out


def _overrunning(inp: EtaInputs, per_stage: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The priced stages a row of which has run past ``OVERRUN_FACTOR`` times its p90."""
    return [
        f"{stage} has run {inp.running_for[stage]:.0f} s, its recent runs {entry['p90']:g} s"
        for stage, entry in per_stage.items()
        if entry["state"] == EtaState.AVAILABLE
        and inp.running_for.get(stage, 0.0) > OVERRUN_FACTOR * entry["p90"] + OVERRUN_GRACE
    ]


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
    # Rows that stopped and wait (not remaining work, not finished either).
    if BUDGET_EXCEEDED in inp.held:
        return EtaState.PAUSED, "budget_exhausted"
    if AUTOMATION_PAUSED in inp.held and inp.pauses_active:
        return EtaState.PAUSED, "stop_loss"
    if CONFIG_INVALID in inp.held:
        return EtaState.PAUSED, "config_invalid"
    if AUTOMATION_PAUSED in inp.held:  # its pause is lifted: recovery's next pass runs it
        return EtaState.UNAVAILABLE, "awaiting_dispatch"
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
    if inp.observed_parallelism:
        # What the pipeline really sustained lately, never more than slots or jobs allow.
        par_low = par_high = max(MIN_PARALLELISM, min(capacity, jobs, inp.observed_parallelism))
    else:  # nothing measured yet: every free slot at best, the slots busy now at worst
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
        "per_stage": per_stage,
        "parallelism": {
            "low": round(par_low, 2),
            "high": round(par_high, 2),
            "observed": inp.observed_parallelism is not None,
        },
    }
    withheld = _withheld(inp, high_n)
    if withheld is None and inp.phase == "discovering":
        withheld = EtaState.UNAVAILABLE, "membership_open"
    overrun = _overrunning(inp, per_stage) if withheld is None else []
    if overrun:
        withheld = EtaState.UNAVAILABLE, "overrunning"
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
        elif reason == "overrunning":
            detail = f"{detail}: {'; '.join(overrun)}"
        if reason not in ("membership_open", "insufficient_samples"):
            # What withholds the whole range withholds each stage's: only the already
            # known backlog of a run still adding jobs may be priced stage by stage.
            for entry in per_stage.values():
                if entry["state"] == EtaState.AVAILABLE:
                    entry.update(state=state.value, low=None, high=None)
        eta.update(state=state.value, reason=reason, detail=detail)
        return eta
    eta["low"] = round(max(work_low / par_low, chain_low), 1)
    eta["high"] = round(max(work_high / par_high, chain_high), 1)
    return eta


# -- the source-family ETA (issue 34): how long discovery's remaining families take -------

MIN_FAMILY_RUNS = 3  # comparable runs of each remaining family, else calibrating
# A family's low end is its fast runs (p10: the fastest of fewer than 10), not its median:
# a source answers faster on some days, and bench/source_eta.py found p50 missing those.
FAMILY_LOW_QUANTILE = 0.1
FAMILY_REASONS = {
    "calibrating": "fewer than 3 runs of a source family finished in the last 14 days",
    "runtime_stale": REASONS["runtime_stale"],
    "worker_unavailable": REASONS["worker_unavailable"],
}


def source_family_estimate(
    remaining: Sequence[tuple[str, float]],
    history: Mapping[str, Sequence[float]],
    runtime_state: str,
    yields: Mapping[str, Sequence[int]] | None = None,
) -> dict[str, Any]:
    """While a Discover run is still reading its sources: how long its remaining source
    families take, from the last 14 days' completed runs of each family (the newest
    ``MAX_SAMPLES``). ``remaining`` is each family not done yet with the seconds it has run
    (0 before it starts); the run reads families one after another, so the range is the
    sum of their p10 (``low``: a family's fast runs) and p90 (``high``) less what each
    already ran (never below zero). Withheld (``calibrating``) while a remaining family
    has fewer than ``MIN_FAMILY_RUNS`` comparable runs, and without a fresh worker
    report. ``yields``: the jobs each of those runs linked; their medians say how many
    members the families left should still bring (``members``)."""
    families: dict[str, dict[str, Any]] = {}
    short: list[str] = []
    low = high = 0.0
    members = 0
    for kind, elapsed in remaining:
        samples = list(history.get(kind, ()))[:MAX_SAMPLES]
        entry: dict[str, Any] = {"runs": len(samples), "elapsed": round(elapsed, 1)}
        families[kind] = entry
        if len(samples) < MIN_FAMILY_RUNS:
            short.append(kind)
            continue
        linked = list((yields or {}).get(kind, ()))[:MAX_SAMPLES]
        if linked:
            entry["members"] = int(statistics.median(linked))
            members += entry["members"]
        fast = quantile(samples, FAMILY_LOW_QUANTILE)
        p50, p90 = quantile(samples, LOW_QUANTILE), quantile(samples, HIGH_QUANTILE)
        entry.update(p10=round(fast, 1), p50=round(p50, 1), p90=round(p90, 1))
        low += max(0.0, fast - elapsed)
        high += max(0.0, p90 - elapsed)
    result: dict[str, Any] = {
        "state": EtaState.AVAILABLE.value,
        "low": None,
        "high": None,
        "reason": None,
        "detail": None,
        "members": None,
        "families": families,
    }
    reason: str | None = None
    if runtime_state == "stale":
        reason, state = "runtime_stale", EtaState.STALE
    elif runtime_state != "fresh":
        reason, state = "worker_unavailable", EtaState.UNAVAILABLE
    elif short:
        reason, state = "calibrating", EtaState.CALIBRATING
    if reason is not None:
        detail = FAMILY_REASONS[reason]
        if reason == "calibrating":
            detail = "; ".join(
                f"{k} has {families[k]['runs']} of {MIN_FAMILY_RUNS} recent runs" for k in short
            )
        result.update(state=state.value, reason=reason, detail=detail)
        return result
    # Rounded outwards to a tenth of a second, so the rounding never moves the truth out.
    result.update(
        low=math.floor(low * 10) / 10,
        high=math.ceil(high * 10) / 10,
        members=members if yields is not None else None,
    )
    return result
