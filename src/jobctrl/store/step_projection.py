"""``pipeline_step_projections``: one row per Discover step and item, attempt-aware, folded
from the PipelineStep* events.

Called by ``store.projections`` for each such event in sequence order, in the writing
transaction, on a connection acting for the event's tenant; a rebuild empties the table and
folds the log again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update

from jobctrl.domain import events as ev
from jobctrl.domain.discovery import StepState
from jobctrl.store import schema, tenancy

__all__ = ["EVENT_TYPES", "fold"]

_STEP_TERMINAL = {StepState.COMPLETED, StepState.FAILED}
_STEP_STATE = {
    ev.PipelineStepQueued: StepState.QUEUED,
    ev.PipelineStepStarted: StepState.RUNNING,
    ev.PipelineStepCompleted: StepState.COMPLETED,
    ev.PipelineStepFailed: StepState.FAILED,
}
EVENT_TYPES = tuple(_STEP_STATE)


def fold(conn: Connection, seq: int, e: ev.PipelineStep, occurred_at: datetime) -> None:
    """Fold a PipelineStep* event: a higher attempt replaces an older one, a late lower
    attempt is ignored, and within one attempt the first terminal result wins."""
    state = _STEP_STATE[type(e)]
    ps = schema.pipeline_step_projections
    key = (
        ps.c.workflow_id == e.workflow_id,
        ps.c.run_id == e.run_id,
        ps.c.step_kind == e.step_kind,
        ps.c.item_key == e.item_key,
        tenancy.scoped(ps, conn),
    )
    row = conn.execute(select(ps.c.attempt, ps.c.state).where(*key)).first()
    if row is not None and (
        e.attempt < row.attempt or (e.attempt == row.attempt and row.state in _STEP_TERMINAL)
    ):
        return
    values: dict[str, Any] = {"attempt": e.attempt, "state": state.value, "last_seq": seq}
    if state == StepState.QUEUED:
        values.update(queued_at=occurred_at)
    elif state == StepState.RUNNING:
        values.update(started_at=occurred_at)
    else:
        values.update(
            finished_at=occurred_at,
            error_code=getattr(e, "error_code", None),
            counts=getattr(e, "counts", None),
        )
    if row is None:
        conn.execute(
            insert(ps).values(
                workflow_id=e.workflow_id,
                run_id=e.run_id,
                step_kind=e.step_kind,
                item_key=e.item_key,
                tenant_id=tenancy.tenant_of(conn),
                **values,
            )
        )
    else:
        conn.execute(update(ps).where(*key).values(**values))
