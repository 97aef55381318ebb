"""Which stage rows the worker looks for besides a job's own attempt: the stages a run
still holds running (its finalize settles them), and the stages failed with one code (the
budget and configuration stops the heartbeat resumes)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, select

from jobctrl.domain.stages import StageState
from jobctrl.store import schema, tenancy
from jobctrl.store.store import Store

S = schema.job_stage_states
# Every lookup here is by job id: ``keyed`` so SQLite takes the key, not a tenant-wide index.
_MINE = tenancy.keyed(S, bindparam("k_tenant"))
# Asked at every finalize: built once.
_RUNNING_OWNED = select(S.c.stage, S.c.attempts).where(
    _MINE,
    S.c.job_id == bindparam("k_job"),
    S.c.owner_run_id == bindparam("k_run"),
    S.c.state == StageState.RUNNING.value,
)


_OWNER = select(S.c.state, S.c.owner_run_id, S.c.attempts).where(
    _MINE, S.c.job_id == bindparam("k_job"), S.c.stage == bindparam("k_stage")
)


def attempt_owns(store: Store, job_id: str, stage: str, run_id: str, attempt: int) -> bool:
    """False when the job's ``stage`` row has moved on from ``run_id``'s ``attempt``
    (another attempt claimed it, or it ended); True while that attempt runs it, or when
    the job has no such row (work that no stage row fences)."""
    with store.read() as conn:
        params = {"k_job": job_id, "k_stage": stage, "k_tenant": tenancy.tenant_of(conn)}
        row = conn.execute(_OWNER, params).first()
    if row is None:
        return True
    return bool(
        row.state == StageState.RUNNING.value
        and row.owner_run_id == run_id
        and row.attempts == attempt
    )


def running_stages_owned_by(store: Store, job_id: str, run_id: str) -> list[tuple[str, int]]:
    """(stage, attempt) of each stage of the job still running under ``run_id``."""
    with store.read() as conn:
        params = {"k_job": job_id, "k_run": run_id, "k_tenant": tenancy.tenant_of(conn)}
        rows = conn.execute(_RUNNING_OWNED, params).all()
    return [(str(stage), int(attempts)) for stage, attempts in rows]


def failed_stages_with(store: Store, code: str) -> list[tuple[str, str, datetime | None]]:
    """(job id, stage, when it failed) of every stage failed with ``code``, oldest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(S.c.job_id, S.c.stage, S.c.finished_at)
            .where(
                S.c.state == StageState.FAILED.value,
                S.c.error_code == code,
                tenancy.scoped(S, conn),
            )
            .order_by(S.c.finished_at)
        ).all()
    return [(str(job_id), str(stage), finished) for job_id, stage, finished in rows]
