"""Executions as the person sees and steers them (`jobctrl executions`, ``/v1/executions``):
the orphans the worker's heartbeat found (executions Temporal runs that the store does not
expect), the runs the store holds open with their reconciled status, and stop requests,
which the heartbeat issues and re-issues (a bounded number of times, then terminates)
until Temporal reports the execution closed. A stop names an execution Temporal has: the
command describes it first and records nothing for a run Temporal does not know.
"""

from __future__ import annotations

import asyncio

from jobctrl.app import runtime
from jobctrl.app.models import Timestamp, View
from jobctrl.app.operations import OrphanView
from jobctrl.domain import ids
from jobctrl.domain.errors import INVALID_INPUT, NOT_FOUND, JobctrlError, NotFoundError
from jobctrl.domain.runtime import safe_run_id
from jobctrl.domain.tenants import LOCAL
from jobctrl.home import Home
from jobctrl.store import orphans, workflow_runs
from jobctrl.store.store import Store
from jobctrl.workflows import starts

__all__ = [
    "OPERATOR",
    "ORPHAN",
    "Executions",
    "OpenRun",
    "StopRequestView",
    "StopRequested",
    "list_executions",
    "stop_execution",
]

ORPHAN = "orphan"  # a stop request's reason: the execution was an orphan
OPERATOR = "operator"  # the person stopped an execution the store expected


class OpenRun(View):
    """A run the store holds open: ``running`` or the provisional ``reconciled_not_found``."""

    workflow_id: str
    run_id: str
    workflow_type: str
    job_id: str | None
    status: str
    started_at: Timestamp | None


class StopRequestView(View):
    """A stop request and how far it got (``outcome`` None while it is pursued)."""

    workflow_id: str
    run_id: str
    reason: str
    requested_at: Timestamp
    issued: int
    last_issued_at: Timestamp | None
    observed_closed_at: Timestamp | None
    gave_up_at: Timestamp | None
    outcome: str | None


class Executions(View):
    """``jobctrl executions --json`` and ``GET /v1/executions``."""

    orphans: list[OrphanView]
    open_runs: list[OpenRun]
    stop_requests: list[StopRequestView]


class StopRequested(View):
    """A stop request just recorded: the worker's heartbeat pursues it."""

    workflow_id: str
    run_id: str
    reason: str
    requested: bool


def list_executions(home: Home) -> Executions:
    """``orphans`` (as the last heartbeat saw them), ``openRuns`` (what the store holds
    open: ``running`` or the provisional ``reconciled_not_found``) and ``stopRequests``."""
    store = Store.open(home)
    return Executions(
        orphans=[OrphanView.from_row(o) for o in orphans.orphans(store)],
        open_runs=[OpenRun.from_row(r) for r in workflow_runs.open_runs(store)],
        stop_requests=[StopRequestView.from_row(r) for r in orphans.stop_requests(store)],
    )


def _runs_known_under(store: Store, workflow_id: str) -> tuple[set[str], set[str]]:
    """(orphan runs, orphan and open runs) the store knows under ``workflow_id``."""
    orphan_runs = {o.run_id for o in orphans.orphans(store) if o.workflow_id == workflow_id}
    open_runs = {
        r["run_id"] for r in workflow_runs.open_runs(store) if r["workflow_id"] == workflow_id
    }
    return orphan_runs, orphan_runs | open_runs


async def stop_execution(home: Home, workflow_id: str, run_id: str | None = None) -> StopRequested:
    """Record a request to stop ``workflow_id`` (its run ``run_id``, or the one orphan or
    open run known under that id); the worker's heartbeat cancels it. An execution of
    another tenant (its id names it), or one Temporal does not have (described first), is
    not found and nothing is recorded; without a Temporal server this raises
    ``temporal_unavailable`` and records nothing."""
    store = Store.open(home)
    orphan_runs, known = await asyncio.to_thread(_runs_known_under, store, workflow_id)
    owner = ids.tenant_of(workflow_id)
    if (owner is not None and owner != store.tenant) or (
        owner is None and store.tenant != LOCAL and not known
    ):
        # Another tenant's execution (by its id) is never this tenant's to stop.
        raise NotFoundError(f"no execution of yours is known under {workflow_id}", code=NOT_FOUND)
    if run_id is None:
        if not known:
            raise NotFoundError(
                f"no orphan or open run is known under {workflow_id}; name its run with --run",
                code=NOT_FOUND,
            )
        if len(known) > 1:
            raise JobctrlError(
                f"{len(known)} runs are known under {workflow_id}; name one with --run",
                code=INVALID_INPUT,
            )
        (run_id,) = known
    if not safe_run_id(run_id):
        raise JobctrlError(f"{run_id!r} is not a Temporal run id", code=INVALID_INPUT)
    client = await runtime.client_for(home)
    if not await starts.run_known(client, workflow_id, run_id):
        raise NotFoundError(
            f"Temporal has no execution {workflow_id} with run {run_id}", code=NOT_FOUND
        )
    reason = ORPHAN if run_id in orphan_runs else OPERATOR
    await asyncio.to_thread(orphans.request_stop, store, workflow_id, run_id, reason)
    return StopRequested(workflow_id=workflow_id, run_id=run_id, reason=reason, requested=True)
