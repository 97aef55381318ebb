"""Starting, describing, cancelling and terminating Temporal executions: the one place
that does.

The app layer (commands), the worker (its reconcilers) and activities (discovery's
preparation fan-out) all start work through these functions, so every start uses the same
deterministic ids and conflict policies, and every started execution is recorded.

- A job's preparation is ``prep-{idempotencyKey}`` unless a recovery, retry or
  regeneration names its own id. ``USE_EXISTING`` joins a running execution and
  ``REJECT_DUPLICATE`` refuses a new one after it closed, so a retried or racing start
  never makes a second execution. The input freezes the profile version and settings.
- Discovery is ``discover-local``; the schedule ``jobctrl-discovery-local`` starts it.
- The standing apply loop is ``apply-auto-local`` (started again after it closed); a
  one-shot apply is ``apply-{jobId}-<12 hex>`` (``REJECT_DUPLICATE``: once per occasion).

Every id is the tenant's (``domain.ids``: the ``local`` ids above, ``prep-acme-…``,
``discover-acme``, ``apply-auto-acme`` for ``acme``), taken from the store the start is
recorded in (``store.tenant``), and every input names that tenant (``tenant_id``): one
worker pool on one task queue serves them all, each activity acting for its input's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleState,
    ScheduleUpdate,
    ScheduleUpdateInput,
    WorkflowExecutionDescription,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.types import MethodAsyncSingleParam

from jobctrl.config import load_config
from jobctrl.domain import ids
from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import (
    NOT_RUNNING,
    TEMPORAL,
    WAIT_TIMEOUT,
    JobctrlError,
    UnavailableError,
)
from jobctrl.domain.executions import WorkflowType
from jobctrl.home import Home
from jobctrl.store import profiles, recovery, workflow_runs
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.workflows.apply import ApplyWorkflow
from jobctrl.workflows.availability import AvailabilitySweepWorkflow
from jobctrl.workflows.client import DEFAULT_TASK_QUEUE, default_task_queue
from jobctrl.workflows.contacts import ContactResearchWorkflow
from jobctrl.workflows.discover import DiscoverWorkflow
from jobctrl.workflows.models import (
    ApplyWorkflowInput,
    ContactResearchInput,
    DiscoverInput,
    PrepInput,
    RecoveryInput,
    RetrySettings,
    SweepInput,
)
from jobctrl.workflows.prep import JobPreparationWorkflow
from jobctrl.workflows.recovery import PreparationRecoveryWorkflow

# What an RPC answers when the server is gone (or restarting); a waiting command waits
# this long for it to come back.
log = logging.getLogger(__name__)
SERVER_AWAY = frozenset(
    {RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED}
)
# A wait also takes UNKNOWN for it: a connection cut while its long poll was in flight
# (the server killed) comes back as UNKNOWN "transport error". The wait then asks whether
# the server answers; a per-call UNKNOWN elsewhere stays that call's error.
WAIT_AWAY = SERVER_AWAY | {RPCStatusCode.UNKNOWN}
SERVER_GRACE_SECONDS = 30.0


def retry_settings(values: Mapping[str, Any]) -> RetrySettings:
    """The activities' retry settings, from a snapshot of the settings."""
    return RetrySettings(
        max_attempts=int(values["retry.max_attempts"]),
        initial_interval_seconds=float(values["retry.initial_interval_seconds"]),
        heartbeat_timeout_seconds=float(values["worker.heartbeat_timeout_seconds"]),
    )


@dataclass(frozen=True)
class PrepDefaults:
    """What every preparation started now is admitted under: the current profile version,
    the retry settings and whether materials are written, in ``tenant``."""

    profile_version: int
    retry: RetrySettings
    materials: bool
    tenant: str


def prep_defaults(home: Home, store: Store) -> PrepDefaults:
    """Read once per batch of starts (the tenant's config.yaml and settings)."""
    if home.tenant != store.tenant:
        raise ValueError(f"home of {home.tenant} with the store of {store.tenant}")
    version = profiles.version_of(store, load_config(home).profile)
    values = Settings(store).all()
    return PrepDefaults(
        version, retry_settings(values), bool(values["preparation.materials"]), store.tenant
    )


def _memo(tenant: str) -> dict[str, Any]:
    """What each start notes for an operator looking at Temporal (nothing reads it back:
    the tenant is in the input and the id)."""
    return {"tenant": tenant}


@dataclass(frozen=True)
class Started:
    workflow_id: str
    run_id: str


Input = TypeVar("Input")


async def _start_or_join(
    client: Client,
    run: MethodAsyncSingleParam[Any, Input, Any],
    inp: Input,
    *,
    workflow_id: str,
    tenant: str,
    reuse: WorkflowIDReusePolicy,
) -> Started:
    """Start ``run`` under ``workflow_id`` on this home's task queue, or join the execution
    running under it (``USE_EXISTING``). Under ``REJECT_DUPLICATE`` an execution that
    already ran and closed is the answer: its run, nothing new (``ALLOW_DUPLICATE`` starts
    a new one after it). The run id is "" when Temporal gave none."""
    try:
        handle = await client.start_workflow(
            run,
            inp,
            id=workflow_id,
            task_queue=default_task_queue(),
            memo=_memo(tenant),
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            id_reuse_policy=reuse,
        )
        run_id = handle.result_run_id or ""
    except WorkflowAlreadyStartedError:  # it ran and closed: that execution is the answer
        run_id = (await client.get_workflow_handle(workflow_id).describe()).run_id
    return Started(workflow_id, run_id)


async def start_preparation_execution(
    client: Client,
    job_id: str,
    key: str,
    defaults: PrepDefaults,
    *,
    workflow_id: str | None = None,
    materials: bool | None = None,
    paid_score: bool = False,
) -> Started:
    """Start the job's JobPreparationWorkflow, or find the execution already running
    under that id. Nothing is recorded in the store (see ``start_preparation``).
    ``paid_score`` asks a paid Score lane whatever the offline pre-score says."""
    workflow_id = workflow_id or ids.prep_workflow_id(key, defaults.tenant)
    inp = PrepInput(
        job_id,
        key,
        defaults.retry,
        profile_version=defaults.profile_version,
        materials=defaults.materials if materials is None else materials,
        tenant_id=defaults.tenant,
        paid_score=paid_score,
    )
    started = await _start_or_join(
        client,
        JobPreparationWorkflow.run,
        inp,
        workflow_id=workflow_id,
        tenant=defaults.tenant,
        reuse=WorkflowIDReusePolicy.REJECT_DUPLICATE,
    )
    if not started.run_id:
        raise JobctrlError(f"Temporal gave no run id for {workflow_id}", code=TEMPORAL)
    return started


async def start_preparation(
    client: Client,
    home: Home,
    store: Store,
    job_id: str,
    key: str,
    *,
    workflow_id: str | None = None,
    materials: bool | None = None,
    clock: Clock | None = None,
) -> Started:
    """Start (or find) the job's preparation and record it (``WorkflowStarted``, stamped
    with ``clock``)."""
    defaults = await asyncio.to_thread(prep_defaults, home, store)
    started = await start_preparation_execution(
        client, job_id, key, defaults, workflow_id=workflow_id, materials=materials
    )
    await asyncio.to_thread(
        workflow_runs.record_workflow_started,
        store,
        workflow_id=started.workflow_id,
        run_id=started.run_id,
        workflow_type=WorkflowType.PREPARATION.value,
        job_id=job_id,
        clock=clock,
    )
    return started


async def start_recovery(
    client: Client,
    store: Store,
    workflow_id: str,
    inp: RecoveryInput,
    *,
    clock: Clock | None = None,
) -> Started:
    """Start a reserved recovery cohort under its saved id, or find its execution (one
    that already ran: ``REJECT_DUPLICATE`` never makes a second); recorded as started.
    The cohort is the store's tenant's (its input says so whatever it said)."""
    inp = replace(inp, tenant_id=store.tenant)
    started = await _start_or_join(
        client,
        PreparationRecoveryWorkflow.run,
        inp,
        workflow_id=workflow_id,
        tenant=inp.tenant_id,
        reuse=WorkflowIDReusePolicy.REJECT_DUPLICATE,
    )
    await asyncio.to_thread(recovery.bind_run, store, workflow_id, started.run_id, clock=clock)
    return started


async def start_discovery(client: Client, store: Store) -> Started:
    """Start the tenant's ``discover-<tenant>``, or join the run in progress; recorded as
    started."""
    values = await asyncio.to_thread(Settings(store).all)
    started = await _start_or_join(
        client,
        DiscoverWorkflow.run,
        DiscoverInput(store.tenant, retry_settings(values)),
        workflow_id=ids.discover_workflow_id(store.tenant),
        tenant=store.tenant,
        reuse=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )
    await asyncio.to_thread(
        workflow_runs.record_workflow_started,
        store,
        workflow_id=started.workflow_id,
        run_id=started.run_id,
        workflow_type=WorkflowType.DISCOVERY.value,
        job_id=None,
    )
    return started


def availability_sweep_id(tenant: str) -> str:
    """``availability-sweep-<tenant>``; a home with a task queue of its own (homes sharing
    one server, ``JOBCTRL_TASK_QUEUE``) has its own: a sweep left running by another
    home's stopped worker must not stand in for this one's (``USE_EXISTING`` would join
    it, and no worker of this home polls its queue)."""
    queue = default_task_queue()
    if queue == DEFAULT_TASK_QUEUE:
        return ids.availability_sweep_id(tenant)
    return f"{ids.availability_sweep_id(tenant)}-{queue}"


async def start_availability_sweep(client: Client, inp: SweepInput) -> None:
    """Start the input's tenant's sweep, or leave the one running alone."""
    await _start_or_join(
        client,
        AvailabilitySweepWorkflow.run,
        inp,
        workflow_id=availability_sweep_id(inp.tenant_id),
        tenant=inp.tenant_id,
        reuse=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )


async def start_apply(client: Client, store: Store, job_id: str | None, occasion: str) -> Started:
    """Start the tenant's standing apply loop (``job_id`` None: ``apply-auto-<tenant>``,
    or join the one running) or one job's apply (once per ``occasion``); recorded as
    started."""
    values = await asyncio.to_thread(Settings(store).all)
    retry, tenant = retry_settings(values), store.tenant
    if job_id is None:
        workflow_id = ids.apply_loop_id(tenant)
        reuse = WorkflowIDReusePolicy.ALLOW_DUPLICATE
        inp = ApplyWorkflowInput(
            continuous=True, auto_apply_loop=True, retry=retry, tenant_id=tenant
        )
    else:
        workflow_id = ids.apply_workflow_id(job_id, occasion, tenant)
        reuse = WorkflowIDReusePolicy.REJECT_DUPLICATE
        inp = ApplyWorkflowInput(job_id=job_id, retry=retry, tenant_id=tenant)
    started = await _start_or_join(
        client, ApplyWorkflow.run, inp, workflow_id=workflow_id, tenant=tenant, reuse=reuse
    )
    await asyncio.to_thread(
        workflow_runs.record_workflow_started,
        store,
        workflow_id=workflow_id,
        run_id=started.run_id,
        workflow_type=WorkflowType.APPLY.value,
        job_id=job_id,
    )
    return started


async def start_contact_research(
    client: Client, store: Store, *, task_id: str, job_id: str, request_key: str
) -> Started:
    """Start the research run of ``task_id`` (``contacts-[<tenant>-]{jobId}-<12 hex>``,
    once per job and request: a repeated start joins it, or finds it closed); recorded
    as started."""
    values = await asyncio.to_thread(Settings(store).all)
    tenant = store.tenant
    workflow_id = ids.contact_research_workflow_id(job_id, request_key, tenant)
    inp = ContactResearchInput(task_id, retry_settings(values), tenant)
    started = await _start_or_join(
        client, ContactResearchWorkflow.run, inp, workflow_id=workflow_id, tenant=tenant,
        reuse=WorkflowIDReusePolicy.REJECT_DUPLICATE,
    )  # fmt: skip
    await asyncio.to_thread(
        workflow_runs.record_workflow_started,
        store,
        workflow_id=workflow_id,
        run_id=started.run_id,
        workflow_type=WorkflowType.CONTACT_RESEARCH.value,
        job_id=job_id,
    )
    return started


async def running_run(client: Client, workflow_id: str) -> Started | None:
    """The execution running under ``workflow_id`` on this home's task queue (None: none
    runs; one of another home sharing the server is not ours)."""
    description = await describe(client, workflow_id)
    if description is None or description.status != WorkflowExecutionStatus.RUNNING:
        return None
    if description.task_queue != default_task_queue():
        return None
    return Started(workflow_id, description.run_id)


async def cancel_running(client: Client, workflow_id: str) -> Started | None:
    """Ask the execution running under ``workflow_id`` on this home's task queue to cancel
    (None: none runs; one of another home sharing the server is left alone)."""
    running = await running_run(client, workflow_id)
    if running is None:
        return None
    await client.get_workflow_handle(workflow_id, run_id=running.run_id).cancel()
    return running


async def describe(client: Client, workflow_id: str) -> WorkflowExecutionDescription | None:
    """The latest execution under ``workflow_id``, or None when Temporal has none."""
    try:
        return await client.get_workflow_handle(workflow_id).describe()
    except RPCError as exc:
        if exc.status == RPCStatusCode.NOT_FOUND:
            return None
        raise


async def any_running(client: Client, workflow_ids: Iterable[str]) -> bool:
    """True when Temporal describes the latest execution under one of ``workflow_ids``
    as running (observed state: what the store recorded may be out of date)."""
    for workflow_id in dict.fromkeys(workflow_ids):
        description = await describe(client, workflow_id)
        if description is not None and description.status == WorkflowExecutionStatus.RUNNING:
            return True
    return False


async def describe_run(
    client: Client, workflow_id: str, run_id: str
) -> WorkflowExecutionDescription | None:
    """That exact execution (``run_id``), or None when the history Temporal can reach now
    has no such run (or it refuses the run id as none it could have: INVALID_ARGUMENT);
    ``RPCError`` with a ``SERVER_AWAY`` status when it does not answer."""
    try:
        return await client.get_workflow_handle(workflow_id, run_id=run_id).describe()
    except RPCError as exc:
        if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            return None
        raise


async def cancel_run(client: Client, workflow_id: str, run_id: str) -> bool:
    """Ask that exact execution to cancel; False when it is not running (closed, gone)."""
    description = await describe_run(client, workflow_id, run_id)
    if description is None or description.status != WorkflowExecutionStatus.RUNNING:
        return False
    await client.get_workflow_handle(workflow_id, run_id=run_id).cancel()
    return True


async def terminate_run(client: Client, workflow_id: str, run_id: str, reason: str) -> bool:
    """Terminate that exact execution (a stop whose cancels it did not honour); False when
    it is not running (closed meanwhile, or gone)."""
    description = await describe_run(client, workflow_id, run_id)
    if description is None or description.status != WorkflowExecutionStatus.RUNNING:
        return False
    try:
        await client.get_workflow_handle(workflow_id, run_id=run_id).terminate(reason=reason)
    except RPCError as exc:
        if exc.status == RPCStatusCode.NOT_FOUND:  # it closed between the two calls
            return False
        raise
    return True


async def run_known(client: Client, workflow_id: str, run_id: str) -> bool:
    """True when Temporal has that exact execution (running or closed), before a command
    acts on it; False when it has no such run, or refuses the run id as none it could
    have. ``temporal_unavailable`` when the server does not answer."""
    try:
        return await describe_run(client, workflow_id, run_id) is not None
    except RPCError as exc:
        if exc.status in SERVER_AWAY:
            raise UnavailableError(f"the Temporal server did not answer: {exc.message}") from None
        raise


@dataclass(frozen=True)
class ObservedRun:
    """An execution Temporal lists as running on this home's task queue."""

    workflow_id: str
    run_id: str
    workflow_type: str
    started_at: Any  # datetime | None


async def running_on_queue(client: Client, limit: int = 1000) -> list[ObservedRun]:
    """The executions Temporal lists as running on this home's task queue (at most
    ``limit``), every tenant's: observed state, to compare with what the store expects
    (``worker.reconcile.by_tenant`` parts them)."""
    query = f"ExecutionStatus = 'Running' AND TaskQueue = '{default_task_queue()}'"
    found: list[ObservedRun] = []
    async for execution in client.list_workflows(query, limit=limit):
        found.append(
            ObservedRun(
                execution.id, execution.run_id, execution.workflow_type, execution.start_time
            )
        )
    return found


@dataclass(frozen=True)
class QueueObservation:
    """Approximate task-queue facts Temporal reports (infrastructure, never job counts)."""

    workflow_pollers: int
    activity_pollers: int
    activity_backlog: int | None  # tasks waiting, when the server reports stats
    activity_backlog_age_seconds: float | None


async def observe_task_queue(client: Client) -> QueueObservation:
    """Pollers and backlog of this home's task queue, as Temporal reports them now."""

    async def describe(kind: TaskQueueType.ValueType, stats: bool) -> Any:
        return await client.workflow_service.describe_task_queue(
            DescribeTaskQueueRequest(
                namespace=client.namespace,
                task_queue=TaskQueue(name=default_task_queue()),
                task_queue_type=kind,
                report_stats=stats,
            )
        )

    workflows = await describe(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, False)
    activities = await describe(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, True)
    backlog: int | None = None
    age: float | None = None
    if activities.HasField("stats"):
        backlog = int(activities.stats.approximate_backlog_count)
        age = activities.stats.approximate_backlog_age.ToTimedelta().total_seconds()
    return QueueObservation(len(workflows.pollers), len(activities.pollers), backlog, age)


async def running_discovery(
    client: Client, tenant: str, workflow_ids: Iterable[str] = ()
) -> Started | None:
    """The tenant's discovery run Temporal describes as running: the one under
    ``discover-<tenant>``, or one the schedule started (``discover-<tenant>-<time>``)
    among ``workflow_ids`` (the discovery runs the tenant's store holds as open)."""
    for workflow_id in dict.fromkeys([ids.discover_workflow_id(tenant), *workflow_ids]):
        description = await describe(client, workflow_id)
        if description is not None and description.status == WorkflowExecutionStatus.RUNNING:
            return Started(workflow_id, description.run_id)
    return None


async def cancel_discovery(
    client: Client, tenant: str, workflow_ids: Iterable[str] = ()
) -> Started:
    """Ask the tenant's discovery run in progress (``running_discovery``) to cancel (what
    it found so far stays)."""
    running = await running_discovery(client, tenant, workflow_ids)
    if running is None:
        raise JobctrlError("no discovery run is in progress", code=NOT_RUNNING)
    await client.get_workflow_handle(running.workflow_id, run_id=running.run_id).cancel()
    return running


CANCELS_AT_ONCE = 16  # concurrent cancel requests to the Temporal server


async def cancel_runs(client: Client, runs: Iterable[tuple[str, str]]) -> None:
    """Ask each exact execution (workflow id, run id) to cancel, several at a time; one
    that fails is logged and left to the worker's heartbeat (its stop request is recorded
    by the caller)."""
    gate = asyncio.Semaphore(CANCELS_AT_ONCE)

    async def cancel(workflow_id: str, run_id: str) -> None:
        async with gate:
            try:
                await cancel_run(client, workflow_id, run_id)
            except Exception:
                log.warning("cancel of %s (run %s) is left to the worker", workflow_id, run_id)

    await asyncio.gather(*(cancel(w, r) for w, r in runs))


async def wait_closed(client: Client, started: Started, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for that exact execution to close; whether it did."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        description = await describe_run(client, started.workflow_id, started.run_id)
        if description is None or description.status != WorkflowExecutionStatus.RUNNING:
            return True
        if asyncio.get_running_loop().time() >= deadline:
            return False
        await asyncio.sleep(0.2)


async def wait_for_result(
    client: Client, started: Started, timeout: float, *, still_running: str
) -> None:
    """Wait until the execution closes; a failed one is fine (its rows say why), one
    still running after ``timeout`` seconds is a ``wait_timeout`` saying ``still_running``.

    Each outage of the server is given ``SERVER_GRACE_SECONDS`` on its own: once the
    server answers again, the next outage is timed from its own start."""
    handle: WorkflowHandle[Any, Any] = client.get_workflow_handle(
        started.workflow_id, run_id=started.run_id
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    lost_since: float | None = None
    while True:
        try:
            await asyncio.wait_for(handle.result(), max(0.0, deadline - loop.time()))
            return
        except WorkflowFailureError:
            return  # the failure is recorded where the person looks: the stage rows, the run
        except TimeoutError:
            raise JobctrlError(still_running, code=WAIT_TIMEOUT) from None
        except RPCError as exc:
            # The server went away (a worker restarts the one it runs within seconds):
            # wait for it, then say so in one line.
            if exc.status not in WAIT_AWAY:
                raise
            lost_since = lost_since or loop.time()
            if loop.time() - lost_since > SERVER_GRACE_SECONDS or loop.time() > deadline:
                raise UnavailableError(
                    "the Temporal server stopped answering while waiting; the work is "
                    "saved and goes on when a worker runs (`jobctrl up`)"
                ) from None
            await asyncio.sleep(0.5)
            if await _answers(handle):
                lost_since = None  # this outage is over


async def _answers(handle: WorkflowHandle[Any, Any]) -> bool:
    """True when the server answers a call about ``handle`` (whatever the answer)."""
    try:
        await asyncio.wait_for(handle.describe(), 2.0)
    except TimeoutError:
        return False
    except RPCError as exc:
        return exc.status not in WAIT_AWAY
    return True


# When this process last saw a worker poll a queue (by server, namespace and queue): a
# command or the web app adding many jobs in a row asks the server once, not per job.
_polled_at: dict[tuple[str, str, str], float] = {}
POLLED_RECENTLY_SECONDS = 2.0


async def worker_polling(client: Client, patience: float = 5.0) -> bool:
    """True when some worker polls this home's task queue (a worker that has just started
    shows up within a moment, so an empty answer is asked again for ``patience`` s);
    ``UnavailableError`` when the server does not answer. A poller this process saw in
    the last ``POLLED_RECENTLY_SECONDS`` counts without asking again."""
    queue = default_task_queue()
    seen = (client.service_client.config.target_host, client.namespace, queue)
    loop = asyncio.get_running_loop()
    if loop.time() - _polled_at.get(seen, float("-inf")) < POLLED_RECENTLY_SECONDS:
        return True
    request = DescribeTaskQueueRequest(
        namespace=client.namespace,
        task_queue=TaskQueue(name=queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    deadline = loop.time() + patience
    while True:
        try:
            pollers = (await client.workflow_service.describe_task_queue(request)).pollers
        except RPCError as exc:
            if exc.status not in SERVER_AWAY:
                raise
            raise UnavailableError("the Temporal server does not answer") from None
        if pollers:
            _polled_at[seen] = loop.time()
            return True
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.25)


# -- the discovery schedule ------------------------------------------------------------------


def _schedule(cron: str, inp: DiscoverInput) -> Schedule:
    return Schedule(
        action=ScheduleActionStartWorkflow(
            DiscoverWorkflow.run,
            inp,
            id=ids.discover_workflow_id(inp.tenant_id),
            task_queue=default_task_queue(),
            memo=_memo(inp.tenant_id),
        ),
        spec=ScheduleSpec(cron_expressions=[cron]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        # The note records the desired cron as applied: Temporal describes a cron spec back
        # as calendar entries, which cannot be compared with the setting directly.
        state=ScheduleState(note=f"cron={cron}"),
    )


async def reconcile_schedule(client: Client, values: Mapping[str, Any], tenant: str) -> str:
    """Make the tenant's ``jobctrl-discovery-<tenant>`` match its settings snapshot
    ``values``: created, updated or deleted while the two differ; returns what was done."""
    enabled, cron = bool(values["discovery.schedule_enabled"]), values["discovery.schedule_cron"]
    schedule_id = ids.discovery_schedule_id(tenant)
    handle = client.get_schedule_handle(schedule_id)
    try:
        observed = await handle.describe()
    except RPCError as exc:
        if exc.status != RPCStatusCode.NOT_FOUND:
            raise
        observed = None
    if not enabled:
        if observed is None:
            return "absent"
        await handle.delete()
        return "deleted"
    desired = _schedule(cron, DiscoverInput(tenant, retry_settings(values)))
    if observed is None:
        await client.create_schedule(schedule_id, desired)
        return "created"
    if observed.schedule.state.note == desired.state.note:
        return "unchanged"

    def update(_: ScheduleUpdateInput) -> ScheduleUpdate:
        return ScheduleUpdate(schedule=desired)

    await handle.update(update)
    return "updated"
