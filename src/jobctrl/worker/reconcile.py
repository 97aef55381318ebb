"""The run reconciler: what the store believes runs, against what Temporal reports.

- Open runs: every execution the store holds as open (``workflow_run_projections`` rows
  running or ``reconciled_not_found``, ``discovery_runs`` rows running) is described by its
  exact workflow and run id. Closed: its real outcome is recorded (``store.run_verdicts``:
  the closing events its own finish would have written, interrupted stage rows failed
  retryably). Not found in the history the server has now: provisionally
  ``reconciled_not_found``, probed again on every beat, restored or closed when found.
  At most ``PROBES_PER_BEAT`` describes per beat, least recently probed first, with a
  head start for open runs the queue's listing no longer shows (probably closed).
- Orphans (desired against observed, the adoption ADR): the executions Temporal lists as
  running on this home's task queue are compared with what the store expects. Ours that
  the store never recorded (the discovery schedule's runs, a preparation whose record was
  lost) are adopted, recorded as started; what is left is an orphan, listed by
  `jobctrl executions` and stoppable.
- Abandoned stage rows (store-only, first, so a server away does not hold it up): a row
  left ``running`` under a run the store recorded closed more than a minute ago (an
  attempt that claimed it after the run's finish) fails retryably (``STAGE_INTERRUPTED``).
- Stop requests: each is issued (a cancel of the exact execution), and re-issued on later
  beats while Temporal still reports it running, at most ``STOP_ISSUES`` times; a beat
  that still finds a person's stop running after that, and ``TERMINATE_AFTER`` after it
  was asked for, terminates it (a cancel that is never acted on, e.g. a workflow type no
  worker runs, must not leave it running) and records what it then observes:
  terminated, or given up with one notice. jobctrl's own cancel of a job is never
  escalated (its workflow ends canceled, keeping its results): given up instead. A run
  Temporal has no history of is recorded not found, never closed.

A server that does not answer changes nothing: the beat ends with the ``RPCError`` (the
heartbeat says so once) and the next one tries again.

Every pass acts for the context's tenant: its open runs, its orphans, its stop requests.
The queue's listing is every tenant's; ``by_tenant`` parts it by the tenant each workflow
id names (``ids.tenant_of``), and an execution no tenant's (an id jobctrl does not make,
or of a tenant that does not exist) is the ``local`` tenant's, the operator's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Collection
from datetime import datetime, timedelta

from temporalio.client import Client, WorkflowExecutionDescription, WorkflowExecutionStatus
from temporalio.service import RPCError

from jobctrl.domain import ids
from jobctrl.domain.clock import as_utc
from jobctrl.domain.duties import RECONCILING, Duty
from jobctrl.domain.errors import WORKFLOW_FAILED, WORKFLOW_TERMINATED, WORKFLOW_TIMED_OUT
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.domain.tenants import LOCAL
from jobctrl.stages.context import StageContext
from jobctrl.store import census, orphans, run_verdicts, tenants, workflow_runs
from jobctrl.store.stage_control import COOPERATIVE_STOPS
from jobctrl.store.store import Store
from jobctrl.workflows import starts

log = logging.getLogger(__name__)

PROBES_PER_BEAT = 200  # describes per beat (the rest wait for the next, oldest probe first)
PROBES_AT_START = 1000
PARALLEL_PROBES = 8
# An open run the queue's listing no longer shows has probably closed: it is probed before
# runs probed up to this many seconds more recently (the listing is eventually consistent,
# and runs of another queue are never listed, so it is a head start, not a front seat).
SUSPECT_HEAD_START = 300.0
STOP_ISSUES = 5  # a stop request's cancel is issued at most this many times (one a beat)
# Then, while it still runs, the next beat terminates it with this reason.
TERMINATE_REASON = "jobctrl: stop requested by the person; cancel not honoured"
# However short the heartbeat, a person's stop is terminated only this long after it was
# asked for: a workflow that honours its cancel has had time to close by then.
TERMINATE_AFTER = timedelta(seconds=60)
# An execution younger than this may still be being recorded by whoever started it.
START_GRACE = timedelta(seconds=30)

# When each exact execution was last described, per database and tenant (monotonic s).
_probed: dict[tuple[str, str, str, str], float] = {}
# Runs the last pass could not describe, per database and tenant.
_undescribed: dict[tuple[str, str], int] = {}

_CLOSED = {
    WorkflowExecutionStatus.COMPLETED: (WorkflowStatus.COMPLETED, None, "completed"),
    WorkflowExecutionStatus.CONTINUED_AS_NEW: (WorkflowStatus.COMPLETED, None, "continued"),
    WorkflowExecutionStatus.FAILED: (WorkflowStatus.FAILED, WORKFLOW_FAILED, None),
    WorkflowExecutionStatus.TERMINATED: (WorkflowStatus.FAILED, WORKFLOW_TERMINATED, None),
    WorkflowExecutionStatus.TIMED_OUT: (WorkflowStatus.FAILED, WORKFLOW_TIMED_OUT, None),
    WorkflowExecutionStatus.CANCELED: (WorkflowStatus.CANCELED, None, None),
}


def by_tenant(
    running: list[starts.ObservedRun], names: Collection[str]
) -> dict[str, list[starts.ObservedRun]]:
    """The listed executions of each tenant of ``names``: the tenant its workflow id
    names, else ``local`` (the operator's: an execution that is no tenant's)."""
    parts: dict[str, list[starts.ObservedRun]] = {name: [] for name in names}
    parts.setdefault(LOCAL, [])
    for run in running:
        parts[ids.owner_of(run.workflow_id, parts)].append(run)
    return parts


async def tenant_runs(client: Client, ctx: StageContext) -> list[starts.ObservedRun]:
    """The executions running on the queue now that are the context's tenant's."""
    running = await starts.running_on_queue(client)
    names = await asyncio.to_thread(tenants.names, ctx.store)
    return by_tenant(running, names).get(ctx.store.tenant, [])


async def reconcile_on_start(client: Client, ctx: StageContext) -> None:
    """Before the worker accepts activities, for every tenant: rebuild missing
    workflow-run rows from the event log, then reconcile (more runs per pass than a
    beat) the parts the heartbeat's census finds work for (every part for the worker's
    own tenant and a tenant whose rows were rebuilt): an idle tenant costs one read."""
    names = await asyncio.to_thread(tenants.names, ctx.store)
    parts = by_tenant(await starts.running_on_queue(client), names)
    found = await asyncio.to_thread(census.census, ctx.store, ctx.now(), since=None)
    for name in names:
        tctx = ctx.for_tenant(name)
        rebuilt = await asyncio.to_thread(workflow_runs.repair_missing, tctx.store)
        if rebuilt:
            log.warning("rebuilt %d missing workflow-run row(s) from the event log", rebuilt)
        due = found.duties.get(name, frozenset()) & RECONCILING
        due |= {Duty.ORPHANS} if parts[name] else set()
        if rebuilt or name == ctx.store.tenant:
            due = RECONCILING
        if due:
            await reconcile_runs(client, tctx, parts[name], due, probes=PROBES_AT_START)


async def reconcile_runs(
    client: Client,
    ctx: StageContext,
    running: list[starts.ObservedRun] | None = None,
    parts: Collection[Duty] = RECONCILING,
    *,
    probes: int = PROBES_PER_BEAT,
) -> dict[str, int]:
    """On each heartbeat, for the context's tenant: stage rows abandoned under closed
    runs, open runs against Temporal, orphans, stop requests (``parts``: those the
    heartbeat's census found work for; every one by default). ``running``: the tenant's
    part of the queue's listing (listed now when not given). Returns counts of what it
    did (for tests and the bench)."""
    done = {"probed": 0, "changed": 0, "errors": 0, "abandoned": 0, "orphans": 0, "stops": 0}
    if Duty.ABANDONED in parts:
        done["abandoned"] = await asyncio.to_thread(
            run_verdicts.settle_abandoned, ctx.store, clock=ctx.clock
        )
        if done["abandoned"]:
            log.warning("settled %d stage row(s) left running under ended runs", done["abandoned"])
    if running is None:
        running = await tenant_runs(client, ctx)
    listed = {(run.workflow_id, run.run_id) for run in running}
    if Duty.RUNS in parts:
        done |= await probe_open_runs(client, ctx, probes, listed=listed)
    if Duty.ORPHANS in parts:
        done["orphans"] = await observe_queue(client, ctx, running)
    if Duty.STOPS in parts:
        done["stops"] = await issue_stops(client, ctx)
    return done


async def probe_open_runs(
    client: Client,
    ctx: StageContext,
    probes: int,
    *,
    listed: set[tuple[str, str]] | None = None,
    only: Collection[tuple[str, str]] | None = None,
    record_not_found: bool = True,
    not_found: set[tuple[str, str]] | None = None,
) -> dict[str, int]:
    """Describe up to ``probes`` open executions (least recently probed first) and record
    each answer that differs from the store. ``listed`` (the executions Temporal lists as
    running on the queue) only orders the work: an open run missing from it has probably
    closed and goes ``SUSPECT_HEAD_START`` seconds ahead; the describe decides. ``only``
    (workflow id, run id) limits the pass to those runs (what a command is about to
    show); without ``record_not_found`` a run the server cannot find is left as it is
    (a command's own settings may name another server or namespace than the worker's:
    only the worker's pass records ``reconciled_not_found``); ``not_found`` collects
    them either way."""
    store = ctx.store
    db = (store.url, store.tenant)
    runs = await asyncio.to_thread(workflow_runs.open_executions, store)
    runs = [r for r in runs if r.run_id]  # an empty run id names no exact execution
    if only is not None:
        wanted = set(only)
        runs = [r for r in runs if (r.workflow_id, r.run_id) in wanted]
    else:
        keep = {(*db, r.workflow_id, r.run_id) for r in runs}
        for key in [k for k in _probed if k[:2] == db and k not in keep]:
            del _probed[key]  # settled: no longer probed

    def due(run: workflow_runs.OpenExecution) -> float:
        last = _probed.get((*db, run.workflow_id, run.run_id), 0.0)
        suspect = listed is not None and (run.workflow_id, run.run_id) not in listed
        return last - SUSPECT_HEAD_START if suspect else last

    runs.sort(key=due)
    gate = asyncio.Semaphore(PARALLEL_PROBES)
    counts = {"probed": 0, "changed": 0, "errors": 0}
    verdicts: Counter[str] = Counter()

    async def probe(run: workflow_runs.OpenExecution) -> None:
        async with gate:
            try:
                description = await starts.describe_run(client, run.workflow_id, run.run_id)
            except RPCError as exc:
                if exc.status in starts.SERVER_AWAY:
                    raise
                counts["errors"] += 1  # that run only; the pass goes on
                _probed[(*db, run.workflow_id, run.run_id)] = time.monotonic()
                return
        _probed[(*db, run.workflow_id, run.run_id)] = time.monotonic()
        counts["probed"] += 1
        if description is None:
            if not_found is not None:
                not_found.add((run.workflow_id, run.run_id))
            if not record_not_found:
                return
            verdict, code, outcome = WorkflowStatus.RECONCILED_NOT_FOUND, None, None
        elif description.status == WorkflowExecutionStatus.RUNNING:
            verdict, code, outcome = WorkflowStatus.RUNNING, None, None
        else:
            status = description.status
            assert status is not None
            verdict, code, outcome = _CLOSED[status]
        if verdict.value == run.status:
            return
        changed = await asyncio.to_thread(
            run_verdicts.reconcile,
            store,
            run.workflow_id,
            run.run_id,
            verdict.value,
            error_code=code,
            outcome=outcome,
            clock=ctx.clock,
        )
        if changed:
            counts["changed"] += 1
            verdicts[f"{verdict.value} (was {run.status})"] += 1

    # A server that does not answer ends the pass (the first such error is raised).
    try:
        await asyncio.gather(*(probe(run) for run in runs[:probes]))
    finally:
        if counts["errors"] and not _undescribed.get(db):  # said once, not per beat
            log.warning("%d run(s) could not be described; tried again next beat", counts["errors"])
        _undescribed[db] = counts["errors"]
        if verdicts:  # one line per pass, however many runs it settled
            said = ", ".join(f"{n} {what}" for what, n in sorted(verdicts.items()))
            log.warning("reconciled %d run(s) with Temporal: %s", sum(verdicts.values()), said)
    return counts


async def observe_now(
    client: Client, ctx: StageContext, runs: Collection[tuple[str, str]]
) -> set[tuple[str, str]] | None:
    """Describe these open runs now (a command is about to show them) and record the
    ones that closed; returns the ones the server could not find (not recorded: see
    ``probe_open_runs``), or None when the server did not answer (nothing changed)."""
    not_found: set[tuple[str, str]] = set()
    try:
        await probe_open_runs(
            client, ctx, len(runs), only=runs, record_not_found=False, not_found=not_found
        )
    except RPCError:
        return None
    return not_found


def _adoptable(run: starts.ObservedRun, tenant: str) -> tuple[str, str | None] | None:
    """(workflow type, job id) when ``run`` is ``tenant``'s by its type and id: recorded
    as started rather than called an orphan."""
    if ids.tenant_of(run.workflow_id) != tenant:
        return None
    # The schedule starts discover-<tenant> with the scheduled time appended to the id.
    discover = ids.discover_workflow_id(tenant)
    if run.workflow_type == WorkflowType.DISCOVERY and (
        run.workflow_id == discover or run.workflow_id.startswith(f"{discover}-")
    ):
        return WorkflowType.DISCOVERY.value, None
    if run.workflow_type == WorkflowType.PREPARATION and run.workflow_id.startswith("prep-"):
        key = run.workflow_id.rsplit("-", 1)[1]  # prep-{key} or prep-{tenant}-{key}
        return WorkflowType.PREPARATION.value, ids.job_id_for(key)
    if run.workflow_type == WorkflowType.APPLY and run.workflow_id == ids.apply_loop_id(tenant):
        return WorkflowType.APPLY.value, None
    return None


def _young(started_at: datetime | None, now: datetime) -> bool:
    return started_at is not None and now - started_at < START_GRACE


async def observe_queue(
    client: Client, ctx: StageContext, running: list[starts.ObservedRun] | None = None
) -> int:
    """Compare the tenant's executions running on this home's task queue (``running``,
    listed now when not given) with what its store expects; adopt ours, record the rest
    as its orphans. Returns how many orphans."""
    store = ctx.store
    if running is None:
        running = await tenant_runs(client, ctx)
    now = ctx.now()
    want = await asyncio.to_thread(orphans.expected, store, now)
    found: list[orphans.Observed] = []
    for run in running:
        if (run.workflow_id, run.run_id) in want.runs or run.workflow_id in want.ids:
            continue
        if run.workflow_id == starts.availability_sweep_id(store.tenant):
            continue  # the worker keeps it; nothing records it as a run
        adopt = _adoptable(run, store.tenant)
        discovery = adopt is not None and adopt[0] == WorkflowType.DISCOVERY
        if _young(run.started_at, now) and not discovery:
            continue  # whoever started it may be recording it right now
        if adopt is not None:
            await asyncio.to_thread(
                workflow_runs.adopt,
                store,
                workflow_id=run.workflow_id,
                run_id=run.run_id,
                workflow_type=adopt[0],
                job_id=adopt[1],
            )
            continue
        found.append(
            orphans.Observed(run.workflow_id, run.run_id, run.workflow_type, run.started_at)
        )
    await asyncio.to_thread(orphans.replace_orphans, store, found, now)
    return len(found)


async def issue_stops(client: Client, ctx: StageContext) -> int:
    """Issue (or re-issue) each pending stop request while Temporal reports its execution
    running, at most ``STOP_ISSUES`` cancels, one per beat: a workflow that honours a
    cancel closes cleanly meanwhile. A beat that finds it still running after the last
    cancel terminates it (``TERMINATE_REASON``). Each request ends with what was observed
    (``orphans.StopOutcome``): closed, terminated (and then seen closed), gave up (still
    running), or not found (Temporal has no such run: never called closed).
    Returns how many cancels were issued."""
    store = ctx.store
    issued = 0
    for request in await asyncio.to_thread(orphans.pending_stops, store):
        workflow_id, run_id = request["workflow_id"], request["run_id"]
        try:
            description = await _describe_stop(client, workflow_id, run_id)
        except _Undescribed:
            continue  # this request only: the others behind it are still issued
        now = ctx.now()
        if description is None:
            await _settle_stop(store, workflow_id, run_id, now, orphans.StopOutcome.NOT_FOUND)
            continue
        if description.status != WorkflowExecutionStatus.RUNNING:
            await _settle_stop(store, workflow_id, run_id, now, orphans.StopOutcome.CLOSED)
            continue
        if int(request["issued"] or 0) >= STOP_ISSUES:
            if request["reason"] in COOPERATIVE_STOPS:
                # jobctrl's own cancel of a job or a discovery run: the workflow ends it as
                # WorkflowCanceled with its results kept, never terminated; given up.
                await _settle_stop(store, workflow_id, run_id, now, orphans.StopOutcome.GAVE_UP)
            elif now - as_utc(request["requested_at"]) >= TERMINATE_AFTER:
                await _terminate(client, store, workflow_id, run_id, now)
            continue
        try:
            await starts.cancel_run(client, workflow_id, run_id)
        except RPCError as exc:
            if exc.status in starts.SERVER_AWAY:
                raise
            log.warning("could not cancel %s (run %s): %s", workflow_id, run_id, exc.status.name)
        await asyncio.to_thread(orphans.note_stop, store, workflow_id, run_id, now, issued=True)
        issued += 1
    return issued


class _Undescribed(Exception):
    """Temporal answered a describe with an error about that run alone."""


async def _describe_stop(
    client: Client, workflow_id: str, run_id: str
) -> WorkflowExecutionDescription | None:
    """The stop request's exact execution; None when Temporal has no such run (or refuses
    the run id as none it could have)."""
    try:
        return await starts.describe_run(client, workflow_id, run_id)
    except RPCError as exc:
        if exc.status in starts.SERVER_AWAY:
            raise
        raise _Undescribed from exc


async def _settle_stop(
    store: Store, workflow_id: str, run_id: str, now: datetime, outcome: orphans.StopOutcome
) -> None:
    await asyncio.to_thread(orphans.note_stop, store, workflow_id, run_id, now, outcome=outcome)
    if outcome == orphans.StopOutcome.NOT_FOUND:
        log.warning(
            "notice: stop of %s (run %s): Temporal has no such run; nothing was stopped",
            workflow_id,
            run_id,
        )


async def _terminate(
    client: Client, store: Store, workflow_id: str, run_id: str, now: datetime
) -> None:
    """The last step of a stop whose cancels were not honoured: terminate the execution and
    record what is then observed."""
    terminated = False
    try:
        terminated = await starts.terminate_run(client, workflow_id, run_id, TERMINATE_REASON)
    except RPCError as exc:
        if exc.status in starts.SERVER_AWAY:
            raise
        log.warning("could not terminate %s (run %s): %s", workflow_id, run_id, exc.status.name)
    try:
        after = await _describe_stop(client, workflow_id, run_id)
    except _Undescribed:
        return  # described again next beat
    if after is None:
        outcome = orphans.StopOutcome.NOT_FOUND
    elif after.status == WorkflowExecutionStatus.RUNNING:
        outcome = orphans.StopOutcome.GAVE_UP
    elif terminated:
        outcome = orphans.StopOutcome.TERMINATED
    else:
        outcome = orphans.StopOutcome.CLOSED  # it closed on its own before the terminate
    await _settle_stop(store, workflow_id, run_id, now, outcome)
    if outcome == orphans.StopOutcome.TERMINATED:
        log.warning(
            "notice: %s (run %s) did not honour %d cancels; terminated",
            workflow_id,
            run_id,
            STOP_ISSUES,
        )
    elif outcome == orphans.StopOutcome.GAVE_UP:
        log.warning(
            "notice: %s (run %s) still runs after %d cancels and a terminate; giving up (stop "
            "it with the Temporal CLI, or `jobctrl executions stop` again)",
            workflow_id,
            run_id,
            STOP_ISSUES,
        )
