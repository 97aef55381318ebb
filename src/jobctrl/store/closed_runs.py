"""Whether the store records as closed the execution that claims (or holds) a job's stage
row: the job's preparation run (``workflow_run_projections`` by job), or a recovery
execution, which records no job, through the cohort whose run it is. Read per row through
small lookups: a claim and the reconciler's sweep of abandoned rows ask it for one job at
a time. Within the connection's tenant (``k_tenant``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

from sqlalchemy import Connection, bindparam, select

from jobctrl.domain.clock import as_utc
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.store import schema, tenancy
from jobctrl.store.operations_tables import recovery_cohorts

WR = schema.workflow_run_projections
RC = recovery_cohorts
CLOSED = (
    WorkflowStatus.COMPLETED.value,
    WorkflowStatus.FAILED.value,
    WorkflowStatus.CANCELED.value,
)
_LONG_AGO = datetime.min.replace(tzinfo=UTC)
# Asked at every stage claim: built once.
_JOB_RUN = select(WR.c.status, WR.c.closed_at).where(
    WR.c.job_id == bindparam("job_id"),
    WR.c.run_id == bindparam("run_id"),
    tenancy.keyed(WR, bindparam("k_tenant")),  # by ix_workflow_runs_job, never the tenant's
)
_COHORT_OF_RUN = select(RC.c.workflow_id, RC.c.state, RC.c.updated_at).where(
    RC.c.run_id == bindparam("run_id"), RC.c.tenant_id == bindparam("k_tenant")
)
_COHORT_RUN = select(WR.c.status, WR.c.closed_at).where(
    WR.c.workflow_id == bindparam("workflow_id"),
    WR.c.run_id == bindparam("run_id"),
    WR.c.tenant_id == bindparam("k_tenant"),
)


class Closed(NamedTuple):
    at: datetime
    status: str  # completed | failed | canceled


def _aware(value: datetime | None) -> datetime:
    if value is None:
        return _LONG_AGO  # closed at a time not recorded: long enough ago
    return as_utc(value)


class RunFacts(NamedTuple):
    """What a stage claim asks of its run: whether the store records it closed, and the
    open recovery cohort it executes (None: a preparation's own run, or no cohort)."""

    closed: Closed | None
    cohort: str | None


def closed_at(conn: Connection, job_id: str, run_id: str) -> Closed | None:
    """When and how the store recorded ``run_id`` closed (the job's preparation run, or
    the run of a recovery cohort that queued the job); None while open, or not known."""
    return run_facts(conn, job_id, run_id).closed


def run_facts(conn: Connection, job_id: str, run_id: str) -> RunFacts:
    """``closed_at`` and the open cohort ``run_id`` executes, from the same lookups: one
    for a preparation's run, two more for a recovery execution's."""
    tenant = tenancy.tenant_of(conn)
    row = conn.execute(_JOB_RUN, {"job_id": job_id, "run_id": run_id, "k_tenant": tenant}).first()
    if row is not None:  # one of the job's own runs
        closed = Closed(_aware(row.closed_at), row.status) if row.status in CLOSED else None
        return RunFacts(closed, None)
    # A recovery execution records no job: its cohort names its run (one small lookup,
    # not a scan of the job's events).
    cohort = conn.execute(_COHORT_OF_RUN, {"run_id": run_id, "k_tenant": tenant}).first()
    if cohort is None:
        return RunFacts(None, None)
    params = {"workflow_id": cohort.workflow_id, "run_id": run_id, "k_tenant": tenant}
    run = conn.execute(_COHORT_RUN, params).first()
    if run is not None and run.status in CLOSED:
        return RunFacts(Closed(_aware(run.closed_at), run.status), None)
    if cohort.state == "closed":
        return RunFacts(Closed(_aware(cohort.updated_at), WorkflowStatus.FAILED.value), None)
    return RunFacts(None, str(cohort.workflow_id))
