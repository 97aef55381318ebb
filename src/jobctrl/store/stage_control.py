"""The person's controls over one job's stages, and the gate every stage attempt passes.

- ``cancel_job``: the job's unfinished stage rows end ``failed`` with code ``canceled``
  (not retryable, so automatic recovery never picks them), their reservations cleared,
  a stop request recorded for each running preparation execution (the heartbeat
  re-issues it until Temporal reports the execution closed), and the job's unstarted
  start intent settled: all in one transaction with the ``StageFailed`` events.
  Succeeded and skipped stages, materials and scores are never touched.
- ``reset_job_stage``: a stage and the later ones back to pending, refused while it or a
  later stage runs (``StageReset``, reason ``reset``), reservations cleared; nothing in
  Temporal changes.
- ``gate``: what a stage attempt must know before any provider call or fetch: whether
  its execution was asked to stop, whether its lane is paused, and the lane's streak.
- ``refuse_paused``: a stage refused because its lane is paused ends ``failed`` with
  ``automation_paused`` (retryable, no attempt used) in one write.

Every statement keeps to the store's tenant.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, bindparam, select, update

from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import (
    AUTOMATION_PAUSED,
    CANCELED,
    COVER_ON_REQUEST,
    STAGE_BUSY,
    StageError,
)
from jobctrl.domain.events import StageFailed, StageReset
from jobctrl.domain.stages import STAGE_ORDER, StageState
from jobctrl.domain.stop_loss import LANE, LANES
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.operations_tables import stop_loss, stop_requests
from jobctrl.store.store import Store, WriteTx

S = schema.job_stage_states
SI = schema.start_intents
JOB_CANCEL = "job_cancel"
# A person stopped a Discover run: it starts no more preparations; with its preparations,
# any it started meanwhile are cancelled too (the run's own activity sees the request).
DISCOVERY_STOP = "discovery_stop"
DISCOVERY_STOP_PREPARATIONS = "discovery_stop_preparations"
# Stops the workflow honours itself (its results kept): re-issued, never terminated.
COOPERATIVE_STOPS = frozenset({JOB_CANCEL, DISCOVERY_STOP, DISCOVERY_STOP_PREPARATIONS})
CANCELED_MESSAGE = "the person cancelled this job's preparation; `jobctrl retry` starts it again"


def request_stop_in(tx: WriteTx, workflow_id: str, run_id: str, reason: str) -> None:
    """Record that this exact execution is to stop (once: a second request keeps the
    first one's time and count)."""
    upsert(
        tx.conn,
        stop_requests,
        {
            "workflow_id": workflow_id,
            "run_id": run_id,
            "reason": reason,
            "requested_at": tx.now,
            "tenant_id": tx.tenant,
        },
        keys=["workflow_id", "run_id"],
    )


def request_discovery_stop(
    store: Store,
    workflow_id: str,
    run_id: str,
    *,
    with_preparations: bool,
    clock: Clock | None = None,
) -> None:
    """Record that this Discover execution is to stop; ``with_preparations`` upgrades an
    earlier plain stop (the preparations it starts meanwhile are cancelled as well)."""
    reason = DISCOVERY_STOP_PREPARATIONS if with_preparations else DISCOVERY_STOP
    with store.write(clock=clock) as tx:
        request_stop_in(tx, workflow_id, run_id, reason)
        if with_preparations:
            tx.conn.execute(
                update(stop_requests)
                .where(
                    stop_requests.c.workflow_id == workflow_id,
                    stop_requests.c.run_id == run_id,
                    tenancy.scoped(stop_requests, tx.conn),
                )
                .values(reason=reason)
            )


def stop_reason(store: Store, workflow_id: str, run_id: str) -> str | None:
    """Why this exact execution was asked to stop (None: it was not)."""
    with store.read() as conn:
        run = {"workflow_id": workflow_id, "run_id": run_id, "k_tenant": tenancy.tenant_of(conn)}
        row = conn.execute(_STOP_REQUESTED, run).first()
    return None if row is None else str(row[0])


def _unfinished(row: dict[str, object]) -> bool:
    """Pending, running, or failed in a way automatic recovery would retry."""
    state = row["state"]
    if state in (StageState.PENDING.value, StageState.RUNNING.value):
        return True
    return state == StageState.FAILED.value and bool(row["retryable"])


def fail_row_in(
    tx: WriteTx,
    job_id: str,
    stage: str,
    *,
    run_id: str,
    attempt: int,
    code: str,
    message: str,
    retryable: bool,
    key: str,
    where: tuple[Any, ...] = (),
    **values: Any,
) -> bool:
    """End one stage row failed with ``code`` and its ``StageFailed`` event (keyed
    ``key``), outside an owned attempt's fence: a cancel, a stop-loss refusal, a run that
    closed without settling it. ``where`` narrows the update (its owner, state…);
    ``values`` are more columns to set. False when ``where`` matched nothing."""
    result = tx.conn.execute(
        update(S)
        .where(S.c.job_id == job_id, S.c.stage == stage, tenancy.keyed(S, tx.tenant), *where)
        .values(
            state=StageState.FAILED.value,
            error_code=code,
            error_message=message,
            retryable=retryable,
            next_attempt_at=None,
            finished_at=tx.now,
            updated_at=tx.now,
            **values,
        )
    )
    if result.rowcount != 1:
        return False
    tx.append(
        StageFailed(
            job_id=job_id,
            stage=stage,
            attempt=attempt,
            run_id=run_id,
            error_code=code,
            retryable=retryable,
            attempts_used=attempt,
        ),
        key=key,
    )
    return True


def cancel_job(
    store: Store,
    job_id: str,
    runs: Iterable[tuple[str, str]],
    *,
    clock: Clock | None = None,
) -> list[str]:
    """Cancel the job's unfinished stages and request its ``runs`` (workflow id, run id)
    to stop; the stages cancelled, in pipeline order."""
    with store.write(clock=clock) as tx:
        for workflow_id, run_id in runs:
            request_stop_in(tx, workflow_id, run_id, JOB_CANCEL)
        mine = tenancy.keyed(S, tx.tenant)
        rows = [
            dict(r) for r in tx.conn.execute(select(S).where(S.c.job_id == job_id, mine)).mappings()
        ]
        rows.sort(key=lambda r: STAGE_ORDER.get(str(r["stage"]), len(STAGE_ORDER)))
        canceled: list[str] = []
        for row in rows:
            if not _unfinished(row):
                continue
            stage = str(row["stage"])
            attempts = int(row["attempts"])
            # The fence of a late result (stage_states._fenced) requires state running:
            # once this row is failed, an attempt still running cannot write it back.
            fail_row_in(
                tx,
                job_id,
                stage,
                run_id=str(row["owner_run_id"] or ""),
                attempt=attempts,
                code=CANCELED,
                message=CANCELED_MESSAGE,
                retryable=False,
                key=f"stage-canceled:{job_id}:{stage}:{tx.now.isoformat()}",
                reserved_by=None,
            )
            canceled.append(stage)
        tx.conn.execute(
            update(S)
            .where(S.c.job_id == job_id, S.c.reserved_by.is_not(None), mine)
            .values(reserved_by=None)
        )
        # An intent `add` left unstarted would be started by the worker's reconciler:
        # settled here, it never is (a later `jobctrl retry` starts the job again).
        tx.conn.execute(
            update(SI)
            .where(SI.c.job_id == job_id, SI.c.started_at.is_(None), tenancy.scoped(SI, tx.conn))
            .values(started_at=tx.now)
        )
    return canceled


def reset_job_stage(
    store: Store, job_id: str, stage: str, *, clock: Clock | None = None
) -> list[str]:
    """Put ``stage`` back to pending with the later stages (refused with ``STAGE_BUSY``
    while it or a later stage runs); the stages reset."""
    with store.write(clock=clock) as tx:
        found = tx.conn.execute(
            select(S.c.stage, S.c.state, S.c.error_code).where(
                S.c.job_id == job_id, tenancy.keyed(S, tx.tenant)
            )
        ).all()
        rows = {str(r.stage): str(r.state) for r in found}
        # A letter left for the person to ask for stays so, unless Cover itself is reset.
        on_request = {str(r.stage) for r in found if r.error_code == COVER_ON_REQUEST}
        order = STAGE_ORDER[stage]
        # A later stage running works from this one's result: resetting it under that
        # stage would leave the later result built on what the reset threw away.
        busy = sorted(
            (s for s, state in rows.items() if state == StageState.RUNNING.value and s in LANES),
            key=STAGE_ORDER.__getitem__,
        )
        busy = [s for s in busy if STAGE_ORDER[s] >= order]
        if busy:
            raise StageError(
                STAGE_BUSY,
                f"{busy[0]} is running for job {job_id}; cancel it first or try later",
            )
        wanted = [
            s
            for s, state in rows.items()
            if STAGE_ORDER.get(s, -1) >= order
            and s in LANES
            and (s == stage or (state != StageState.PENDING.value and s not in on_request))
        ]
        wanted.sort(key=STAGE_ORDER.__getitem__)
        for name in wanted:
            reset_row_in(
                tx,
                job_id,
                name,
                reason="reset",
                key=f"stage-reset:{job_id}:{name}:{tx.now.isoformat()}",
            )
    return wanted


def reset_row_in(tx: WriteTx, job_id: str, stage: str, *, reason: str, key: str) -> None:
    """Put one stage row back to pending (attempts kept, no reservation) with its
    ``StageReset`` event (keyed ``key``): a person's reset, a resolved public-fetch
    recheck."""
    tx.conn.execute(
        update(S)
        .where(S.c.job_id == job_id, S.c.stage == stage, tenancy.keyed(S, tx.tenant))
        .values(
            state=StageState.PENDING.value,
            error_code=None,
            error_message=None,
            retryable=None,
            next_attempt_at=None,
            reserved_by=None,
            finished_at=None,
            updated_at=tx.now,
        )
    )
    tx.append(StageReset(job_id=job_id, stage=stage, reason=reason), key=key)


@dataclass(frozen=True)
class Gate:
    """What a stage attempt reads before it works: its execution was asked to stop; the
    code its lane is paused with; the lane's current failure streak."""

    stopped: bool
    paused: str | None
    streak: int


_STOP_REQUESTED = (
    select(stop_requests.c.reason)
    .where(
        stop_requests.c.workflow_id == bindparam("workflow_id"),
        stop_requests.c.run_id == bindparam("run_id"),
        stop_requests.c.tenant_id == bindparam("k_tenant"),
    )
    .limit(1)
)
_LANE_WINDOW = select(stop_loss.c.paused_code, stop_loss.c.streak).where(
    and_(
        stop_loss.c.kind == LANE,
        stop_loss.c.name == bindparam("lane"),
        stop_loss.c.tenant_id == bindparam("k_tenant"),
    )
)


def gate(store: Store, lane: str, workflow_id: str, run_id: str) -> Gate:
    """One read for the three facts of ``Gate`` (its statements built once: every stage
    attempt reads it)."""
    with store.read() as conn:
        tenant = tenancy.tenant_of(conn)
        run = {"workflow_id": workflow_id, "run_id": run_id, "k_tenant": tenant}
        stopped = conn.execute(_STOP_REQUESTED, run).first() is not None
        row = conn.execute(_LANE_WINDOW, {"lane": lane, "k_tenant": tenant}).first()
    if row is None:
        return Gate(stopped, None, 0)
    return Gate(stopped, row[0], int(row[1] or 0))


def refuse_paused(
    store: Store, job_id: str, stage: str, run_id: str, code: str, *, clock: Clock | None = None
) -> bool:
    """End the job's ``stage`` failed with ``automation_paused`` (retryable, attempts
    unchanged) unless it is finished or another execution runs it; True when it was
    refused. A row still running under ``run_id`` is refused too: it is an earlier attempt
    of this execution that Temporal gave up on (timed out mid-call), whose outcome was
    never noted, and this attempt would otherwise take it over and call the provider."""
    with store.write(clock=clock) as tx:
        row = (
            tx.conn.execute(
                select(S).where(
                    S.c.job_id == job_id, S.c.stage == stage, tenancy.keyed(S, tx.tenant)
                )
            )
            .mappings()
            .first()
        )
        if row is None:
            return False
        ours = row["state"] == StageState.RUNNING.value and row["owner_run_id"] == run_id
        if not ours and row["state"] not in (StageState.PENDING.value, StageState.FAILED.value):
            return False
        if row["state"] == StageState.FAILED.value and (
            not row["retryable"] or row["error_code"] == CANCELED
        ):
            return False  # cancelled or failed for good: a pause must not make it retryable
        fail_row_in(
            tx,
            job_id,
            stage,
            run_id=run_id,
            attempt=int(row["attempts"]),
            code=AUTOMATION_PAUSED,
            message=f"the {stage} lane is paused by stop-loss ({code}): `jobctrl resume {stage}`",
            retryable=True,
            key=f"stage-paused:{job_id}:{stage}:{run_id}:{tx.now.isoformat()}",
            where=(S.c.state == row["state"],),
            owner_run_id=run_id,
        )
    return True
