"""Desired against observed executions (issue 13, the adoption ADR): what the store expects
Temporal to be running, the executions it runs that nobody expects (``orphan_executions``,
replaced as a set on each heartbeat) and stop requests (``stop_requests``), which the
heartbeat re-issues a bounded number of times until Temporal reports the execution closed
(terminating it at the last step), recording how each ended (``StopOutcome``).

All of it is the store's tenant's: the runs it expects, its orphans (the executions of its
workflow ids; one jobctrl did not make is local's, the operator's) and its stop requests.
The heartbeat partitions what Temporal lists by ``ids.tenant_of`` and calls these per tenant.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import delete, null, or_, select, union_all, update

from jobctrl.domain.clock import utcnow
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.store import operations_tables as ops
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.store import Store

OE = ops.orphan_executions
SR = ops.stop_requests
WR = schema.workflow_run_projections
DR = schema.discovery_runs
OPEN = (WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value)
# A run whose finish was recorded a moment ago may still be closing in Temporal.
CLOSING_GRACE = timedelta(minutes=2)


class StopOutcome(StrEnum):
    """How a stop request ended (``stop_requests.outcome``; NULL while pending)."""

    CLOSED = "closed"  # Temporal reported it closed (the cancel was honoured, or it ended)
    TERMINATED = "terminated"  # the cancels were not honoured: terminated, then seen closed
    GAVE_UP = "gave_up"  # still running after every step: the person must stop it
    NOT_FOUND = "not_found"  # Temporal has no such run: nothing was seen closed


@dataclass(frozen=True)
class Expected:
    """What the store expects to run: exact executions, and workflow ids (frozen recovery
    cohorts) whose run id it may not know yet."""

    runs: frozenset[tuple[str, str]]
    ids: frozenset[str]


def expected(store: Store, now: datetime) -> Expected:
    """Open run rows (and ones closed within ``CLOSING_GRACE``), open discovery runs and
    recovery cohorts reserved or started."""
    rc = ops.recovery_cohorts
    with store.read() as conn:  # one statement: the heartbeat asks it of each active tenant
        rows = conn.execute(
            union_all(
                select(WR.c.workflow_id, WR.c.run_id).where(
                    tenancy.scoped(WR, conn),
                    or_(WR.c.status.in_(OPEN), WR.c.closed_at >= now - CLOSING_GRACE),
                ),
                select(DR.c.workflow_id, DR.c.run_id).where(
                    tenancy.scoped(DR, conn), DR.c.status.in_(OPEN)
                ),
                select(rc.c.workflow_id, null()).where(  # a cohort: its id, no run
                    tenancy.scoped(rc, conn), rc.c.state.in_(("reserved", "started"))
                ),
            )
        ).all()
    runs = frozenset((str(w), str(r)) for w, r in rows if r is not None)
    return Expected(runs, frozenset(str(w) for w, r in rows if r is None))


@dataclass(frozen=True)
class Observed:
    """An execution Temporal lists as running on this home's task queue."""

    workflow_id: str
    run_id: str
    workflow_type: str
    started_at: datetime | None


def replace_orphans(store: Store, found: Iterable[Observed], now: datetime) -> None:
    """The store's tenant's orphans are now exactly ``found`` (each keeps when it was
    first seen); another tenant's are left as they are."""
    found = list(found)
    keys = {(o.workflow_id, o.run_id) for o in found}
    if not found:  # the usual beat: take the one writer's lock only if a row must go
        with store.read() as conn:
            if conn.execute(select(OE.c.run_id).where(tenancy.scoped(OE, conn))).first() is None:
                return
    with store.write() as tx:
        ours = OE.c.tenant_id == tx.tenant
        known = tx.conn.execute(select(OE.c.workflow_id, OE.c.run_id).where(ours)).all()
        for workflow_id, run_id in known:
            if (workflow_id, run_id) not in keys:
                tx.conn.execute(
                    delete(OE).where(ours, OE.c.workflow_id == workflow_id, OE.c.run_id == run_id)
                )
        for o in found:
            upsert(
                tx.conn,
                OE,
                {
                    "tenant_id": tx.tenant,
                    "workflow_id": o.workflow_id,
                    "run_id": o.run_id,
                    "workflow_type": o.workflow_type,
                    "started_at": o.started_at,
                    "first_seen_at": now,
                    "last_seen_at": now,
                },
                keys=["workflow_id", "run_id"],
                update=["last_seen_at"],
            )


@dataclass(frozen=True)
class Orphan:
    """An execution Temporal ran at the last heartbeat that the store does not expect."""

    workflow_id: str
    run_id: str
    workflow_type: str
    started_at: datetime | None
    last_seen_at: datetime


def orphans(store: Store) -> list[Orphan]:
    """The executions Temporal ran at the last heartbeat that the store does not expect,
    oldest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(OE)
            .where(tenancy.scoped(OE, conn))
            .order_by(OE.c.first_seen_at, OE.c.workflow_id)
        ).mappings()
        return [
            Orphan(
                workflow_id=r["workflow_id"],
                run_id=r["run_id"],
                workflow_type=r["workflow_type"],
                started_at=r["started_at"],
                last_seen_at=r["last_seen_at"],
            )
            for r in rows
        ]


# -- stop requests ---------------------------------------------------------------------------


def request_stop(
    store: Store, workflow_id: str, run_id: str, reason: str, *, now: datetime | None = None
) -> None:
    """The person (or a command) wants that exact execution stopped: the heartbeat asks
    Temporal to cancel it until it is seen closed (a request made again starts afresh)."""
    now = now or utcnow()
    values = {
        "reason": reason,
        "requested_at": now,
        "issued": 0,
        "last_issued_at": None,
        "observed_closed_at": None,
        "gave_up_at": None,
        "outcome": None,
    }
    with store.write() as tx:
        upsert(
            tx.conn,
            SR,
            {"tenant_id": tx.tenant, "workflow_id": workflow_id, "run_id": run_id, **values},
            keys=["workflow_id", "run_id"],
            update=list(values),
        )


def pending_stops(store: Store) -> list[dict[str, Any]]:
    """Stop requests not yet seen through (not observed closed, not given up), oldest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(SR)
            .where(
                tenancy.scoped(SR, conn),
                SR.c.observed_closed_at.is_(None),
                SR.c.gave_up_at.is_(None),
            )
            .order_by(SR.c.requested_at)
        ).mappings()
        return [dict(r) for r in rows]


@dataclass(frozen=True)
class StopRequest:
    """A stop request and how far it got (``outcome``: a ``StopOutcome``, or None while
    pending)."""

    workflow_id: str
    run_id: str
    reason: str
    requested_at: datetime
    issued: int
    last_issued_at: datetime | None
    observed_closed_at: datetime | None
    gave_up_at: datetime | None
    outcome: str | None


def stop_requests(store: Store, limit: int = 100) -> list[StopRequest]:
    """The newest stop requests, newest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(SR)
            .where(tenancy.scoped(SR, conn))
            .order_by(SR.c.requested_at.desc())
            .limit(limit)
        ).mappings()
        return [
            StopRequest(
                workflow_id=r["workflow_id"],
                run_id=r["run_id"],
                reason=r["reason"],
                requested_at=r["requested_at"],
                issued=r["issued"],
                last_issued_at=r["last_issued_at"],
                observed_closed_at=r["observed_closed_at"],
                gave_up_at=r["gave_up_at"],
                outcome=r["outcome"],
            )
            for r in rows
        ]


def note_stop(
    store: Store,
    workflow_id: str,
    run_id: str,
    now: datetime,
    *,
    issued: bool = False,
    closed: bool = False,
    gave_up: bool = False,
    outcome: StopOutcome | None = None,
) -> None:
    """What the heartbeat did with a stop request: issued the cancel once more, or saw it
    through with ``outcome``: seen closed (``CLOSED``, ``TERMINATED``: when it was
    observed closed) or not (``GAVE_UP``, ``NOT_FOUND``: when it stopped pursuing it).
    ``closed`` and ``gave_up`` are short for ``CLOSED`` and ``GAVE_UP``."""
    if outcome is None and (closed or gave_up):
        outcome = StopOutcome.CLOSED if closed else StopOutcome.GAVE_UP
    values: dict[str, Any] = {}
    if issued:
        values.update(issued=SR.c.issued + 1, last_issued_at=now)
    if outcome in (StopOutcome.CLOSED, StopOutcome.TERMINATED):
        values.update(observed_closed_at=now, outcome=outcome.value)
    elif outcome is not None:
        values.update(gave_up_at=now, outcome=outcome.value)
    with store.write() as tx:
        tx.conn.execute(
            update(SR)
            .where(
                SR.c.tenant_id == tx.tenant, SR.c.workflow_id == workflow_id, SR.c.run_id == run_id
            )
            .values(values)
        )
