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
  (`availability-sweep-<tenant>`, one at a time for the whole deployment, the due
  tenants taking turns), whose activity heartbeats per check.
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

Tenants: the lease is the deployment's (one per task queue), and its holder runs the
duties above for each tenant with work (``local`` first), with that tenant's store,
config.yaml and settings (``ctx.for_tenant``): its own ``jobctrl-discovery-<tenant>``
schedule, ``apply-auto-<tenant>`` loop, sweep, recovery cohorts and orphans. Which tenants
have work, and which duties, one census per beat says (``worker.duty_plan``): an idle
tenant costs nothing. The queue is listed once per beat and parted by tenant
(``worker.reconcile.by_tenant``). The heartbeat's interval
and the lease's length are the ``local`` tenant's settings (one loop for all). A notice
about another tenant than ``local`` names it.

A duty that meets a known condition says so once and again when it changes, never on
every beat; an unexpected failure is logged with its traceback (to the worker's log).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError

from jobctrl.domain.duties import EVERY_DUTY, RECONCILING, Duty, duties_lease
from jobctrl.domain.errors import JobctrlError
from jobctrl.stages import apply_email
from jobctrl.stages.context import StageContext
from jobctrl.store import availability as evidence
from jobctrl.store import leases, tenants
from jobctrl.store.settings import spec_for
from jobctrl.worker.apply_loop import reconcile_apply_loop
from jobctrl.worker.auto_recovery import recover_preparations
from jobctrl.worker.config_watch import ConfigWatch
from jobctrl.worker.duty_plan import DutyPlan
from jobctrl.worker.inventory import RuntimeInventory, worker_identity
from jobctrl.worker.public_fetch_recovery import recheck_public_fetch
from jobctrl.worker.reconcile import by_tenant, reconcile_runs
from jobctrl.worker.recovery import (
    resume_budget_stopped,
    resume_config_stopped,
    start_intended,
)
from jobctrl.workflows.availability import SWEEP_WORKFLOW
from jobctrl.workflows.client import default_task_queue
from jobctrl.workflows.models import SweepInput
from jobctrl.workflows.starts import (
    ObservedRun,
    reconcile_schedule,
    running_on_queue,
    start_availability_sweep,
)

log = logging.getLogger(__name__)
SWEEP_BUDGET_SECONDS = 20 * 60  # a sweep starts no new check after this (spec: 20 min)
LEASE_BEATS = 3  # a holder that missed this many beats has lost the lease
LEASE_MIN_SECONDS = 90.0  # longer than one duty's worst case (the recheck: 5 × 10 s)
# A lease this worker holds is written again before a duty only once this many seconds
# have passed since it last was (at most a ninth of the lease): a duty then still starts
# with eight ninths of it left, and a beat over many tenants is not one write per duty.
RENEW_EVERY_SECONDS = 10.0


def _clocks() -> tuple[float, float]:
    return time.monotonic(), time.time()


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
        self,
        client: Client,
        ctx: StageContext,
        *,
        inventory: RuntimeInventory | None = None,
        every_tenant: bool = False,
    ) -> None:
        self.client = client
        self.ctx = ctx
        self.inventory = inventory
        self.every_tenant = every_tenant  # every duty, every tenant: the bench's baseline
        self.plan = DutyPlan()
        self._config_watch = ConfigWatch(ctx.home)
        self.beats = 0
        self.identity = inventory.worker_id if inventory else worker_identity()
        self.lease = duties_lease(default_task_queue())
        self.leading = False
        # When this worker last wrote its lease, by _clocks().
        self._renewed = (float("-inf"), float("-inf"))
        self._said: dict[str, str | None] = {}
        # Per tenant: an intent that cannot start, and its code.
        self._intents_failed: dict[str, dict[str, str]] = {}
        # Availability sweeps: the tenants due this beat, and whose sweep started last.
        self._sweeps_due: dict[str, SweepInput] = {}
        self._swept_last: str | None = None

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
        window = min(RENEW_EVERY_SECONDS, ttl / 9)
        # Renewed a moment ago by both clocks: the monotonic one does not advance while the
        # host is suspended (the lease's expiry, wall time, does), the wall one can step.
        since = [now - then for now, then in zip(_clocks(), self._renewed, strict=True)]
        if self.leading and all(0 <= s < window for s in since):
            return True  # most of the lease is left
        store, lease = self.ctx.store, timedelta(seconds=ttl)
        leading = await asyncio.to_thread(leases.hold, store, self.lease, self.identity, lease)
        if not leading:  # held: by a process of this host that is gone (kill -9)?
            held = await asyncio.to_thread(leases.holder, store, self.lease)
            if held is not None and _dead_here(held.holder):
                leading = await asyncio.to_thread(
                    leases.take_over, store, self.lease, held.holder, self.identity, lease
                )
        if leading:
            self._renewed = _clocks()
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

    def _label(self, tenant: str, what: str) -> str:
        """What a notice is about; another tenant than the worker's own is named."""
        return what if tenant == self.ctx.store.tenant else f"{what} (tenant {tenant})"

    async def beat(self) -> None:
        values = await asyncio.to_thread(self.ctx.settings.all)  # the lease, the interval
        names = await asyncio.to_thread(tenants.names, self.ctx.store)
        await self._configs(names)
        if not await self._lead(values):
            self.beats += 1
            return  # another worker of this deployment runs the duties
        try:  # listed once for every tenant; each reconcile pass takes its own part
            parts: dict[str, list[ObservedRun]] | None = by_tenant(
                await running_on_queue(self.client), names
            )
        except RPCError:  # each tenant's pass meets (and says) the server away
            parts = None
        self._sweeps_due = {}
        if self.every_tenant:
            due, seq = dict.fromkeys(names, EVERY_DUTY), self.plan.since
        else:
            due, seq = await self.plan.due_now(self.ctx.store, self.ctx.now(), names, parts)
        for name, kinds in due.items():
            if not await self._duties(self.ctx.for_tenant(name), values, parts, kinds):
                break  # the lease was lost (the next census reads from the same point)
        else:
            self.plan.since = seq
            await self._start_one_sweep(values, parts, names)
        self.beats += 1

    async def _duties(
        self,
        ctx: StageContext,
        values: dict[str, Any],
        parts: dict[str, list[ObservedRun]] | None,
        kinds: frozenset[Duty] = EVERY_DUTY,
    ) -> bool:
        """Run the duties ``kinds`` for the tenant of ``ctx`` with its settings; False when
        the lease was lost (``values``: the worker's own settings, for the lease)."""
        tenant = ctx.store.tenant
        if tenant == self.ctx.store.tenant:
            mine = values
        else:
            try:
                mine = await asyncio.to_thread(ctx.settings.all)
            except JobctrlError as exc:
                label = self._label(tenant, "the heartbeat")
                self._notice(label, f"{label}: {exc.message}")
                return True
        running = None if parts is None else parts.get(tenant, [])
        failed = self._intents_failed.setdefault(tenant, {})
        c = self.client
        duties: list[tuple[Duty, str, Callable[[], Awaitable[Any]]]] = [
            (Duty.RUNS, "reconciling runs", lambda: reconcile_runs(c, ctx, running, kinds)),
            (Duty.SCHEDULE, "the discovery schedule", lambda: self._schedule(ctx, mine)),
            (Duty.AVAILABILITY, "availability checks", lambda: self._availability(ctx, mine)),
            (
                Duty.APPLY_LOOP,
                "the standing apply loop",
                lambda: reconcile_apply_loop(c, ctx, mine),
            ),
            (Duty.SENDS, "settling interrupted sends", lambda: self._settle_dead_senders(ctx)),
            (
                Duty.INTENTS,
                "starting intended preparations",
                lambda: start_intended(c, ctx, failed=failed),
            ),
            (Duty.BUDGET, "resuming budget-stopped jobs", lambda: resume_budget_stopped(c, ctx)),
            (Duty.CONFIG, "resuming config-stopped jobs", lambda: self._resume_config_stopped(ctx)),
            (Duty.RECHECK, "public-fetch recheck", lambda: recheck_public_fetch(ctx, mine)),
            (Duty.RECOVERY, "automatic recovery", lambda: recover_preparations(c, ctx, mine)),
        ]
        for kind, what, run in duties:
            if kind not in kinds and not (kind is Duty.RUNS and kinds & RECONCILING):
                continue  # "reconciling runs" runs the parts of it in ``kinds``
            if not await self._lead(values):  # renewed before each duty: a slow pass
                return False  # never outlives the lease while another worker takes it over
            duty = self._label(tenant, what)
            try:
                await run()
                self._notice(duty, None)
            except JobctrlError as exc:  # a known condition: said once, in one line
                self._notice(duty, f"{duty}: {exc.message}")
            except RPCError as exc:  # the server is away (being restarted, say)
                self._notice(duty, f"{duty}: the Temporal server did not answer ({exc.message})")
            except Exception:
                log.exception("%s failed", duty)
        return True

    async def _configs(self, names: list[str]) -> None:
        """A notice while a tenant's config.yaml cannot be read (its stages stop with
        ``config_invalid`` and resume once it can be), read in one thread, a stat each."""

        wrong = await asyncio.to_thread(self._config_watch.problems, names)
        for name in names:
            problem = wrong.get(name)
            said = f"notice: {problem}; jobs that need config.yaml wait until it is fixed"
            self._notice(self._label(name, "config.yaml"), said if problem else None)

    async def _resume_config_stopped(self, ctx: StageContext) -> None:
        if self._said.get(self._label(ctx.store.tenant, "config.yaml")) is None:
            await resume_config_stopped(self.client, ctx)

    async def _settle_dead_senders(self, ctx: StageContext) -> None:
        """An email send whose process died is settled (``unknown`` once its data went out,
        else ``failed``), so it never stays ``sending`` until the next apply command."""
        settled = await asyncio.to_thread(
            apply_email.settle_dead_senders, ctx.store, clock=ctx.clock
        )
        if settled:
            log.warning("settled %d email send(s) whose process died", settled)
        # A browser prefill whose process died would otherwise hold its job until the next
        # `apply --browser`: every resolve, send and loop claim refuses a live attempt.
        ended = await asyncio.to_thread(
            apply_email.settle_dead_prefills, ctx.store, clock=ctx.clock
        )
        if ended:
            log.warning("ended %d browser prefill(s) whose process died", ended)

    async def _schedule(self, ctx: StageContext, values: dict[str, Any]) -> None:
        done = await reconcile_schedule(self.client, values, ctx.store.tenant)
        if done not in ("unchanged", "absent"):
            log.warning("discovery schedule of %s %s", ctx.store.tenant, done)

    async def _availability(self, ctx: StageContext, values: dict[str, Any]) -> None:
        """Note the tenant's sweep as due when checks are (started after every tenant's
        duties: ``_start_one_sweep``)."""
        if not values["availability.enabled"]:
            return
        due = await asyncio.to_thread(evidence.due_jobs, ctx.store, ctx.now(), 1)
        if due:
            self._sweeps_due[ctx.store.tenant] = SweepInput(
                limit=int(values["availability.batch_size"]),
                budget_seconds=SWEEP_BUDGET_SECONDS,
                heartbeat_timeout_seconds=float(values["worker.heartbeat_timeout_seconds"]),
                tenant_id=ctx.store.tenant,
            )

    async def _start_one_sweep(
        self,
        values: dict[str, Any],
        parts: dict[str, list[ObservedRun]] | None,
        names: list[str],
    ) -> None:
        """One availability sweep at a time for the whole deployment (a sweep holds an
        activity slot up to 20 minutes: one per tenant could fill every slot), tenants
        taking turns: the first due tenant after the one that swept last."""
        if not self._sweeps_due or parts is None:  # parts None: the server is away
            return
        if any(r.workflow_type == SWEEP_WORKFLOW for runs in parts.values() for r in runs):
            return
        turn = names.index(self._swept_last) + 1 if self._swept_last in names else 0
        tenant = next(t for t in [*names[turn:], *names[:turn]] if t in self._sweeps_due)
        if not await self._lead(values):
            return
        duty = self._label(tenant, "availability checks")
        try:
            await start_availability_sweep(self.client, self._sweeps_due[tenant])
            self._swept_last = tenant
            self._notice(duty, None)
        except RPCError as exc:
            self._notice(duty, f"{duty}: the Temporal server did not answer ({exc.message})")
        except Exception:
            log.exception("%s failed", duty)

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
