"""Commands on discovery: start (or join) the run over the configured sources; cancel it."""

from __future__ import annotations

from jobctrl import config as config_file
from jobctrl.app import runtime
from jobctrl.app.activity import DiscoveryRunView, discovery_runs
from jobctrl.app.models import View
from jobctrl.domain.errors import UnavailableError
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.home import Home
from jobctrl.stages.context import StageContext
from jobctrl.store import workflow_runs
from jobctrl.store.store import Store
from jobctrl.worker import reconcile
from jobctrl.workflows import starts

__all__ = [
    "DiscoveryCancelled",
    "DiscoveryStarting",
    "cancel_discovery",
    "observed_runs",
    "start_discovery",
]

_OPEN = frozenset({WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value})


class DiscoveryStarting(View):
    """A run started (or joined) that has not recorded its plan yet."""

    workflow_id: str
    run_id: str
    status: str


class DiscoveryCancelled(View):
    """The run asked to stop."""

    workflow_id: str
    run_id: str
    cancel_requested: bool


async def start_discovery(
    home: Home, *, wait: bool = False, wait_timeout: float = 1800.0
) -> DiscoveryRunView | DiscoveryStarting:
    """Start the tenant's `discover-<tenant>`, or join the run already in progress; the
    run's view (``starting`` until the run has recorded its plan)."""
    client = await runtime.client_for(home)
    config_file.load_config(home)  # a broken config.yaml is reported here, not in the run
    started = await starts.start_discovery(client, Store.open(home))
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


async def cancel_discovery(home: Home) -> DiscoveryCancelled:
    """Ask the run in progress to stop; what it found so far stays (``not_running`` if
    none is in progress)."""
    client = await runtime.client_for(home)
    store = Store.open(home)
    open_ids = [
        run["workflow_id"]
        for run in workflow_runs.open_runs(store)
        if run["workflow_type"] == WorkflowType.DISCOVERY
    ]
    cancelled = await starts.cancel_discovery(client, store.tenant, open_ids)
    return DiscoveryCancelled(
        workflow_id=cancelled.workflow_id, run_id=cancelled.run_id, cancel_requested=True
    )


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
