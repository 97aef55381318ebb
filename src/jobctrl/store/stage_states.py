"""Stage rows (``job_stage_states``): the source of truth for each stage of each job,
and their fenced transitions.

A running row records the Temporal run id and the attempt that own it; every later write
for that stage is fenced on both, so a late write from a lost owner (a timed-out attempt
that kept running) is refused instead of applied. Each transition appends its event in
the same transaction; every time it stamps is its transaction's clock (``WriteTx.now``).
Every statement keeps to the store's tenant (``k_tenant``: ``tenancy.tenant_of(conn)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import (
    AUTOMATION_PAUSED,
    CANCELED,
    JOB_HIDDEN,
    MISSING_INPUT,
    OWNERSHIP_LOST,
    POSTING_UNAVAILABLE,
    STAGE_BUSY,
    STAGE_INTERRUPTED,
    NotFoundError,
    StageError,
)
from jobctrl.domain.events import (
    StageFailed,
    StageReset,
    StageSkipped,
    StagesPending,
    StageStarted,
    StageSucceeded,
)
from jobctrl.domain.public_fetch import UnsafeAddressError
from jobctrl.domain.recovery import retryable_code
from jobctrl.domain.stages import LATER_STAGES, STAGE_ORDER, StageState
from jobctrl.store import closed_runs, public_fetch, recovery_admission, schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.hidden import hidden_in
from jobctrl.store.store import Store, WriteTx

S = schema.job_stage_states

# The statements every attempt runs, built once (building one costs several times what
# SQLite takes to run it). Keys are prefixed: an UPDATE's SET takes the column names.
# Every lookup here is by job id: ``keyed`` so SQLite takes the key, not a tenant-wide index.
_MINE = tenancy.keyed(S, bindparam("k_tenant"))
_ROW = select(S).where(S.c.job_id == bindparam("k_job"), S.c.stage == bindparam("k_stage"), _MINE)
_COLUMNS = frozenset(S.c.keys())
_ROWS_OF_JOB = select(S).where(S.c.job_id == bindparam("k_job"), _MINE)
_UPDATE_ROW = update(S).where(
    S.c.job_id == bindparam("k_job"), S.c.stage == bindparam("k_stage"), _MINE
)
_UPDATE_OWNED = update(S).where(
    _MINE,
    S.c.job_id == bindparam("k_job"),
    S.c.stage == bindparam("k_stage"),
    S.c.owner_run_id == bindparam("k_run"),
    S.c.attempts == bindparam("k_attempt"),
    S.c.state == StageState.RUNNING.value,
)
_AVAILABILITY = select(schema.jobs.c.availability).where(
    schema.jobs.c.id == bindparam("k_job"), schema.jobs.c.tenant_id == bindparam("k_tenant")
)


@dataclass(frozen=True)
class Claim:
    """The outcome of claiming a stage: the attempt that now owns it, or that it is done."""

    attempt: int
    already: StageState | None = None  # SUCCEEDED/SKIPPED when an earlier attempt finished it
    # The run of the attempt just before this one when that attempt ended without a result
    # of its own (failed ``STAGE_INTERRUPTED``, or still ``running``) under another run: its
    # paid answer, if one was stored, is still an answer to this step (never set after a
    # refusal, an invalid answer or a cancel, nor for an earlier attempt of the same run).
    interrupted_run: str | None = None


_NOT_THE_ANSWER = frozenset({STAGE_INTERRUPTED, AUTOMATION_PAUSED, CANCELED})


def _interrupted_run(row: Any, run_id: str) -> str | None:
    owner = row["owner_run_id"]
    if owner is None or owner == run_id:
        return None
    state = row["state"]
    if state == StageState.RUNNING.value:
        return str(owner)
    # Ended by no fault of its answer: the worker died, a stop-loss pause refused the row
    # while an attempt Temporal had timed out was still being answered, or the person
    # cancelled. What such a run paid for is reused, never asked again.
    if state == StageState.FAILED.value and row["error_code"] in _NOT_THE_ANSWER:
        return str(owner)
    return None


def posting_closed_in(conn: Connection, job_id: str) -> bool:
    """True when the latest availability check confirmed the job's posting is closed."""
    params = {"k_job": job_id, "k_tenant": tenancy.tenant_of(conn)}
    state = conn.execute(_AVAILABILITY, params).scalar()
    return state == Availability.UNAVAILABLE


def materials_being_written(conn: Connection, job_ids: list[str]) -> set[str]:
    """Those of ``job_ids`` with a Tailor, Cover or PDF pending or running."""
    return set(
        conn.execute(
            select(S.c.job_id).where(
                tenancy.scoped(S, conn),
                S.c.job_id.in_(job_ids),
                S.c.stage.in_([s.value for s in LATER_STAGES]),
                S.c.state.in_([StageState.PENDING.value, StageState.RUNNING.value]),
            )
        ).scalars()
    )


def _still_reserved(row: Any, cohort: str) -> bool:
    """The row is the cohort's and still one recovery may run (a failure it retries, or
    pending): whatever else happened to it meanwhile, its member leaves it alone."""
    if row["reserved_by"] != cohort:
        return False
    if row["state"] == StageState.FAILED.value:
        return retryable_code(row["error_code"], row["retryable"])
    return bool(row["state"] == StageState.PENDING.value)


def claim_stage(
    store: Store, job_id: str, stage: str, run_id: str, *, clock: Clock | None = None
) -> Claim:
    """Make ``run_id`` the owner of ``stage`` for a new attempt (unless already finished).

    Reservations (automatic recovery's frozen cohorts): a recovery execution claims only
    the rows its cohort still holds (``OWNERSHIP_LOST`` when a person's cancel, retry or
    reset took one back), and its claim counts one automatic attempt. Any claim ends the
    row's reservation: work a person or a preparation started takes the row over, and
    the cohort's member then finds it gone and skips it.

    A run the store already records closed claims nothing (``OWNERSHIP_LOST``): an
    attempt Temporal timed out can still be running in its thread after its execution's
    finish settled the rows, and a row claimed then would stay running with no owner."""
    with store.write(clock=clock) as tx:
        key = {"k_job": job_id, "k_stage": stage, "k_tenant": tx.tenant}
        row = tx.conn.execute(_ROW, key).mappings().first()
        if row is None:
            raise NotFoundError(f"job {job_id} has no {stage} stage", code=MISSING_INPUT)
        run = closed_runs.run_facts(tx.conn, job_id, run_id)
        if run.closed is not None:
            # A late attempt (timed out, its execution ended since): nothing would settle it.
            raise StageError(OWNERSHIP_LOST, f"run {run_id} has ended; {stage} was not claimed")
        cohort = run.cohort
        if cohort is not None and not _still_reserved(row, cohort):
            raise StageError(
                OWNERSHIP_LOST, f"{stage} of job {job_id} is no longer reserved for {cohort}"
            )
        state = StageState(row["state"])
        if state in (StageState.SUCCEEDED, StageState.SKIPPED):
            return Claim(attempt=row["attempts"], already=state)
        if state == StageState.FAILED and not row["retryable"] and row["owner_run_id"] == run_id:
            # An attempt Temporal had timed out finished after all, failing for good (a
            # 401, say), while the next attempt of this run was already scheduled: that one
            # ends the same way, without doing the work (and paying) again.
            code = str(row["error_code"])
            raise StageError(code, f"{stage} of job {job_id} already failed in this run: {code}")
        if cohort is not None and recovery_admission.declined(tx.conn, job_id, stage):
            # The person abandoned the job's application: no automatic Tailor/Cover.
            recovery_admission.decline_stage(tx, job_id, stage, cohort)
            return Claim(attempt=row["attempts"], already=StageState.SKIPPED)
        auto_attempts = row["auto_attempts"] + (1 if cohort is not None else 0)
        if posting_closed_in(tx.conn, job_id):  # not prepared any further
            skip_stage(tx, job_id, stage, POSTING_UNAVAILABLE)
            return Claim(attempt=row["attempts"], already=StageState.SKIPPED)
        if hidden_in(tx.conn, job_id) is not None:  # the person is not interested
            skip_stage(tx, job_id, stage, JOB_HIDDEN)
            return Claim(attempt=row["attempts"], already=StageState.SKIPPED)
        attempt = row["attempts"] + 1
        interrupted = _interrupted_run(row, run_id)
        tx.conn.execute(
            _UPDATE_ROW,
            {
                **key,
                "state": StageState.RUNNING.value,
                "attempts": attempt,
                "auto_attempts": auto_attempts,
                "reserved_by": None,
                "owner_run_id": run_id,
                "error_code": None,
                "error_message": None,
                "retryable": None,
                "next_attempt_at": None,
                "started_at": tx.now,
                "finished_at": None,
                "updated_at": tx.now,
            },
        )
        tx.append(
            StageStarted(job_id=job_id, stage=stage, attempt=attempt, run_id=run_id),
            key=f"stage-started:{job_id}:{stage}:{run_id}:{attempt}",
        )
    return Claim(attempt=attempt, interrupted_run=interrupted)


def _fenced(tx: WriteTx, job_id: str, stage: str, run_id: str, attempt: int, **values: Any) -> None:
    # A prebuilt UPDATE's SET is its parameters' keys; one naming no column would be ignored.
    if not _COLUMNS.issuperset(values):
        raise ValueError(f"not columns of {S.name}: {sorted(set(values) - _COLUMNS)}")
    result = tx.conn.execute(
        _UPDATE_OWNED,
        {
            "k_job": job_id,
            "k_stage": stage,
            "k_run": run_id,
            "k_attempt": attempt,
            "k_tenant": tx.tenant,
            "updated_at": tx.now,
            "finished_at": tx.now,
            **values,
        },
    )
    if result.rowcount != 1:
        raise StageError(
            OWNERSHIP_LOST,
            f"{stage} attempt {attempt} no longer owns job {job_id}; its result was not saved",
        )


def succeed_stage(tx: WriteTx, job_id: str, stage: str, run_id: str, attempt: int) -> None:
    """Mark the owned attempt succeeded inside the caller's transaction (with its results)."""
    _fenced(tx, job_id, stage, run_id, attempt, state=StageState.SUCCEEDED.value, error_code=None)
    tx.append(
        StageSucceeded(job_id=job_id, stage=stage, attempt=attempt, run_id=run_id),
        key=f"stage-succeeded:{job_id}:{stage}:{run_id}:{attempt}",
    )


def fail_stage(
    store: Store,
    job_id: str,
    stage: str,
    run_id: str,
    attempt: int,
    error: StageError,
    *,
    next_attempt_at: datetime | None = None,
    clock: Clock | None = None,
    findings: int | None = None,
    also: Callable[[WriteTx], None] | None = None,
) -> None:
    """Mark the owned attempt failed with ``error``. ``findings`` (a refused truth check's
    count) goes into the event; ``also`` writes what the failure keeps besides (the
    check's findings) in the same transaction, after the ownership fence."""
    attempts = attempt if error.uses_attempt else attempt - 1
    with store.write(clock=clock) as tx:
        _fenced(
            tx,
            job_id,
            stage,
            run_id,
            attempt,
            state=StageState.FAILED.value,
            attempts=attempts,
            error_code=error.code,
            error_message=error.message,
            retryable=error.retryable,
            next_attempt_at=next_attempt_at,
        )
        tx.append(
            StageFailed(
                job_id=job_id,
                stage=stage,
                attempt=attempt,
                run_id=run_id,
                error_code=error.code,
                retryable=error.retryable,
                attempts_used=attempts,
                findings=findings,
            ),
            key=f"stage-failed:{job_id}:{stage}:{run_id}:{attempt}",
        )
        if isinstance(error, UnsafeAddressError):  # its typed evidence, for the recheck
            public_fetch.record_refusal(
                tx, job_id, stage, run_id, attempt, error.reason, error.host
            )
        if also is not None:
            also(tx)


def schedule_retry(store: Store, job_id: str, stage: str, run_id: str, when: datetime) -> None:
    """Note the next automatic attempt on a failed stage this run still owns."""
    with store.write() as tx:
        tx.conn.execute(
            update(S)
            .where(
                S.c.job_id == job_id,
                S.c.stage == stage,
                S.c.owner_run_id == run_id,
                S.c.state == StageState.FAILED.value,
                tenancy.keyed(S, tx.tenant),
            )
            .values(next_attempt_at=when)
        )


def ensure_stages(tx: WriteTx, job_id: str, stages: Iterable[str]) -> None:
    """Create pending rows for ``stages`` that the job does not have yet."""
    for stage in stages:
        upsert(
            tx.conn,
            S,
            {
                "job_id": job_id,
                "stage": str(stage),
                "state": StageState.PENDING.value,
                "attempts": 0,
                "created_at": tx.now,
                "updated_at": tx.now,
                "tenant_id": tx.tenant,
            },
            keys=["job_id", "stage"],
        )


def _not_started(tx: WriteTx, job_id: str, stages: Iterable[str]) -> list[str]:
    """Those of ``stages`` that have not run yet (rows created pending for the new ones),
    in the order given."""
    wanted = [str(stage) for stage in stages]
    ensure_stages(tx, job_id, wanted)
    pending = set(
        tx.conn.execute(
            select(S.c.stage).where(
                S.c.job_id == job_id,
                S.c.stage.in_(wanted),
                S.c.state == StageState.PENDING.value,
                tenancy.keyed(S, tx.tenant),
            )
        ).scalars()
    )
    return [stage for stage in wanted if stage in pending]


def await_stages(tx: WriteTx, job_id: str, stages: Iterable[str], *, key: str) -> list[str]:
    """Create pending rows for ``stages`` the job lacks and announce every one of them
    that is pending now in one ``StagesPending`` event (keyed ``key``): a row nobody has
    started has no other event, and the job list must not call the job finished while it
    waits. Rows that ran keep their state and are not announced. The stages announced."""
    waiting = _not_started(tx, job_id, stages)
    if waiting:
        tx.append(StagesPending(job_id=job_id, stages=waiting), key=key)
    return waiting


def reset_stages(
    store: Store, job_id: str, stages: tuple[str, ...], reason: str, *, clock: Clock | None = None
) -> None:
    """Put finished ``stages`` back to pending (attempts kept); refused while one runs."""
    with store.write(clock=clock) as tx:
        reset_in(tx, job_id, stages, reason)


def reset_in(tx: WriteTx, job_id: str, stages: tuple[str, ...], reason: str) -> None:
    """``reset_stages`` inside the caller's transaction."""
    rows = {
        r.stage: r.state
        for r in tx.conn.execute(
            select(S.c.stage, S.c.state).where(S.c.job_id == job_id, tenancy.keyed(S, tx.tenant))
        )
    }
    busy = [s for s in stages if rows.get(s) == StageState.RUNNING.value]
    if busy:
        raise StageError(STAGE_BUSY, f"{busy[0]} is running for job {job_id}; try later")
    for stage in stages:
        upsert(
            tx.conn,
            S,
            {
                "job_id": job_id,
                "stage": stage,
                "state": StageState.PENDING.value,
                "attempts": 0,
                "reserved_by": None,  # a person's reset takes the row from recovery
                "created_at": tx.now,
                "updated_at": tx.now,
                "tenant_id": tx.tenant,
            },
            keys=["job_id", "stage"],
            update=["state", "reserved_by", "updated_at"],
        )
        tx.append(
            StageReset(job_id=job_id, stage=stage, reason=reason),
            key=f"stage-reset:{job_id}:{stage}:{tx.now.isoformat()}",
        )


def skip_pending(
    tx: WriteTx, job_id: str, stages: Iterable[str], reason: str, *, occasion: str = ""
) -> None:
    """Skip those of ``stages`` that have not run yet (new or pending); a stage that ran
    keeps its result."""
    for stage in _not_started(tx, job_id, stages):
        skip_stage(tx, job_id, stage, reason, occasion=occasion)


def revive_skipped(tx: WriteTx, job_id: str, stages: Iterable[str], reason: str) -> list[str]:
    """Put those of ``stages`` skipped for ``reason`` back to pending (attempts kept): a
    rescore that reaches ``min_fit_score`` revives what the earlier score skipped
    (``MIN_SCORE``). The caller announces them (``await_stages``) or skips them again.
    The stages revived."""
    wanted = [str(stage) for stage in stages]
    skipped = set(
        tx.conn.execute(
            select(S.c.stage).where(
                S.c.job_id == job_id,
                S.c.stage.in_(wanted),
                S.c.state == StageState.SKIPPED.value,
                S.c.error_code == reason,
                tenancy.keyed(S, tx.tenant),
            )
        ).scalars()
    )
    revived = [stage for stage in wanted if stage in skipped]
    if revived:
        tx.conn.execute(
            update(S)
            .where(S.c.job_id == job_id, S.c.stage.in_(revived), tenancy.keyed(S, tx.tenant))
            .values(
                state=StageState.PENDING.value,
                error_code=None,
                error_message=None,
                retryable=None,
                finished_at=None,
                updated_at=tx.now,
            )
        )
    return revived


def skip_stage(tx: WriteTx, job_id: str, stage: str, reason: str, *, occasion: str = "") -> None:
    """Record ``stage`` as skipped for ``reason`` (e.g. MIN_SCORE), creating its row if new.
    ``occasion`` (a run and attempt) makes the event a new one when a stage is skipped
    again for the same reason after it ran or waited meanwhile (a rescore)."""
    values = {
        "state": StageState.SKIPPED.value,
        "reserved_by": None,
        "error_code": reason,
        "error_message": None,
        "retryable": False,
        "finished_at": tx.now,
        "updated_at": tx.now,
    }
    upsert(
        tx.conn,
        S,
        {
            "job_id": job_id,
            "stage": stage,
            "attempts": 0,
            "created_at": tx.now,
            "tenant_id": tx.tenant,
            **values,
        },
        keys=["job_id", "stage"],
        update=list(values),
    )
    tx.append(
        StageSkipped(job_id=job_id, stage=stage, reason=reason),
        key=f"stage-skipped:{job_id}:{stage}:{reason}" + (f":{occasion}" if occasion else ""),
    )


# -- reads ---------------------------------------------------------------------------------


def read_rows(conn: Connection, job_id: str) -> list[dict[str, Any]]:
    """The job's stage rows in pipeline order, on an open connection."""
    params = {"k_job": job_id, "k_tenant": tenancy.tenant_of(conn)}
    rows = [dict(r) for r in conn.execute(_ROWS_OF_JOB, params).mappings()]
    return sorted(rows, key=lambda r: STAGE_ORDER.get(r["stage"], len(STAGE_ORDER)))


def stage_rows(store: Store, job_id: str) -> list[dict[str, Any]]:
    """The job's stage rows in pipeline order."""
    with store.read() as conn:
        return read_rows(conn, job_id)
