"""The operations snapshot over rows written through the store's own functions: the three
scopes, how failed rows count, the phase as the execution closes, the duration samples
and the ETA's reasons (no Temporal needed: the snapshot only reads)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from jobctrl.app.operations import operations_snapshot
from jobctrl.domain.discovery import Cohort, DiscoverFinish, ExecutionRef
from jobctrl.domain.errors import (
    AUTOMATION_PAUSED,
    BUDGET_EXCEEDED,
    ENRICH_HTTP_NOT_FOUND,
    StageError,
)
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.store import discovery, events, jobs, schema, stage_states
from jobctrl.store import operations as ops_store
from jobctrl.store import stop_loss as stop_loss_store
from jobctrl.store.operations_tables import stop_loss
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.integration.test_operations_api import _beat

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
REF = ExecutionRef("local", "discover-local", "run-1")


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def tick(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _job(store: Store, clock: Clock, name: str, cohort: Cohort | None = None) -> str:
    job_id = jobs.create_job(store, f"https://jobs.example.com/{name}", clock=clock).job_id
    if cohort is not None:
        with store.write(clock=clock) as tx:
            discovery.link_member(tx, REF, job_id, cohort)
    return job_id


def _fail(
    store: Store, clock: Clock, job_id: str, code: str, *, retryable: bool, stage: str = "enrich"
) -> None:
    claim = stage_states.claim_stage(store, job_id, stage, "run-x", clock=clock)
    error = StageError(code, "test", retryable=retryable)
    stage_states.fail_stage(store, job_id, stage, "run-x", claim.attempt, error, clock=clock)


def _succeed(store: Store, clock: Clock, job_id: str, stage: str, seconds: float) -> None:
    claim = stage_states.claim_stage(store, job_id, stage, "run-ok", clock=clock)
    clock.tick(seconds)
    with store.write(clock=clock) as tx:
        stage_states.succeed_stage(tx, job_id, stage, "run-ok", claim.attempt)


def _world(store: Store) -> tuple[Clock, dict[str, str]]:
    clock = Clock()
    discovery.open_run(store, REF, ["greenhouse"], 3, 1, 1, clock=clock)
    ids = {
        "a": _job(store, clock, "a", Cohort.OBSERVED),  # enrich done, score pending
        "b": _job(store, clock, "b", Cohort.OBSERVED),  # enrich failed, retried by recovery
        "c": _job(store, clock, "c", Cohort.BACKLOG),  # enrich blocked on the budget
        "d": _job(store, clock, "d"),  # dormant pending outside the execution
        "e": _job(store, clock, "e"),  # enrich failed for good
    }
    _succeed(store, clock, ids["a"], "enrich", 12.0)
    _fail(store, clock, ids["b"], "ENRICH_TIMEOUT", retryable=True)
    _fail(store, clock, ids["c"], BUDGET_EXCEEDED, retryable=False)
    _fail(store, clock, ids["e"], ENRICH_HTTP_NOT_FOUND, retryable=False)
    return clock, ids


def test_scopes_count_remaining_failed_and_blocked(home: Home, store: Store) -> None:
    clock, _ = _world(store)
    snap = operations_snapshot(home, now=clock.now).to_json()
    assert set(snap) >= {
        "phase", "execution", "scopes", "runtime", "eta", "stopLoss", "orphans", "recovery",
        "generatedAt",
    }  # fmt: skip
    assert snap["phase"] == "discovering"
    assert snap["execution"]["workflowId"] == "discover-local"
    current, sweep, outside = (
        snap["scopes"][k]
        for k in ("current_execution", "execution_sweep", "global_outside_execution")
    )
    # a: score pending; b: enrich failed and retried by recovery, its score pending
    assert current["jobs"] == 2
    assert current["remaining"] == {"enrich": 1, "score": 2, "tailor": 0, "cover": 0, "pdf": 0}
    assert (current["failed"], current["blocked"]) == (0, 0)
    assert sweep == {
        "jobs": 1,
        "remaining": {"enrich": 0, "score": 1, "tailor": 0, "cover": 0, "pdf": 0},
        "failed": 0,
        "blocked": 1,
    }
    assert outside["jobs"] == 2
    assert outside["remaining"]["enrich"] == 1 and outside["failed"] == 1
    assert snap["eta"]["contract"] == "pipeline-eta-v1"


def test_phase_follows_the_execution_and_its_cohorts(home: Home, store: Store) -> None:
    clock, ids = _world(store)
    fin = DiscoverFinish(REF, "completed", None, {})
    discovery.finish_run(store, fin, clock=clock)
    assert operations_snapshot(home, now=clock.now).to_json()["phase"] == "draining"
    # Nothing left to run in either cohort, one blocked job: done, with issues.
    with store.write(clock=clock) as tx:
        tx.conn.execute(
            update(schema.job_stage_states)
            .where(
                schema.job_stage_states.c.tenant_id == tx.tenant,
                schema.job_stage_states.c.job_id.in_([ids["a"], ids["b"], ids["c"]]),
            )
            .values(state="skipped")
        )
        tx.conn.execute(
            update(schema.job_stage_states)
            .where(
                schema.job_stage_states.c.tenant_id == tx.tenant,
                schema.job_stage_states.c.job_id == ids["c"],
            )
            .values(state="failed", error_code=BUDGET_EXCEEDED)
            .where(schema.job_stage_states.c.stage == "enrich")
        )
    assert operations_snapshot(home, now=clock.now).to_json()["phase"] == "completed_with_issues"


def test_no_discovery_run_is_idle(home: Home, store: Store) -> None:
    clock = Clock()
    _job(store, clock, "solo")
    snap = operations_snapshot(home, now=clock.now).to_json()
    assert snap["phase"] == "idle" and snap["execution"] is None
    assert snap["scopes"]["global_outside_execution"]["jobs"] == 1
    assert snap["scopes"]["current_execution"]["jobs"] == 0


def test_without_a_worker_the_runtime_is_unknown_and_there_is_no_eta(
    home: Home, store: Store
) -> None:
    clock, _ = _world(store)
    snap = operations_snapshot(home, now=clock.now).to_json()
    assert snap["runtime"]["state"] == "unavailable"
    assert snap["runtime"]["activeSlots"] is None  # unknown, never zero
    assert (snap["eta"]["state"], snap["eta"]["reason"]) == ("unavailable", "worker_unavailable")
    assert snap["eta"]["low"] is None


def test_duration_samples_are_recent_successes_newest_first(store: Store) -> None:
    clock = Clock()
    ids = [_job(store, clock, f"s{i}") for i in range(3)]
    for i, job_id in enumerate(ids):
        _succeed(store, clock, job_id, "enrich", 10.0 + i)
    samples = ops_store.duration_samples(store, clock.now)
    assert samples["enrich"] == [12.0, 11.0, 10.0]
    assert samples["score"] == []
    # Outside the 14-day window nothing counts.
    assert ops_store.duration_samples(store, clock.now + timedelta(days=15))["enrich"] == []


def test_duration_samples_keep_the_successes_of_a_stage_run_again(store: Store) -> None:
    """The samples are the attempt metrics, not the state rows: a stage run again (a
    regenerate resets it) keeps lending its earlier success to the estimate."""
    clock = Clock()
    job_id = _job(store, clock, "again")
    _succeed(store, clock, job_id, "enrich", 10.0)
    stage_states.reset_stages(store, job_id, ("enrich",), "test", clock=clock)
    clock.tick(1)
    _succeed(store, clock, job_id, "enrich", 20.0)
    assert ops_store.duration_samples(store, clock.now)["enrich"] == [20.0, 10.0]


def test_a_stage_claimed_by_a_new_run_ends_the_open_attempt_as_interrupted(
    home: Home, store: Store
) -> None:
    """A worker killed mid-stage leaves its attempt open; the next run's claim closes it
    as interrupted (no duration: when it stopped is unknown), never running for ever."""
    clock = Clock()
    job_id = _job(store, clock, "killed")
    stage_states.claim_stage(store, job_id, "enrich", "run-dead", clock=clock)
    clock.tick(30)
    _succeed(store, clock, job_id, "enrich", 4.0)
    today = operations_snapshot(home, now=clock.now).to_json()["attemptsToday"]["enrich"]
    assert (today["attempts"], today["succeeded"], today["interrupted"]) == (2, 1, 1)
    assert (today["running"], today["failed"], today["p50"]) == (0, 0, 4.0)
    assert ops_store.duration_samples(store, clock.now)["enrich"] == [4.0]


def test_outside_the_execution_only_owned_rows_are_eta_demand(store: Store) -> None:
    """A pending row outside the execution is work the worker will do only when its job's
    preparation run is open (or it runs, or recovery reserved it); dormant rows are not."""
    clock = Clock()
    dormant = _job(store, clock, "dormant")
    owned = _job(store, clock, "owned")
    with store.write(clock=clock) as tx:
        tx.conn.execute(
            schema.workflow_run_projections.insert().values(
                tenant_id=tx.tenant,
                workflow_id="prep-owned",
                run_id="r1",
                workflow_type="JobPreparationWorkflow",
                job_id=owned,
                status="running",
                started_at=clock.now,
                last_seq=0,
            )
        )
    counts = ops_store.scope_counts(store, None, non_retryable=frozenset(), max_auto_attempts=3)
    assert counts.scopes["global_outside_execution"]["remaining"]["enrich"] == 2  # both count
    assert counts.demand == {"enrich": 1, "score": 1}  # only the owned job's rows
    assert (counts.jobs_with_demand, counts.unscored_jobs) == (1, 1)
    assert dormant != owned


def test_a_paused_lane_with_work_withholds_the_eta(home: Home, store: Store) -> None:
    clock, _ = _world(store)
    with store.write(clock=clock) as tx:
        tx.conn.execute(
            stop_loss.insert().values(
                tenant_id=tx.tenant,
                kind="lane",
                name="score",
                streak=5,
                paused_code="provider_auth",
                paused_at=clock.now,
                updated_at=clock.now,
            )
        )
    _beat(home, store, clock.now)
    snap = operations_snapshot(home, now=clock.now).to_json()
    assert snap["stopLoss"] == [
        {"kind": "lane", "name": "score", "code": "provider_auth",
         "pausedAt": clock.now.isoformat(), "streak": 5}
    ]  # fmt: skip
    # discovering comes after: a pause is named first
    assert (snap["eta"]["state"], snap["eta"]["reason"]) == ("paused", "stop_loss")


def test_a_spent_lane_with_work_withholds_the_eta(home: Home, store: Store) -> None:
    clock, _ = _world(store)
    settings = Settings(store)
    settings.set_value("lane_token_limits", {"score": 100})
    spend = SpendAuthority(store, settings, clock=lambda: clock.now)
    spend.record(observation_id="o1", lane="score", provider="p", model="m", usage=Usage(90, 20))
    _beat(home, store, clock.now)
    eta = operations_snapshot(home, now=clock.now).to_json()["eta"]
    assert (eta["state"], eta["reason"]) == ("paused", "budget_exhausted")
    assert eta["low"] is None


def test_with_recovery_off_a_retryable_failure_is_failed_not_remaining(
    home: Home, store: Store
) -> None:
    """Nothing retries it by itself (`recovery.enabled` false): it is not remaining work
    and not retry demand, so the run can complete and the ETA is not held on it."""
    clock, _ = _world(store)
    Settings(store).set_value("recovery.enabled", False)
    snap = operations_snapshot(home, now=clock.now).to_json()
    current = snap["scopes"]["current_execution"]
    assert current["remaining"]["enrich"] == 0 and current["failed"] == 1
    assert (snap["recovery"]["due"], snap["recovery"]["waiting"]) == (0, 0)
    assert snap["recovery"]["enabled"] is False


def test_a_closed_run_whose_jobs_only_wait_on_a_block_has_no_eta(home: Home, store: Store) -> None:
    """Enrich done, Score refused by a paused lane (or a spent budget): nothing remains
    and nothing is finished either, so there is no "nothing left to run"."""
    clock = Clock()
    discovery.open_run(store, REF, ["greenhouse"], 1, 1, 1, clock=clock)
    paused, spent = _job(store, clock, "p", Cohort.OBSERVED), _job(store, clock, "s")
    for job_id in (paused, spent):
        _succeed(store, clock, job_id, "enrich", 5.0)
    _fail(store, clock, paused, AUTOMATION_PAUSED, retryable=True, stage="score")
    discovery.finish_run(store, DiscoverFinish(REF, "completed", None, {}), clock=clock)
    for n in range(5):
        stop_loss_store.note_failure(store, "lane", "score", "provider_auth", f"j{n}", clock=clock)
    _beat(home, store, clock.now)
    snap = operations_snapshot(home, now=clock.now).to_json()
    assert snap["scopes"]["current_execution"]["blocked"] == 1
    assert sum(snap["scopes"]["current_execution"]["remaining"].values()) == 0
    assert (snap["eta"]["state"], snap["eta"]["reason"]) == ("paused", "stop_loss")
    # Resumed: the refused row waits for recovery's next pass, not for nothing.
    assert stop_loss_store.resume(store, "lane", "score", clock=clock) == "provider_auth"
    # A paused source refuses no stage: the row waits for recovery, not for a pause.
    stop_loss_store.note_failure(store, "source", "feed:x", "SOURCE_UNAVAILABLE", "r", threshold=1)
    eta = operations_snapshot(home, now=clock.now).to_json()["eta"]
    assert (eta["state"], eta["reason"], eta["low"]) == ("unavailable", "awaiting_dispatch", None)
    # Its automatic attempts spent, recovery will not run it again: nothing to wait for.
    with store.write(clock=clock) as tx:
        tx.conn.execute(
            update(schema.job_stage_states)
            .where(
                schema.job_stage_states.c.job_id == paused,
                schema.job_stage_states.c.tenant_id == tx.tenant,
            )
            .values(auto_attempts=5)
        )
    eta = operations_snapshot(home, now=clock.now).to_json()["eta"]
    assert (eta["state"], eta["high"]) == ("available", 0.0)
    # A member stopped by the spent budget waits for the UTC rollover.
    with store.write(clock=clock) as tx:
        discovery.link_member(tx, REF, spent, Cohort.OBSERVED)
    _fail(store, clock, spent, BUDGET_EXCEEDED, retryable=False, stage="score")
    eta = operations_snapshot(home, now=clock.now).to_json()["eta"]
    assert (eta["state"], eta["reason"]) == ("paused", "budget_exhausted")


def test_each_way_a_discovery_run_ends_writes_its_own_terminal_event(store: Store) -> None:
    """A failed run ends with ``DiscoveryRunFailed`` (as the reconciler records one),
    never ``DiscoveryRunCompleted`` with a failed status."""
    clock = Clock()
    seen = {}
    for n, (status, code) in enumerate(
        [("completed", None), ("partial", "SOURCE_UNAVAILABLE"), ("canceled", None),
         ("failed", "DISCOVER_PLAN_FAILED")]
    ):  # fmt: skip
        ref = ExecutionRef("local", "discover-local", f"run-end-{n}")
        discovery.open_run(store, ref, ["feed"], 1, 1, 1, clock=clock)
        discovery.finish_run(store, DiscoverFinish(ref, status, code, {}), clock=clock)
        [ended] = [
            e
            for e in events.events_after(store, 0, 10_000)
            if e["type"] in ("DiscoveryRunCompleted", "DiscoveryRunFailed")
            and e["payload"]["runId"] == ref.run_id
        ]
        seen[status] = (
            ended["type"],
            ended["payload"].get("status"),
            ended["payload"]["errorCode"],
        )
    assert seen == {
        "completed": ("DiscoveryRunCompleted", "completed", None),
        "partial": ("DiscoveryRunCompleted", "partial", "SOURCE_UNAVAILABLE"),
        "canceled": ("DiscoveryRunCompleted", "canceled", None),
        "failed": ("DiscoveryRunFailed", None, "DISCOVER_PLAN_FAILED"),
    }
