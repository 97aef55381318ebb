"""Operational attempt metrics: one ``operational_attempt_metrics`` row per stage attempt
(job, stage, run, attempt number), folded from the stage events by the projections'
fold (``store.projections``: same watermark, same rebuild). StageStarted opens it
(``running``); StageSucceeded or StageFailed closes it with its end, duration and
failure code (a close with no recorded start keeps no duration). A stage has one attempt
under way at a time, so a StageStarted also closes any other attempt of its job's stage
still open as ``interrupted`` (its worker was killed or its run cancelled: when it really
stopped is unknown, so it keeps no duration). Codes only: the events carry no error text.

``attempts_since`` reads them back for the Operations page's per-stage panel; the
successful ones are pipeline-eta-v1's duration samples (``store.operations.stage_spans``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, or_, select, union_all, update

from jobctrl.domain import events as ev
from jobctrl.domain.clock import as_utc
from jobctrl.domain.operations import STAGE_LANES
from jobctrl.store import tenancy
from jobctrl.store.db import upsert
from jobctrl.store.operations_tables import operational_attempt_metrics as M

if TYPE_CHECKING:  # only for the annotation: store.store imports the projections, and them
    from jobctrl.store.store import Store

__all__ = ["EVENT_TYPES", "TABLE", "attempts_since", "fold", "with_metrics"]

TABLE = M
EVENT_TYPES = (ev.StageStarted, ev.StageSucceeded, ev.StageFailed)
RUNNING, SUCCEEDED, FAILED, INTERRUPTED = "running", "succeeded", "failed", "interrupted"


def fold(conn: Connection, seq: int, event: ev.DomainEvent, at: datetime) -> None:
    """Apply one stage event to its attempt's row (in the tenant ``conn`` acts for)."""
    assert isinstance(event, EVENT_TYPES)
    key = {
        "job_id": event.job_id,
        "stage": event.stage,
        "run_id": event.run_id,
        "attempt": event.attempt,
    }
    if isinstance(event, ev.StageStarted):
        conn.execute(
            update(M)
            .where(
                tenancy.scoped(M, conn),
                M.c.job_id == event.job_id,
                M.c.stage == event.stage,
                # The key's index (tenant, job, stage), not the samples' (tenant, stage,
                # outcome): SQLite, without statistics, would walk a stage's open attempts.
                tenancy.not_indexed(M.c.outcome) == RUNNING,
                or_(M.c.run_id != event.run_id, M.c.attempt != event.attempt),
            )
            .values(outcome=INTERRUPTED, finished_at=at, last_seq=seq)
        )
        row = {
            **key,
            "tenant_id": tenancy.tenant_of(conn),
            "lane": STAGE_LANES.get(event.stage),
            "outcome": RUNNING,
            "started_at": at,
            "last_seq": seq,
        }
        upsert(conn, M, row, keys=["tenant_id", *key], update=["started_at", "last_seq"])
        return
    outcome = SUCCEEDED if isinstance(event, ev.StageSucceeded) else FAILED
    code = event.error_code if isinstance(event, ev.StageFailed) else None
    where = [*(M.c[k] == v for k, v in key.items()), tenancy.scoped(M, conn)]
    started = conn.execute(select(M.c.started_at).where(*where)).first()
    if started is None:
        upsert(
            conn,
            M,
            {**key, "tenant_id": tenancy.tenant_of(conn), "lane": STAGE_LANES.get(event.stage),
             "outcome": outcome, "error_code": code, "finished_at": at, "last_seq": seq},
            keys=["tenant_id", *key],
        )  # fmt: skip
        return
    begun = started[0]
    seconds = (as_utc(at) - as_utc(begun)).total_seconds() if begun is not None else None
    conn.execute(
        update(M)
        .where(*where, or_(M.c.outcome == RUNNING, M.c.last_seq < seq))
        .values(
            outcome=outcome,
            error_code=code,
            finished_at=at,
            duration_seconds=max(0.0, seconds) if seconds is not None else None,
            last_seq=seq,
        )
    )


def with_metrics(handlers: dict[type, Callable[[Any, Any], None]]) -> dict[type, Any]:
    """The projections' ``handlers`` for the stage events, each also folding the metric
    (the fold's item carries ``seq``, ``event`` and ``occurred_at``)."""

    def both(first: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
        def handler(fold_state: Any, item: Any) -> None:
            first(fold_state, item)
            fold(fold_state.conn, item.seq, item.event, item.occurred_at)

        return handler

    return {cls: both(handlers[cls]) for cls in EVENT_TYPES}


# What the day's panel and its tests read (not the whole row: a busy day has thousands).
_READ = [M.c[name] for name in ("job_id", "stage", "run_id", "attempt", "outcome")]
_READ += [M.c.error_code, M.c.duration_seconds]


def attempts_since(store: Store, since: datetime) -> list[dict[str, Any]]:
    """The tenant's attempts that ended at ``since`` or later, and those still open that
    began then or later, as rows (two index ranges: the table keeps every attempt)."""
    with store.read() as conn:
        rows = conn.execute(
            union_all(
                select(*_READ).where(tenancy.scoped(M, conn), M.c.finished_at >= since),
                select(*_READ).where(
                    tenancy.scoped(M, conn), M.c.finished_at.is_(None), M.c.started_at >= since
                ),
            )
        ).all()
        return [r._asdict() for r in rows]
