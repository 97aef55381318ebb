"""Discover: read the configured sources, keep the postings the target search wants, merge
duplicates into one job per real posting, link each job to the Discover execution that
saw it, and start its preparation at once (score-as-you-discover).

The run's aggregate, members and step events live in ``store.discovery``. Reading a
source is blocking I/O and runs in a worker thread; starting preparations talks to
Temporal and is awaited on the worker's own event loop, between sources.
"""

from __future__ import annotations

import asyncio
import functools
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from jobctrl.config import load_config
from jobctrl.domain.discovery import (
    DiscoverFinish,
    DiscoveryPlan,
    ExecutionRef,
    FamilyPlan,
    RunStatus,
    SourceRef,
    StepKind,
)
from jobctrl.domain.errors import DISCOVERY_BUSY, StageError
from jobctrl.domain.profile import TargetSearch
from jobctrl.domain.stop_loss import SOURCE, source_window
from jobctrl.sources.base import KINDS, DiscoveredPosting, SourceConfig
from jobctrl.sources.dedupe import Deduper
from jobctrl.sources.filtering import filter_postings
from jobctrl.sources.registry import make_source
from jobctrl.stages.context import StageContext
from jobctrl.store import backlog, discovery_refusals, jobs, observations, stop_loss
from jobctrl.store import discovery as runs
from jobctrl.store import operations as ops_store

StartPreparations = Callable[[ExecutionRef], Awaitable[dict[str, int]]]


def plan(ctx: StageContext, ref: ExecutionRef, attempt: int) -> DiscoveryPlan:
    """The source families to read (one step each), recorded as the run's plan. Refused
    (``discovery_busy``, never retried) while another run of the tenant still discovers
    or drains: a start by the schedule is held to the rule `jobctrl discover` checks."""
    _refuse_while_another_runs(ctx, ref)
    config = load_config(ctx.home)
    by_kind: dict[str, list[SourceRef]] = {}
    for entry in config.sources:
        if entry.enabled:
            by_kind.setdefault(entry.kind, []).append(
                SourceRef(entry.kind, entry.name, entry.base_url)
            )
    families = [FamilyPlan(kind, by_kind[kind]) for kind in KINDS if kind in by_kind]
    total = len(families) + 2
    runs.open_run(
        ctx.store,
        ref,
        [f.kind for f in families],
        total,
        attempt,
        len(config.sources),
        clock=ctx.clock,
    )
    return DiscoveryPlan(families, total)


def _refuse_while_another_runs(ctx: StageContext, ref: ExecutionRef) -> None:
    """One run at a time: the newest other run still finding jobs, or still preparing
    jobs it found, keeps this one from starting (it ends failed, finding nothing; its
    refusal is kept with that run's id for the Runs page)."""
    newest = ops_store.selected_execution(ctx.store)
    if newest is None or (newest["workflow_id"], newest["run_id"]) == (
        ref.workflow_id,
        ref.run_id,
    ):
        return
    other = ExecutionRef(ref.tenant_id, newest["workflow_id"], newest["run_id"])
    if newest["status"] == RunStatus.RUNNING.value:
        why = f"discovery run {other.run_id} is still finding jobs"
    elif runs.open_preparations(ctx.store, other):
        why = f"discovery run {other.run_id} is still preparing the jobs it found"
    else:
        return
    discovery_refusals.record_refusal(ctx.store, ref, DISCOVERY_BUSY, other.run_id, clock=ctx.clock)
    raise StageError(DISCOVERY_BUSY, f"{why}: this run starts none", retryable=False)


@dataclass
class _Linker:
    """Turns accepted postings into jobs linked to this execution, one posting at a time."""

    ctx: StageContext
    ref: ExecutionRef
    deduper: Deduper = field(default_factory=Deduper)
    group_jobs: dict[int, str] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    linked: set[str] = field(default_factory=set)

    def seed(self) -> None:
        """Existing jobs join the deduper first, so a posting seen before maps to its job."""
        known_jobs, listings = observations.known_postings(self.ctx.store)
        for row in known_jobs:
            known = DiscoveredPosting(
                source_kind=row.source,
                source_name="",
                url=row.url,
                title=row.title or "",
                company=row.company,
                location=row.location,
            )
            self.group_jobs.setdefault(self.deduper.add(known)[0], row.id)
        for row in listings:
            known = DiscoveredPosting(
                source_kind=row.source_kind,
                source_name=row.source_name,
                url=row.url,
                title=row.title or "",
                company=row.company,
                location=row.location,
                external_id=row.external_id,
            )
            self.group_jobs.setdefault(self.deduper.add(known)[0], row.job_id)

    def link(self, posting: DiscoveredPosting) -> None:
        """Counts: ``new_jobs`` created now, ``known_jobs`` that existed before this step,
        ``duplicates`` for a second listing of a job this step already linked."""
        group, _ = self.deduper.add(posting)
        job_id = self.group_jobs.get(group)
        with self.ctx.store.write(clock=self.ctx.clock) as tx:  # job, listing and link at once
            job = None
            if job_id is None:
                job = jobs.create_job_in(tx, posting.url, source=posting.source_kind)
            observations.observe(
                tx,
                self.ref,
                job.job_id if job else job_id,  # type: ignore[arg-type]
                source_kind=posting.source_kind,
                source_name=posting.source_name,
                external_id=posting.external_id,
                url=posting.url,
                title=posting.title,
                company=posting.company,
                location=posting.location,
            )
        if job is not None:
            job_id = self.group_jobs[group] = job.job_id
            self.counts["new_jobs" if job.created else "known_jobs"] += 1
        elif job_id in self.linked:
            self.counts["duplicates"] += 1
        else:
            self.counts["known_jobs"] += 1
        assert job_id is not None
        self.linked.add(job_id)

    def read(self, source: SourceRef, target: TargetSearch) -> StageError | None:
        """Read one source and link what the target search accepts; its error, if any."""
        self.ctx.heartbeat(source.name)
        window = source_window(source.kind, source.name)
        # A window named by the bare name is one paused before windows had the kind.
        if any(stop_loss.is_paused(self.ctx.store, SOURCE, w) for w in (window, source.name)):
            self.counts["sources_paused"] += 1  # stop-loss: `jobctrl resume NAME` reads it again
            return None
        item = f"{self.ref.workflow_id}:{self.ref.run_id}"  # one run's retries count once
        try:
            reader = make_source(SourceConfig(source.kind, source.name, source.base_url))
            with self.ctx.fetcher() as fetcher:
                found = list(reader.discover(fetcher))
        except StageError as error:
            self.counts["source_errors"] += 1
            stop_loss.note(self.ctx.store, SOURCE, window, error.code, item)
            return error
        stop_loss.note(self.ctx.store, SOURCE, window, None, item)
        self.counts["found"] += len(found)
        accepted, filtered = filter_postings(found, target)
        for reason, n in filtered.items():
            self.counts[f"filtered_{reason}"] += n
        for posting in accepted:
            self.ctx.heartbeat(source.name)
            if posting.extra.get("url_is_listing") == "true":
                # Several postings on one page with no page of their own: no URL can tell
                # them apart as jobs yet, so they are counted, not merged into one job.
                self.counts["skipped_no_own_url"] += 1
                continue
            self.link(posting)
        self.counts["accepted"] += len(accepted)
        return None


def _begin_family(
    ctx: StageContext, ref: ExecutionRef, family: FamilyPlan, attempt: int
) -> tuple[_Linker, TargetSearch]:
    target = load_config(ctx.home).target_search  # a broken config.yaml fails before the step
    linker = _Linker(ctx, ref)
    linker.seed()
    runs.step_started(ctx.store, ref, StepKind.SOURCE_FAMILY, family.kind, attempt, clock=ctx.clock)
    return linker, target


async def run_family(
    ctx: StageContext,
    ref: ExecutionRef,
    family: FamilyPlan,
    index: int,
    attempt: int,
    start_preparations: StartPreparations,
) -> dict[str, int]:
    """Read every source of one family; save what was accepted even when a source fails,
    then raise the first source's error so Temporal retries the family.

    After each source, ``start_preparations`` starts the new jobs' preparations (score
    as you discover), so scores appear while later sources are still being read.
    """
    linker, target = await asyncio.to_thread(_begin_family, ctx, ref, family, attempt)
    first_error: StageError | None = None
    for source in family.sources:
        error = await asyncio.to_thread(linker.read, source, target)
        first_error = first_error or error
        if error is None:
            linker.counts.update(await start_preparations(ref))
    counts = dict(linker.counts)
    code = first_error.code if first_error is not None else None
    await asyncio.to_thread(
        functools.partial(
            runs.family_finished,
            ctx.store,
            ref,
            family.kind,
            index + 1,
            attempt,
            counts,
            code,
            clock=ctx.clock,
        )
    )
    if first_error is not None:
        raise first_error
    return counts


def terminal_step(
    ctx: StageContext,
    ref: ExecutionRef,
    kind: str,
    attempt: int,
    counts: dict[str, int],
    *,
    last: bool,
) -> None:
    """Record a closing step; the enrichment pass ends one short of the total, the
    preparation fan-out (``last``) completes it."""
    total = runs.progress_total(ctx.store, ref)
    done = total if last else total - 1
    runs.terminal_step(ctx.store, ref, kind, done, attempt, counts, clock=ctx.clock)


def close_membership(ctx: StageContext, ref: ExecutionRef, attempt: int) -> None:
    """The run's members and the jobs it created are all accounted for."""
    counts = {
        "members": runs.member_count(ctx.store, ref),
        "jobs_created": runs.jobs_created_by(ctx.store, ref),
    }
    terminal_step(ctx, ref, StepKind.PREPARATION_FANOUT, attempt, counts, last=True)


BACKLOG_LIMIT = 100  # jobs one Discover execution sweeps at most


def begin_sweep(ctx: StageContext, ref: ExecutionRef, attempt: int) -> list[backlog.Swept]:
    """Start the existing-backlog sweep: its step event, then the stale pending jobs it
    re-admits linked (``existing_backlog``) with a start intent each; the members whose
    preparation still has to be started (an earlier attempt's too)."""
    prepare = bool(ctx.settings.get("discovery.prepare_jobs"))
    with ctx.store.write(clock=ctx.clock) as tx:
        kind = StepKind.EXISTING_BACKLOG_SWEEP
        runs.record_step(tx, ref, kind, kind, attempt)
        if prepare:
            backlog.admit(tx, ref, BACKLOG_LIMIT)
    return backlog.to_start(ctx.store, ref)


def end_sweep(ctx: StageContext, ref: ExecutionRef, attempt: int, started: int) -> dict[str, int]:
    """Complete the sweep step with its counts: the run's swept members in all, and the
    preparations this attempt started."""
    counts = {"backlog_swept": backlog.swept_count(ctx.store, ref), "backlog_started": started}
    terminal_step(ctx, ref, StepKind.EXISTING_BACKLOG_SWEEP, attempt, counts, last=True)
    return counts


def sweep_failed(ctx: StageContext, ref: ExecutionRef, attempt: int, code: str) -> None:
    with ctx.store.write(clock=ctx.clock) as tx:
        kind = StepKind.EXISTING_BACKLOG_SWEEP
        runs.record_step(tx, ref, kind, kind, attempt, error=code)


def finish(ctx: StageContext, fin: DiscoverFinish) -> None:
    runs.finish_run(ctx.store, fin, clock=ctx.clock)
