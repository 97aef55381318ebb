"""The worker's heartbeat: every `worker.heartbeat_seconds` it brings observed state in
line with desired state, so a settings change takes effect without a restart.

- The runtime inventory: what this worker executes now, written to the store at the
  heartbeat's interval on its own (``worker.inventory``), so `jobctrl ops` can tell a
  live worker from a stale report even while a duty is slow.
- Runs: every run the store believes open is checked against its exact Temporal
  execution; orphans are listed and stop requests re-issued (``worker.reconcile``).
- The discovery schedule (`jobctrl-discovery-local`): desired state is the
  `discovery.schedule_*` settings; observed state is what Temporal describes. The
  schedule is created, updated or deleted while the two differ
  (``workflows.starts.reconcile_schedule``).
- Saved posting checks: when some are due, a bounded sweep runs as its own workflow
  (`availability-sweep-local`, one at a time), whose activity heartbeats per check.
- The standing apply loop (`apply-auto-local`): desired state is `auto_apply`; it is
  started while on (unless a spent budget halts it for the UTC day) and cancelled while
  off (``worker.apply_loop``).
- Email sends whose process died are settled (``stages.apply_email``).
- Start intents: preparations a command recorded but did not start are started.
- Budget recovery: jobs stopped by a spent budget resume after the UTC day rolls over.
- Automatic recovery: retryable failed stages are dispatched again in frozen cohorts,
  one per beat, with backoff and a cap (``worker.auto_recovery``).
- Public-fetch recheck: an Enrich refused because its host resolved to a non-public
  address is resolved again, and returned to pending once it is public
  (``worker.public_fetch_recovery``).
- config.yaml: while it cannot be read, a notice (once, not per job or beat); once it
  can be, the stages that stopped for it resume.

With several workers on one deployment (one task queue), the duties above but the
inventory and the config.yaml notice are singletons: they run in the one worker that
holds the task queue's lease (``store.leases``, renewed before each duty, taken over by
another worker once a dead holder's lease expires), so nothing is dispatched twice.

A duty that meets a known condition says so once and again when it changes, never on
every beat; an unexpected failure is logged with its traceback (to the worker's log).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError

from jobctrl.config import load_config
from jobctrl.domain.errors import JobctrlError
from jobctrl.stages import apply_email
from jobctrl.stages.context import StageContext
from jobctrl.store import availability as evidence
from jobctrl.store import leases
from jobctrl.store.settings import spec_for
from jobctrl.worker.apply_loop import reconcile_apply_loop
from jobctrl.worker.auto_recovery import recover_preparations
from jobctrl.worker.inventory import RuntimeInventory, worker_identity
from jobctrl.worker.public_fetch_recovery import recheck_public_fetch
from jobctrl.worker.reconcile import reconcile_runs
from jobctrl.worker.recovery import (
    resume_budget_stopped,
    resume_config_stopped,
    start_intended,
)
from jobctrl.workflows.client import default_task_queue
from jobctrl.workflows.models import SweepInput
from jobctrl.workflows.starts import reconcile_schedule, start_availability_sweep

log = logging.getLogger(__name__)
SWEEP_BUDGET_SECONDS = 20 * 60  # a sweep starts no new check after this (spec: 20 min)
LEASE_BEATS = 3  # a holder that missed this many beats has lost the lease
LEASE_MIN_SECONDS = 90.0  # longer than one duty's worst case (the recheck: 5 × 10 s)


def _dead_here(identity: str) -> bool:
    """True when ``identity`` (``host~space:pid:token``) is a process of this host that no
    longer exists: its lease need not be waited out."""
    host, _, rest = identity.partition(":")
    pid = rest.partition(":")[0]
    if not pid.isdigit() or host != worker_identity().partition(":")[0]:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive (another user's)
        return False
    return False


class WorkerHeartbeat:
    def __init__(
        self, client: Client, ctx: StageContext, *, inventory: RuntimeInventory | None = None
    ) -> None:
        self.client = client
        self.ctx = ctx
        self.inventory = inventory
        self.beats = 0
        self.identity = inventory.worker_id if inventory else worker_identity()
        self.lease = f"heartbeat-duties:{default_task_queue()}"
        self.leading = False
        self._said: dict[str, str | None] = {}
        self._intents_failed: dict[str, str] = {}  # an intent that cannot start: its code

    def _notice(self, duty: str, message: str | None) -> None:
        """Say what is wrong with a duty once, when it starts or changes, and once more
        when it is right again; not on every beat."""
        if self._said.get(duty) == message:
            return
        if message is not None:
            log.warning("%s", message)
        elif self._said.get(duty) is not None:
            log.warning("%s: working again", duty)
        self._said[duty] = message

    async def _lead(self, values: dict[str, Any]) -> bool:
        """Hold (or renew) the task queue's lease; True while this worker holds it."""
        ttl = max(LEASE_MIN_SECONDS, LEASE_BEATS * float(values["worker.heartbeat_seconds"]))
        store, lease = self.ctx.store, timedelta(seconds=ttl)
        leading = await asyncio.to_thread(leases.hold, store, self.lease, self.identity, lease)
        if not leading:  # held: by a process of this host that is gone (kill -9)?
            held = await asyncio.to_thread(leases.holder, store, self.lease)
            if held is not None and _dead_here(held["holder"]):
                leading = await asyncio.to_thread(
                    leases.take_over, store, self.lease, held["holder"], self.identity, lease
                )
        if leading != self.leading:
            log.info(
                "heartbeat duties: %s",
                "this worker runs them" if leading else "another worker runs them",
            )
            self.leading = leading
        return leading

    async def step_down(self) -> None:
        """A worker stopping gives the lease up: another takes it at its next beat."""
        if self.leading:
            await asyncio.to_thread(leases.release, self.ctx.store, self.lease, self.identity)
            self.leading = False

    async def beat(self) -> None:
        values = await asyncio.to_thread(self.ctx.settings.all)
        await self._config()
        if not await self._lead(values):
            self.beats += 1
            return  # another worker of this deployment runs the duties
        duties: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("reconciling runs", lambda: reconcile_runs(self.client, self.ctx)),
            ("the discovery schedule", lambda: self._schedule(values)),
            ("availability checks", lambda: self._availability(values)),
            (
                "the standing apply loop",
                lambda: reconcile_apply_loop(self.client, self.ctx, values),
            ),
            ("settling interrupted sends", self._settle_dead_senders),
            (
                "starting intended preparations",
                lambda: start_intended(self.client, self.ctx, failed=self._intents_failed),
            ),
            ("resuming budget-stopped jobs", lambda: resume_budget_stopped(self.client, self.ctx)),
            ("resuming config-stopped jobs", self._resume_config_stopped),
            ("public-fetch recheck", lambda: recheck_public_fetch(self.ctx, values)),
            ("automatic recovery", lambda: recover_preparations(self.client, self.ctx, values)),
        ]
        for duty, run in duties:
            if not await self._lead(values):  # renewed before each duty: a slow pass
                break  # never outlives the lease while another worker takes it over
            try:
                await run()
                self._notice(duty, None)
            except JobctrlError as exc:  # a known condition: said once, in one line
                self._notice(duty, f"{duty}: {exc.message}")
            except RPCError as exc:  # the server is away (being restarted, say)
                self._notice(duty, f"{duty}: the Temporal server did not answer ({exc.message})")
            except Exception:
                log.exception("%s failed", duty)
        self.beats += 1

    async def _config(self) -> None:
        """A notice while config.yaml cannot be read: the stages that need it wait (they
        stop with ``config_invalid``, using no attempt) and resume once it can be."""
        try:
            await asyncio.to_thread(load_config, self.ctx.home)
        except JobctrlError as exc:
            self._notice(
                "config.yaml",
                f"notice: {exc.message}; jobs that need config.yaml wait until it is fixed",
            )
            return
        self._notice("config.yaml", None)

    async def _resume_config_stopped(self) -> None:
        if self._said.get("config.yaml") is None:
            await resume_config_stopped(self.client, self.ctx)

    async def _settle_dead_senders(self) -> None:
        """An email send whose process died is settled (``unknown`` once its data went out,
        else ``failed``), so it never stays ``sending`` until the next apply command."""
        settled = await asyncio.to_thread(
            apply_email.settle_dead_senders, self.ctx.store, clock=self.ctx.clock
        )
        if settled:
            log.warning("settled %d email send(s) whose process died", settled)
        # A browser prefill whose process died would otherwise hold its job until the next
        # `apply --browser`: every resolve, send and loop claim refuses a live attempt.
        ended = await asyncio.to_thread(
            apply_email.settle_dead_prefills, self.ctx.store, clock=self.ctx.clock
        )
        if ended:
            log.warning("ended %d browser prefill(s) whose process died", ended)

    async def _schedule(self, values: dict[str, Any]) -> None:
        done = await reconcile_schedule(self.client, values)
        if done not in ("unchanged", "absent"):
            log.warning("discovery schedule %s", done)

    async def _availability(self, values: dict[str, Any]) -> None:
        """Start a sweep (its own workflow and activity) when checks are due."""
        if not values["availability.enabled"]:
            return
        due = await asyncio.to_thread(evidence.due_jobs, self.ctx.store, self.ctx.now(), 1)
        if due:
            await start_availability_sweep(
                self.client,
                SweepInput(
                    limit=int(values["availability.batch_size"]),
                    budget_seconds=SWEEP_BUDGET_SECONDS,
                    heartbeat_timeout_seconds=float(values["worker.heartbeat_timeout_seconds"]),
                ),
            )

    async def _publish_inventory(self, stop: asyncio.Event) -> None:
        """The runtime inventory on its own cadence (the heartbeat's interval): a slow
        duty (a reconcile pass on a loaded machine) never makes a live worker read stale."""
        assert self.inventory is not None
        duty = "the runtime inventory"
        interval = float(spec_for("worker.heartbeat_seconds").default)
        while not stop.is_set():
            try:
                await self.inventory.publish(self.client, self.ctx)
                interval = float(
                    await asyncio.to_thread(self.ctx.settings.get, "worker.heartbeat_seconds")
                )
                self._notice(duty, None)
            except JobctrlError as exc:  # database_busy: this report is skipped
                self._notice(duty, f"{duty}: {exc.message}")
            except Exception:
                log.exception("%s failed", duty)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)

    async def run(self, stop: asyncio.Event) -> None:
        """Beat until ``stop`` (the runtime inventory is published alongside, on its own
        cadence). A beat that fails as a whole (the settings cannot be read while another
        process holds the database, say) is said once and the next beat comes as usual:
        the loop never ends before ``stop``."""
        inventory = None
        if self.inventory is not None:
            inventory = asyncio.create_task(self._publish_inventory(stop))
        try:
            await self._beats(stop)
        finally:
            if inventory is not None:
                await inventory
            try:
                await self.step_down()
            except Exception:  # it expires on its own
                log.warning("heartbeat duties: the lease was not given up; it expires")

    async def _beats(self, stop: asyncio.Event) -> None:
        interval = float(spec_for("worker.heartbeat_seconds").default)
        while not stop.is_set():
            try:
                await self.beat()
                interval = float(
                    await asyncio.to_thread(self.ctx.settings.get, "worker.heartbeat_seconds")
                )
                self._notice("the heartbeat", None)
            except JobctrlError as exc:  # database_busy: this beat is skipped, not the next
                said = f"the heartbeat skipped a beat ({exc.code}: {exc.message})"
                self._notice("the heartbeat", said)
            except Exception:
                log.exception("the heartbeat failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
