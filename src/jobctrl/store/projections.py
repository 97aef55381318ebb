"""Read models folded from ``job_events`` only.

Each fold reads the events after the watermark in sequence order, applies them (typed)
to the projection tables and advances the watermark in the same transaction: every event
is applied once. ``rebuild`` truncates the projections and the watermark and folds the
whole log again; the result equals the incrementally folded rows.

The watermark is global (one sequence over every tenant's events); each event is folded
as its tenant's: its handler's connection acts for that tenant (``_acting_for``), so its
projection rows carry that ``tenant_id`` and every statement on them has that predicate.

- ``job_list_projections``: one row per job for the Jobs list. Its ``stages`` column
  keeps each stage's (state, code) as the events told it: a job's status is computed
  from it (``domain.stages.job_status``).
- ``workflow_run_projections``: one row per execution the store started or saw.
- ``pipeline_step_projections``: one row per Discover step and item, attempt-aware.
- ``operational_attempt_metrics``: one row per stage attempt (``store.attempt_metrics``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection, bindparam, delete, func, select, update

from jobctrl.domain import events as ev
from jobctrl.domain.events import DomainEvent, parse_event
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.domain.stages import Stage, StageState, job_status
from jobctrl.domain.tenants import LOCAL
from jobctrl.store import attempt_metrics, schema, step_projection, tenancy
from jobctrl.store.db import upsert

WATERMARK = "jobs"
PROJECTION_TABLES = (
    schema.job_list_projections,
    schema.workflow_run_projections,
    schema.pipeline_step_projections,
    attempt_metrics.TABLE,
)
JL = schema.job_list_projections
E = schema.job_events
PW = schema.projection_watermarks

# Where a list row's title, company and location came from: the page Enrich read wins
# over what a board listed.
FROM_PAGE = "page"
FROM_LISTING = "listing"


class AppendedEvent(NamedTuple):
    """An event as the fold sees it: its sequence, its typed model (None for a type no
    projection reads), when it happened and its tenant."""

    seq: int
    event: DomainEvent | None
    occurred_at: datetime
    tenant_id: str = LOCAL


# Built once: a fold runs in every write transaction.
_READ_WATERMARK = select(PW.c.position).where(PW.c.name == WATERMARK)
_ADVANCE_FROM = (
    update(PW)
    .where(PW.c.name == WATERMARK, PW.c.position == bindparam("expected"))
    .values(position=bindparam("position"))
)
_LIST_ROW = select(JL).where(
    JL.c.job_id == bindparam("job_id"), JL.c.tenant_id == tenancy.tenant_param()
)
# The fold and its checks read every tenant's events (the watermark is global).
_LATEST = tenancy.all_tenants(select(func.coalesce(func.max(E.c.seq), 0)))
_AFTER = tenancy.all_tenants(
    select(E.c.seq, E.c.type, E.c.payload, E.c.occurred_at, E.c.tenant_id)
    .where(E.c.seq > bindparam("position"))
    .order_by(E.c.seq)
    .limit(bindparam("batch"))
)


def _watermark(conn: Connection) -> int:
    pos = conn.execute(_READ_WATERMARK).scalar()
    return int(pos or 0)


def behind(conn: Connection) -> bool:
    """True when the log holds events the projections have not folded."""
    latest = conn.execute(_LATEST).scalar_one()
    return int(latest) > _watermark(conn)


def _read_after(conn: Connection, position: int, batch: int) -> list[AppendedEvent]:
    rows = conn.execute(_AFTER, {"position": position, "batch": batch}).all()
    # Only the types a projection reads are parsed: the rest just move the watermark.
    return [
        AppendedEvent(
            r.seq,
            parse_event(r.type, r.payload) if r.type in FOLDED else None,
            r.occurred_at,
            r.tenant_id,
        )
        for r in rows
    ]


def fold_pending(
    conn: Connection, batch: int = 1000, *, appended: list[AppendedEvent] | None = None
) -> int:
    """Fold every event after the watermark; returns how many were applied.

    ``appended`` are the current transaction's events. Usually they are exactly the ones
    after the watermark: one statement moves it past them on that condition, and they are
    folded without reading them back. Otherwise (another writer's events not folded, a
    PostgreSQL sequence gap, no watermark row yet) the log is read from the watermark on.
    """
    first = appended[0].seq if appended else 0
    if appended and [e.seq for e in appended] == list(range(first, first + len(appended))):
        moved = conn.execute(_ADVANCE_FROM, {"expected": first - 1, "position": appended[-1].seq})
        if moved.rowcount == 1:
            # The transaction's own events are its tenant's.
            tenant = tenancy.tenant_of(conn)
            _apply(
                conn,
                [e if e.tenant_id == tenant else e._replace(tenant_id=tenant) for e in appended],
            )
            return len(appended)
    applied = 0
    position = _watermark(conn)
    while True:
        events = _read_after(conn, position, batch)
        if not events:
            break
        _apply(conn, events)
        position = events[-1].seq
        applied += len(events)
    if applied:
        upsert(
            conn,
            schema.projection_watermarks,
            {"name": WATERMARK, "position": position},
            keys=["name"],
            update=["position"],
        )
    return applied


@contextmanager
def _acting_for(conn: Connection, tenant: str) -> Iterator[None]:
    """``conn`` acts for ``tenant`` inside the block, then for its own tenant again."""
    own = conn.get_execution_options().get(tenancy.TENANT_OPTION)
    if own == tenant:
        yield
        return
    tenancy.bind(conn, tenant)
    try:
        yield
    finally:
        conn.execution_options(**{tenancy.TENANT_OPTION: own})


def _apply(conn: Connection, events: list[AppendedEvent]) -> None:
    fold = _Fold(conn)
    for item in events:
        handler = HANDLERS.get(type(item.event)) if item.event is not None else None
        if handler is not None:
            with _acting_for(conn, item.tenant_id):
                handler(fold, item)
    fold.flush()


def rebuild(conn: Connection) -> int:
    """Drop every projection row (of every tenant) and the watermark, then fold the whole
    log again."""
    for table in PROJECTION_TABLES:
        conn.execute(tenancy.all_tenants(delete(table)))
    conn.execute(
        delete(schema.projection_watermarks).where(schema.projection_watermarks.c.name == WATERMARK)
    )
    return fold_pending(conn)


# -- the job list ----------------------------------------------------------------------------


def _naive(at: datetime, conn: Connection) -> datetime:
    # SQLite hands timestamps back without a zone: keep what is written comparable with
    # what was read, so a rebuild writes exactly the incrementally folded rows.
    return at.replace(tzinfo=None) if conn.dialect.name == "sqlite" else at


class _Fold:
    """One batch of events: list rows are read once, changed in memory, written once."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.rows: dict[str, dict[str, Any] | None] = {}
        self.dirty: set[str] = set()

    def row(self, job_id: str) -> dict[str, Any] | None:
        """The job's list row, within the tenant the connection acts for (job ids are
        unique across tenants, so the cache is keyed by id)."""
        if job_id not in self.rows:
            params = {"job_id": job_id, tenancy.TENANT_PARAM: tenancy.tenant_of(self.conn)}
            found = self.conn.execute(_LIST_ROW, params).mappings().first()
            self.rows[job_id] = (
                None if found is None else {**found, "stages": dict(found["stages"] or {})}
            )
        return self.rows[job_id]

    def touch(self, row: dict[str, Any], item: AppendedEvent) -> None:
        row["updated_at"] = _naive(item.occurred_at, self.conn)
        row["last_seq"] = item.seq
        self.rows[row["job_id"]] = row
        self.dirty.add(row["job_id"])

    def flush(self) -> None:
        for job_id in self.dirty:
            row = self.rows[job_id]
            assert row is not None
            stages = {name: (state, code) for name, (state, code) in row["stages"].items()}
            status, current, error_code = job_status(stages)
            row.update(status=status.value, current_stage=current, error_code=error_code)
            with _acting_for(self.conn, row["tenant_id"]):
                upsert(
                    self.conn,
                    JL,
                    row,
                    keys=["job_id"],
                    update=[k for k in row if k not in ("job_id", "created_at")],
                )
        self.dirty.clear()


def _on_job_created(fold: _Fold, item: AppendedEvent) -> None:
    e = item.event
    assert isinstance(e, ev.JobCreated)
    if fold.row(e.job_id) is not None:
        return
    at = _naive(item.occurred_at, fold.conn)
    row = {
        "job_id": e.job_id,
        "url": e.url,
        "title": None,
        "company": None,
        "location": None,
        "remote": None,
        "score": None,
        "verdict": None,
        "created_at": at,
        "stages": {Stage.ENRICH.value: (StageState.PENDING.value, None)},
        "title_source": None,
        "tenant_id": item.tenant_id,
    }
    fold.touch(row, item)


def _job_event(
    mutate: Callable[[dict[str, Any], Any], None],
) -> Callable[[_Fold, AppendedEvent], None]:
    """A handler that applies ``mutate(row, event)`` to the event's job row (if known)."""

    def handler(fold: _Fold, item: AppendedEvent) -> None:
        job_id = getattr(item.event, "job_id", None)
        row = fold.row(job_id) if job_id else None
        if row is None:  # an event for a job whose creation was never recorded
            return
        mutate(row, item.event)
        fold.touch(row, item)

    return handler


def _stage_state(state: StageState) -> Callable[[dict[str, Any], Any], None]:
    def mutate(row: dict[str, Any], e: Any) -> None:
        code = None
        if isinstance(e, ev.StageFailed):
            code = e.error_code
        elif isinstance(e, ev.StageSkipped):
            code = e.reason
        row["stages"][e.stage] = (state.value, code)

    return mutate


def _stages_pending(row: dict[str, Any], e: ev.StagesPending) -> None:
    for stage in e.stages:
        row["stages"][stage] = (StageState.PENDING.value, None)


def _enriched(row: dict[str, Any], e: ev.JobEnriched) -> None:
    row.update(
        title=e.title,
        company=e.company,
        location=e.location,
        remote=e.remote,
        title_source=FROM_PAGE,
    )
    row["stages"].setdefault(Stage.SCORE.value, (StageState.PENDING.value, None))


def _scored(row: dict[str, Any], e: ev.JobScored) -> None:
    row.update(score=e.score, verdict=e.verdict)


def _discovered(row: dict[str, Any], e: ev.JobDiscovered) -> None:
    if row["title_source"] is None:  # what the board said, shown until Enrich reads the page
        row.update(title=e.title, company=e.company, location=e.location, title_source=FROM_LISTING)


def _touched(row: dict[str, Any], e: DomainEvent) -> None:
    """Events that change nothing in the list row but its updated time."""


# -- workflow runs -------------------------------------------------------------------------


_OPEN_RUN = (WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value)
WORKFLOW_LIFECYCLE = (
    ev.WorkflowStarted,
    ev.WorkflowReconciled,
    ev.WorkflowCompleted,
    ev.WorkflowFailed,
    ev.WorkflowCanceled,
)


def fold_workflow_run(conn: Connection, item: AppendedEvent) -> None:
    """Apply one lifecycle event (Workflow*) to ``workflow_run_projections`` only: what
    the incremental fold does, and what a repair of missing rows replays."""
    e, wr = item.event, schema.workflow_run_projections
    if isinstance(e, ev.WorkflowStarted):
        row: dict[str, Any] = {"workflow_id": e.workflow_id, "run_id": e.run_id}
        row.update(tenant_id=tenancy.tenant_of(conn))
        row.update(workflow_type=e.workflow_type, job_id=e.job_id, last_seq=item.seq)
        row.update(status=WorkflowStatus.RUNNING.value, started_at=item.occurred_at)
        upsert(conn, wr, row, keys=["workflow_id", "run_id"])
        return
    assert isinstance(e, WORKFLOW_LIFECYCLE[1:])
    key = (
        wr.c.workflow_id == e.workflow_id,
        wr.c.run_id == e.run_id,
        tenancy.scoped(wr, conn),
    )
    if isinstance(e, ev.WorkflowReconciled):  # closed verdicts: the closing event follows
        reopened = e.verdict == WorkflowStatus.RUNNING.value
        lost = e.verdict == WorkflowStatus.RECONCILED_NOT_FOUND.value
        if reopened or lost:
            was = _OPEN_RUN[0] if lost else _OPEN_RUN[1]
            conn.execute(
                update(wr)
                .where(*key, wr.c.status == was)
                .values(status=e.verdict, last_seq=item.seq)
            )
        return
    status = _CLOSED_STATUS[type(e)]
    conn.execute(
        update(wr)
        .where(*key, wr.c.status.in_(_OPEN_RUN))  # a provisional verdict is replaced too
        .values(
            status=status.value,
            outcome=getattr(e, "outcome", None),
            error_code=getattr(e, "error_code", None),
            closed_at=item.occurred_at,
            last_seq=item.seq,
        )
    )


_CLOSED_STATUS = {
    ev.WorkflowCompleted: WorkflowStatus.COMPLETED,
    ev.WorkflowFailed: WorkflowStatus.FAILED,
    ev.WorkflowCanceled: WorkflowStatus.CANCELED,
}


def _on_workflow_event(fold: _Fold, item: AppendedEvent) -> None:
    fold_workflow_run(fold.conn, item)
    if isinstance(item.event, ev.WorkflowStarted) and item.event.job_id:
        _job_event(_touched)(fold, item)


def _pipeline_step(fold: _Fold, item: AppendedEvent) -> None:
    assert isinstance(item.event, ev.PipelineStep)
    step_projection.fold(fold.conn, item.seq, item.event, item.occurred_at)


def _on_job_deleted(fold: _Fold, item: AppendedEvent) -> None:  # it leaves the list
    job_id = item.event.job_id  # type: ignore[union-attr]
    fold.rows[job_id] = None
    fold.dirty.discard(job_id)
    fold.conn.execute(delete(JL).where(JL.c.job_id == job_id, tenancy.scoped(JL, fold.conn)))


HANDLERS: dict[type[DomainEvent], Callable[[_Fold, AppendedEvent], None]] = {
    ev.JobCreated: _on_job_created,
    ev.StageStarted: _job_event(_stage_state(StageState.RUNNING)),
    ev.StageSucceeded: _job_event(_stage_state(StageState.SUCCEEDED)),
    ev.StageFailed: _job_event(_stage_state(StageState.FAILED)),
    ev.StageSkipped: _job_event(_stage_state(StageState.SKIPPED)),
    ev.StageDeclined: _job_event(_stage_state(StageState.SKIPPED)),  # no code: a decline
    ev.StageReset: _job_event(_stage_state(StageState.PENDING)),
    ev.StagesPending: _job_event(_stages_pending),
    ev.JobEnriched: _job_event(_enriched),
    ev.JobScored: _job_event(_scored),
    ev.JobDiscovered: _job_event(_discovered),
    ev.ReportWritten: _job_event(_touched),
    ev.JobAvailabilityChecked: _job_event(_touched),
    ev.JobHidden: _job_event(_touched),
    ev.JobUnhidden: _job_event(_touched),
    ev.JobDeleted: _on_job_deleted,
    **{cls: _on_workflow_event for cls in WORKFLOW_LIFECYCLE},
    **{cls: _pipeline_step for cls in step_projection.EVENT_TYPES},
}

HANDLERS.update(attempt_metrics.with_metrics(HANDLERS))
# The event types some projection reads, by their stored name.
FOLDED = frozenset(cls.type for cls in HANDLERS)
