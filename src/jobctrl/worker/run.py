"""The worker process: the embedded Temporal server (unless one is configured), a Temporal
worker for the workflows (preparation, discovery, availability sweep, apply) and their
activities, and a clean shutdown on SIGINT/SIGTERM (worker first, then the server it owns).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from temporalio.client import Client
from temporalio.worker import Worker

from jobctrl.domain.errors import UnavailableError
from jobctrl.domain.tenants import LOCAL
from jobctrl.home import Home
from jobctrl.stages.context import StageContext
from jobctrl.store.health import retention_days
from jobctrl.store.store import Store
from jobctrl.worker.devserver import EmbeddedTemporal
from jobctrl.worker.heartbeat import WorkerHeartbeat
from jobctrl.worker.inventory import RuntimeInventory
from jobctrl.worker.reconcile import reconcile_on_start
from jobctrl.workflows.activities import (
    PreparationActivities,
    activity_cancelled,
    activity_heartbeat,
    activity_keep_alive,
)
from jobctrl.workflows.apply import ApplyWorkflow
from jobctrl.workflows.apply_activities import ApplyActivities
from jobctrl.workflows.availability import AvailabilitySweepWorkflow
from jobctrl.workflows.availability_activities import AvailabilityActivities
from jobctrl.workflows.client import connect, default_task_queue, set_namespace_retention
from jobctrl.workflows.contact_activities import ContactActivities
from jobctrl.workflows.contacts import ContactResearchWorkflow
from jobctrl.workflows.discover import DiscoverWorkflow
from jobctrl.workflows.discover_activities import DiscoveryActivities
from jobctrl.workflows.prep import JobPreparationWorkflow
from jobctrl.workflows.recovery import PreparationRecoveryWorkflow
from jobctrl.workflows.recovery_activities import RecoveryActivities

log = logging.getLogger(__name__)
MAX_ACTIVITIES = 16  # activity slots of one worker process (its capacity)
# Seconds a stopping Temporal worker may take: a clean shutdown takes well under one, but
# its last step waits, without a limit, on the SDK's core, and twice under load a test's
# worker waited there for good (tests/support/worker.py tells that story).
SHUTDOWN_TIMEOUT = 30.0
BEAT_GRACE = 5.0  # seconds a beat under way may take to end once the worker stops
WORKFLOWS = [
    JobPreparationWorkflow,
    DiscoverWorkflow,
    AvailabilitySweepWorkflow,
    ApplyWorkflow,
    PreparationRecoveryWorkflow,
    ContactResearchWorkflow,
]


async def _supervise(
    server: EmbeddedTemporal,
    stop: asyncio.Event,
    on_server_lost: Callable[[UnavailableError], None] | None,
) -> None:
    try:
        await server.supervise(stop)
    except UnavailableError as exc:
        if on_server_lost is not None:
            on_server_lost(exc)  # a process entry point ends here (see run_worker)
        raise
    finally:
        stop.set()  # the server is gone for good (or we are stopping): so is the worker


async def keep_histories(client: Client, store: Store) -> None:
    """Set the embedded server's namespace retention to ``temporal.retention_days`` (its
    own default is one day: a run the store still held open a day after Temporal closed it
    could no longer be settled from its history)."""
    days = retention_days(store)
    try:
        await set_namespace_retention(client, timedelta(days=days))
    except Exception:
        log.exception("setting the Temporal namespace's history retention failed")


def quiet_expected_failures() -> None:
    """Stage errors are expected outcomes, logged in one line by our activities; the SDK's
    own log of each failed attempt would repeat them with a traceback."""
    logging.getLogger("temporalio.activity").setLevel(logging.ERROR)


def build_worker(
    client: Client,
    store: Store,
    home: Home,
    *,
    task_queue: str | None = None,
    max_activities: int = MAX_ACTIVITIES,
    clock: Callable[[], datetime] | None = None,
    inventory: RuntimeInventory | None = None,
) -> tuple[Worker, StageContext]:
    """A Temporal worker for the workflows and their activities, and the stage context
    they share (``clock``, default the current UTC time, stamps every stage write);
    ``inventory`` observes what its activities execute (the runtime heartbeat). A
    workflow's next task waits ``worker.sticky_timeout_seconds`` for this worker (its
    cached workflow) before any worker takes it: the pause after this worker dies."""
    quiet_expected_failures()
    ctx = StageContext(
        home=home,
        store=store,
        heartbeat=activity_heartbeat,
        keep_alive=activity_keep_alive,
        stopping=activity_cancelled,
    )
    if clock is not None:
        ctx.clock = clock
    acts = PreparationActivities(ctx)
    discovery = DiscoveryActivities(ctx, client)
    upkeep = AvailabilityActivities(ctx)
    apply = ApplyActivities(ctx)
    recovery = RecoveryActivities(ctx)
    contacts = ContactActivities(ctx)
    worker = Worker(
        client,
        task_queue=task_queue or default_task_queue(),
        workflows=WORKFLOWS,
        activities=[
            *acts.all(),
            *discovery.all(),
            *upkeep.all(),
            *apply.all(),
            *recovery.all(),
            *contacts.all(),
        ],
        interceptors=inventory.interceptors() if inventory else [],
        activity_executor=ThreadPoolExecutor(max_activities),
        max_concurrent_activities=max_activities,
        max_concurrent_local_activities=max_activities,
        sticky_queue_schedule_to_start_timeout=timedelta(
            seconds=float(ctx.settings.get("worker.sticky_timeout_seconds"))
        ),
    )
    return worker, ctx


@contextlib.asynccontextmanager
async def serving(worker: Worker, *, timeout: float = SHUTDOWN_TIMEOUT) -> AsyncIterator[None]:
    """``async with worker`` whose exit is bounded by ``timeout`` seconds: a worker whose
    shutdown hangs is left behind (logged) so the process still stops, its store and
    embedded server closed; the server hands whatever it held to another worker once the
    activities' heartbeat timeouts pass. A fatal worker error still ends the block."""
    await worker.__aenter__()
    failed: type[BaseException] | None = None
    try:
        yield
    except BaseException as err:
        failed = type(err)
        raise
    finally:
        leaving = asyncio.ensure_future(worker.__aexit__(failed, None, None))
        done, _ = await asyncio.wait({leaving}, timeout=timeout)
        if done:
            leaving.result()
        else:
            leaving.cancel()
            log.error(
                "the Temporal worker had not shut down after %.0f s: stopping without it", timeout
            )


async def _settle(task: asyncio.Task[None], grace: float) -> None:
    """Let ``task`` end within ``grace`` seconds, else cancel it: a beat under way when the
    worker stops (its Temporal calls retrying against a server already gone, after a
    Ctrl-C that reached the server too) must not hold the stop for its retries."""
    done, _ = await asyncio.wait({task}, timeout=grace)
    if not done:
        task.cancel()
        log.warning("the heartbeat's beat had not ended %.0f s after stop: cancelled", grace)
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def run_worker(
    home: Home,
    *,
    on_ready: Callable[[str], None] | None = None,
    alongside: Callable[[asyncio.Event], Awaitable[None]] | None = None,
    on_server_lost: Callable[[UnavailableError], None] | None = None,
) -> None:
    """Run until SIGINT/SIGTERM; the embedded server this process started stops with it.

    ``alongside`` (the web app, for ``jobctrl up``) runs once the worker is ready and is
    given the stop event; the worker stops when it ends. The embedded server is
    supervised: restarted on its address if it dies; if it cannot be, the worker stops
    and the ``UnavailableError`` saying why is raised, or handed to ``on_server_lost``
    (``jobctrl worker`` reports it and exits at once: with no server left, a graceful
    shutdown of the Temporal worker would wait for pollers that never return).
    """
    # The worker serves every tenant: its own context is the local tenant's (the lease,
    # the heartbeat's interval), each activity and duty acts for its own tenant.
    home = home.with_tenant(LOCAL)
    home.ensure()
    store = Store.open(home)
    server: EmbeddedTemporal | None = None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        if not os.environ.get("JOBCTRL_TEMPORAL_ADDRESS"):
            server = EmbeddedTemporal(home)
            await server.ensure()
        client = await connect(home)
        if server is not None:  # a cluster's retention is its operator's (doctor shows it)
            await keep_histories(client, store)
        inventory = RuntimeInventory(capacity=MAX_ACTIVITIES, task_queue=default_task_queue())
        worker, ctx = build_worker(client, store, home, inventory=inventory)
        heartbeat = WorkerHeartbeat(client, ctx, inventory=inventory)
        try:  # before any activity runs: what the store believes open, against Temporal
            await reconcile_on_start(client, ctx)
        except Exception:
            log.exception("reconciling runs at start failed (the heartbeat tries again)")
        supervisor = (
            asyncio.create_task(_supervise(server, stop, on_server_lost)) if server else None
        )
        async with serving(worker):
            beats = asyncio.create_task(heartbeat.run(stop))
            if on_ready:
                on_ready(client.service_client.config.target_host)
            if alongside is not None:
                try:
                    await alongside(stop)
                finally:
                    stop.set()
            await stop.wait()
            await _settle(beats, BEAT_GRACE)
        try:  # a stopped worker reads unavailable (no row), never zero
            await asyncio.to_thread(inventory.withdraw, store)
        except Exception:
            log.exception("removing this worker's runtime heartbeat failed")
        ctx.close()
        if supervisor is not None:
            await supervisor  # raises if the server could not be brought back
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        if server is not None:
            server.stop()
        store.dispose()
