"""The pipeline operations snapshot (`jobctrl ops`, ``GET /v1/pipeline/operations``, the
Operations page): which Discover execution owns work and its phase, what remains in each
scope, what the worker executes now, and an ETA range only when one can be defended.

Read-only: every figure comes from the store (stage rows, discovery runs, the workers'
runtime heartbeats, stop-loss, orphans, recovery's retry demand) and the spend authority;
nothing here asks Temporal or changes a row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from jobctrl.app.discovery_plan import SourceFamilyEta, source_family_eta
from jobctrl.app.models import Sparse, Timestamp, View
from jobctrl.domain import attempt_metrics as attempt_rules
from jobctrl.domain import eta as eta_rules
from jobctrl.domain import operations as rules
from jobctrl.domain import recovery as recovery_rules
from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.domain.errors import BudgetExceededError
from jobctrl.domain.runtime import RuntimeItem, RuntimeState, RuntimeView, home_identity
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import attempt_metrics, stop_loss
from jobctrl.store import operations as ops_store
from jobctrl.store import orphans as orphans_store
from jobctrl.store import recovery as recovery_store
from jobctrl.store import runtime as runtime_store
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "Eta",
    "FailureCount",
    "OperationsSnapshot",
    "OrphanView",
    "PauseView",
    "RuntimeItemView",
    "RuntimeSnapshot",
    "StageAttempts",
    "duration_text",
    "eta_text",
    "operations_snapshot",
    "phase_text",
    "range_text",
    "source_eta_text",
]

Number = int | float  # kept as computed: an int stays an int on the wire, a float a float


class DiscoverExecution(View):
    """The Discover execution the snapshot is about (times in UTC)."""

    workflow_id: str
    run_id: str
    status: str
    error_code: str | None
    started_at: Timestamp | None
    finished_at: Timestamp | None


class Scope(View):
    """One scope's jobs, remaining rows per stage, and jobs failed or blocked."""

    jobs: int
    remaining: dict[str, int]
    failed: int
    blocked: int


class RuntimeItemView(Sparse):
    """An activity a worker executes now: ``stage`` only for a preparation stage, the job
    (``jobId``, ``jobTitle``, ``company``) only when its execution is bound to one."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"stage", "job_id", "job_title", "company"})

    kind: str
    label: str
    workflow_id: str
    run_id: str
    key: str
    started_at: str  # as the worker published it
    stage: str | None = None
    job_id: str | None = None
    job_title: str | None = None
    company: str | None = None

    @classmethod
    def of(cls, item: RuntimeItem) -> RuntimeItemView:
        view = cls(
            kind=item.kind,
            label=item.label,
            workflow_id=item.workflow_id,
            run_id=item.run_id,
            key=item.key,
            started_at=item.started_at,
        )
        if item.stage is not None:
            view.stage = item.stage
        if item.job_id is not None:
            view.job_id, view.job_title, view.company = item.job_id, item.job_title, item.company
        return view


class DurationSummary(View):
    """Seconds a kind of activity took lately (``count`` samples, nearest-rank p50/p90)."""

    count: int
    p50: Number | None
    p90: Number | None
    max: Number | None


class RuntimeSnapshot(View):
    """What the workers of this home report executing now: slots, capacity and totals are
    None (unknown, never zero) unless ``state`` is ``fresh``; task-queue figures are
    approximate."""

    state: RuntimeState
    active_slots: int | None
    capacity: int | None
    items: list[RuntimeItemView]
    items_total: int | None
    truncated: bool
    queue: dict[str, Any] | None
    durations: dict[str, DurationSummary]
    workers: int
    beat_at: Timestamp | None

    @classmethod
    def of(cls, view: RuntimeView) -> RuntimeSnapshot:
        return cls(
            state=view.state,
            active_slots=view.active_slots,
            capacity=view.capacity,
            items=[RuntimeItemView.of(item) for item in view.items],
            items_total=view.items_total,
            truncated=view.truncated,
            queue={**view.queue, "approximate": True} if view.queue else view.queue,
            durations={k: DurationSummary.model_validate(v) for k, v in view.durations.items()},
            workers=view.workers,
            beat_at=view.beat_at,
        )


class EtaStage(Sparse):
    """One stage's part of the ETA: the range figures only once it could be priced."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"p50", "p90", "low", "high"})

    remaining: int
    expected: Number
    possible: Number
    samples: int
    state: str
    p50: Number | None = None
    p90: Number | None = None
    low: Number | None = None
    high: Number | None = None


class EtaParallelism(View):
    low: Number
    high: Number
    observed: bool


class Calibrating(View):
    """A stage with too few recent samples to be priced."""

    stage: str
    samples: int
    needed: int


class Eta(Sparse):
    """The ETA (contract ``pipeline-eta-v1``): a range in seconds when one can be defended,
    else no number, the ``reason`` and its ``detail``."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"detail", "calibrating"})

    contract: str
    state: str
    low: Number | None
    high: Number | None
    reason: str | None
    per_stage: dict[str, EtaStage]
    parallelism: EtaParallelism
    calibrating: list[Calibrating] | None = None
    detail: str | None = None


class PauseView(View):
    """A paused lane or source (``pausedAt`` in UTC)."""

    kind: str
    name: str
    code: str
    paused_at: Timestamp | None
    streak: int


class OrphanView(View):
    """An execution Temporal ran at the last heartbeat that the store does not expect."""

    workflow_id: str
    run_id: str
    workflow_type: str
    started_at: Timestamp | None
    last_seen_at: Timestamp | None


class RecoveryView(View):
    """Automatic recovery: on or off, rows due now and rows waiting on their backoff."""

    enabled: bool
    due: int
    waiting: int


class FailureCount(View):
    code: str
    count: int


class StageAttempts(View):
    """A stage's attempts of the UTC day so far (``operational_attempt_metrics``): how they
    ended, the p50/p90 seconds of those that ended, the most frequent failure codes."""

    attempts: int
    succeeded: int
    failed: int
    interrupted: int  # a later attempt of the stage started while it was open
    running: int
    p50: Number | None
    p90: Number | None
    top_failures: list[FailureCount]


class OperationsSnapshot(View):
    """The snapshot of `jobctrl ops --json` and ``GET /v1/pipeline/operations``
    (``sourceEta``: while the run is still reading its sources, else null)."""

    phase: str
    execution: DiscoverExecution | None
    scopes: dict[str, Scope]
    runtime: RuntimeSnapshot
    eta: Eta
    source_eta: SourceFamilyEta | None
    stop_loss: list[PauseView]
    orphans: list[OrphanView]
    recovery: RecoveryView
    attempts_today: dict[str, StageAttempts]
    generated_at: Timestamp


def _execution(row: dict[str, Any] | None) -> DiscoverExecution | None:
    if row is None:
        return None
    return DiscoverExecution(
        workflow_id=row["workflow_id"],
        run_id=row["run_id"],
        status=row["status"],
        error_code=row["error_code"],
        started_at=as_utc(row["started_at"]) if row["started_at"] is not None else None,
        finished_at=as_utc(row["finished_at"]) if row["finished_at"] is not None else None,
    )


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


def operations_snapshot(home: Home, *, now: datetime | None = None) -> OperationsSnapshot:
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
    # What the workers of this home report executing now (unknown, never zero, without a
    # fresh report).
    runtime = runtime_store.read_runtime(store, now, home_id=home_identity(home))
    paused = stop_loss.paused(store)
    idle = {"due": 0, "waiting": 0}
    demand = recovery_store.retry_demand(store, now, stage_limit=limit) if recovering else idle
    wanted = {stage for stage, n in counts.demand.items() if n > 0}
    if counts.unscored_jobs and values["preparation.materials"]:
        wanted |= set(eta_rules.LATER)
    spans, running = ops_store.stage_spans(store, now), ops_store.running_since(store)
    eta = eta_rules.estimate(
        eta_rules.EtaInputs(
            phase=phase.value,
            runtime_state=runtime.state,
            active_slots=runtime.active_slots,
            capacity=runtime.capacity,
            truncated=runtime.truncated,
            demand=counts.demand,
            unscored_jobs=counts.unscored_jobs if values["preparation.materials"] else 0,
            pass_rate=ops_store.materials_pass_rate(store),
            jobs_with_demand=counts.jobs_with_demand,
            samples={st: [(b - a).total_seconds() for a, b in sp] for st, sp in spans.items()},
            retries_waiting=int(demand["waiting"]),
            budget_blocked=frozenset(_budget_blocked(store, settings, wanted, now)),
            observed_parallelism=eta_rules.observed_parallelism(
                spans, [t for _, t in running], now
            ),
            running_for=eta_rules.running_for(running, now),
            paused_lanes=frozenset(p.name for p in paused if p.kind == "lane" and p.name in wanted),
            held=counts.held,
            pauses_active=any(p.kind == "lane" for p in paused),  # refusals are a lane's
        )
    )
    return OperationsSnapshot(
        phase=phase.value,
        execution=_execution(execution),
        scopes={name: Scope.model_validate(scope) for name, scope in counts.scopes.items()},
        runtime=RuntimeSnapshot.of(runtime),
        eta=Eta.model_validate(eta),
        source_eta=source_family_eta(store, execution, runtime.state, now),
        stop_loss=[PauseView.from_row(p) for p in paused],
        orphans=[OrphanView.from_row(o) for o in orphans_store.orphans(store)],
        recovery=RecoveryView(
            enabled=bool(values["recovery.enabled"]),
            due=demand["due"],
            waiting=demand["waiting"],
        ),
        attempts_today={
            stage: StageAttempts.model_validate(figures)
            for stage, figures in attempt_rules.per_stage(
                attempt_metrics.attempts_since(store, attempt_rules.day_start(now)),
                rules.OPS_STAGES,
            ).items()
        },
        generated_at=now,
    )


# -- how the snapshot reads to a person (the CLI and the Operations page) -----------------


def duration_text(seconds: float) -> str:
    """``95`` -> ``1m 35s``; ``7300`` -> ``2h 1m``."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {secs}s" if minutes else f"{secs}s"


def range_text(eta: Eta) -> str | None:
    """An available ETA's range (``4m 10s – 12m 30s``), else None."""
    if eta.state != eta_rules.EtaState.AVAILABLE or eta.low is None:
        return None
    if not eta.high:
        return "nothing left to run"
    return f"{duration_text(eta.low)} – {duration_text(eta.high)}"


def eta_text(eta: Eta) -> str:
    """The ETA as one sentence: the range and what it is, or "No ETA" and why."""
    span = range_text(eta)
    if span is None:
        return f"No ETA: {eta.reason} ({eta.detail or eta.state})"
    return f"{span} (a projection from recent stage durations, not a promise)"


def source_eta_text(eta: SourceFamilyEta) -> str:
    """The source-family ETA as one sentence: the range, or "No ETA" and why."""
    if eta.low is None or eta.high is None:
        return f"No ETA: {eta.reason} ({eta.detail})"
    span = f"{duration_text(eta.low)} – {duration_text(eta.high)}"
    jobs = f", about {eta.members} more jobs" if eta.members else ""
    return f"{span} more{jobs} (from recent runs of each source family, not a promise)"


def phase_text(snapshot: OperationsSnapshot) -> str:
    """The phase, and for draining that the sources are done while preparation goes on."""
    phase = snapshot.phase
    if phase == rules.Phase.DRAINING:
        return "draining: Source collection complete; its jobs are still being prepared"
    if phase == rules.Phase.IDLE:
        return "idle: no discovery run yet"
    return str(phase)
