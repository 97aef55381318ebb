"""Commands on discovery: start (or join) the run over the configured sources; cancel it."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from jobctrl import config as config_file
from jobctrl.app import runtime
from jobctrl.app.activity import DiscoveryRunView, discovery_runs
from jobctrl.app.models import View
from jobctrl.domain.discovery import ExecutionRef
from jobctrl.domain.errors import DISCOVERY_BUSY, NOT_RUNNING, JobctrlError, UnavailableError
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.home import Home
from jobctrl.stages.context import StageContext
from jobctrl.store import discovery as runs_store
from jobctrl.store import operations as ops_store
from jobctrl.store import stage_control, workflow_runs
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker import reconcile
from jobctrl.workflows import starts

__all__ = [
    "DiscoveryCancelled",
    "DiscoveryGate",
    "DiscoveryStarting",
    "cancel_discovery",
    "discovery_gate",
    "observed_runs",
    "start_discovery",
]

log = logging.getLogger(__name__)
# How long a cancel with the preparations waits for the Discover run to close, so that
# no preparation it starts after the list was read is missed.
CLOSE_WAIT_SECONDS = 20.0

_OPEN = frozenset({WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value})


class DiscoveryStarting(View):
    """A run started (or joined) that has not recorded its plan yet."""

    workflow_id: str
    run_id: str
    status: str


class DiscoveryCancelled(View):
    """The run asked to stop (``cancel_requested``: it was still finding jobs), and with
    ``with_preparations`` the jobs whose preparation that run started were cancelled."""

    workflow_id: str
    run_id: str
    cancel_requested: bool
    with_preparations: bool
    preparations_canceled: list[str]  # job ids


class DiscoveryGate(View):
    """Whether a new discovery run may start: ``busy`` while one is ``discovering`` or
    ``draining`` (its preparations still run), with that run's ids and a sentence."""

    busy: bool
    phase: str | None = None  # discovering | draining
    workflow_id: str | None = None
    run_id: str | None = None
    preparations_open: int = 0
    reason: str | None = None
    cancel_preparations: bool = False  # the setting: what a plain cancel does


def _busy(phase: str, workflow_id: str, run_id: str, open_count: int) -> DiscoveryGate:
    if phase == "discovering":
        reason = f"Discovery run {run_id} is still finding jobs."
    else:
        jobs = "job" if open_count == 1 else "jobs"
        reason = f"Discovery run {run_id} is still preparing {open_count} {jobs} it found."
    return DiscoveryGate(
        busy=True,
        phase=phase,
        workflow_id=workflow_id,
        run_id=run_id,
        preparations_open=open_count,
        reason=reason,
    )


def _draining(store: Store, execution: dict[str, Any] | None) -> DiscoveryGate | None:
    """The selected run as draining while preparations it started are still open."""
    if execution is None:
        return None
    ref = ExecutionRef(store.tenant, execution["workflow_id"], execution["run_id"])
    preparations = runs_store.open_preparations(store, ref)
    if not preparations:
        return None
    return _busy("draining", ref.workflow_id, ref.run_id, len(preparations))


def discovery_gate(home: Home) -> DiscoveryGate:
    """Whether a new discovery run may start, as the store records it (the Runs page;
    ``start_discovery`` asks Temporal whether a run is still finding jobs)."""
    store = Store.open(home)
    execution = ops_store.selected_execution(store)
    gate: DiscoveryGate | None
    if execution is not None and execution["status"] == WorkflowStatus.RUNNING.value:
        ref = ExecutionRef(store.tenant, execution["workflow_id"], execution["run_id"])
        count = len(runs_store.open_preparations(store, ref))
        gate = _busy("discovering", ref.workflow_id, ref.run_id, count)
    else:
        gate = _draining(store, execution) or DiscoveryGate(busy=False)
    gate.cancel_preparations = bool(Settings(store).get("discovery.cancel_preparations"))
    return gate


def _open_discovery_ids(store: Store) -> list[str]:
    return [
        run["workflow_id"]
        for run in workflow_runs.open_runs(store)
        if run["workflow_type"] == WorkflowType.DISCOVERY
    ]


def _refuse_when_busy(store: Store, running: starts.Started | None) -> None:
    """``discovery_busy`` while a run is finding jobs (``running``: Temporal describes it
    running) or the newest run's preparations are still open: no second run on top."""
    if running is not None:
        gate = _busy("discovering", running.workflow_id, running.run_id, 0)
        hint = "wait for it to finish, or stop it with `jobctrl discover --cancel`"
    else:
        found = _draining(store, ops_store.selected_execution(store))
        if found is None:
            return
        gate = found
        hint = "wait for them, or stop them with `jobctrl discover --cancel --with-preparations`"
    raise JobctrlError(
        f"{gate.reason} A new run starts once it is done: {hint}.", code=DISCOVERY_BUSY
    )


async def start_discovery(
    home: Home, *, wait: bool = False, wait_timeout: float = 1800.0
) -> DiscoveryRunView | DiscoveryStarting:
    """Start the tenant's `discover-<tenant>`; the run's view (``starting`` until the run
    has recorded its plan). Refused (``discovery_busy``) while a run is discovering or
    draining."""
    client = await runtime.client_for(home)
    config_file.load_config(home)  # a broken config.yaml is reported here, not in the run
    store = Store.open(home)
    running = await starts.running_discovery(client, store.tenant, _open_discovery_ids(store))
    await asyncio.to_thread(_refuse_when_busy, store, running)
    started = await starts.start_discovery(client, store)
    if wait:
        await runtime.ensure_worker_polls(client, "discovery")
        await starts.wait_for_result(
            client,
            started,
            wait_timeout,
            still_running=f"discovery is still running after {wait_timeout:.0f} s",
        )
    runs = [r for r in discovery_runs(home) if r.run_id == started.run_id]
    if runs:
        return runs[0]
    return DiscoveryStarting(
        workflow_id=started.workflow_id, run_id=started.run_id, status="starting"
    )


async def cancel_discovery(
    home: Home, *, with_preparations: bool | None = None
) -> DiscoveryCancelled:
    """Stop finding jobs: the run in progress is asked to stop; what it found so far stays.

    ``with_preparations`` (None: the ``discovery.cancel_preparations`` setting) also
    cancels the preparations that run started and that are still open, like `jobctrl
    cancel JOB` for each (cooperative: finished work stays, their unfinished stages end
    ``canceled``); the run is first given a moment to close so it starts none after the
    list is read. With no run in progress it cancels the newest run's open preparations
    (a draining run). ``not_running`` when there is nothing to stop."""
    client = await runtime.client_for(home)
    store = Store.open(home)
    if with_preparations is None:
        with_preparations = bool(Settings(store).get("discovery.cancel_preparations"))
    running = await starts.running_discovery(client, store.tenant, _open_discovery_ids(store))
    if running is not None:
        # Recorded first: the run's own activity reads it before (and after) it starts
        # preparations, and the worker's heartbeat re-issues a cancel that is lost here.
        await asyncio.to_thread(
            stage_control.request_discovery_stop,
            store,
            running.workflow_id,
            running.run_id,
            with_preparations=with_preparations,
        )
        await client.get_workflow_handle(running.workflow_id, run_id=running.run_id).cancel()
        target = ExecutionRef(store.tenant, running.workflow_id, running.run_id)
        if with_preparations and not await starts.wait_closed(client, running, CLOSE_WAIT_SECONDS):
            log.warning("discovery run %s is still closing", running.run_id)
    else:
        execution = ops_store.selected_execution(store) if with_preparations else None
        draining = _draining(store, execution)
        if draining is None or execution is None:
            raise JobctrlError(
                "no discovery run is in progress or preparing its jobs", code=NOT_RUNNING
            )
        target = ExecutionRef(store.tenant, execution["workflow_id"], execution["run_id"])
    canceled: list[str] = []
    if with_preparations:
        preparations = await asyncio.to_thread(_cancel_preparations, store, target)
        await starts.cancel_runs(client, [(w, r) for _, w, r in preparations])
        canceled = [job_id for job_id, _, _ in preparations]
    return DiscoveryCancelled(
        workflow_id=target.workflow_id,
        run_id=target.run_id,
        cancel_requested=running is not None,
        with_preparations=with_preparations,
        preparations_canceled=canceled,
    )


def _cancel_preparations(store: Store, ref: ExecutionRef) -> list[tuple[str, str, str]]:
    """The store's part of cancelling the open preparations ``ref`` started, as `jobctrl
    cancel` does for each job: its stop request recorded and its unfinished stages
    canceled (the worker's heartbeat re-issues a cancel that does not reach Temporal).
    The (job id, workflow id, run id) of each."""
    preparations = runs_store.open_preparations(store, ref)
    for job_id, workflow_id, run_id in preparations:
        stage_control.cancel_job(store, job_id, [(workflow_id, run_id)])
    return preparations


async def observed_runs(home: Home, limit: int = 20) -> tuple[list[DiscoveryRunView], bool]:
    """``discovery_runs`` after the open ones among them were described by their exact run
    id (the reconciler's probe, not the worker's last beat): one Temporal reports closed
    shows its real outcome. One it cannot find is shown ``reconciled_not_found``, never
    ``running``; recording that is left to the worker's own pass (this command's
    settings could name another namespace). Also whether they were checked;
    without a Temporal server the stored statuses are shown as they are (False)."""
    runs = discovery_runs(home, limit)
    shown = [(r.workflow_id, r.run_id) for r in runs if r.status in _OPEN and r.run_id]
    if not shown:
        return runs, True
    try:
        client = await runtime.client_for(home)
    except UnavailableError:
        return runs, False
    ctx = StageContext(home=home, store=Store.open(home))
    not_found = await reconcile.observe_now(client, ctx, shown)
    if not_found is None:
        return runs, False
    runs = discovery_runs(home, limit)
    for run in runs:
        if run.status in _OPEN and (run.workflow_id, run.run_id) in not_found:
            run.status = WorkflowStatus.RECONCILED_NOT_FOUND.value
    return runs, True
