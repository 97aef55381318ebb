"""Discover: read the configured sources, keep the postings the target search wants, merge
duplicates into one job per real posting, link each job to the Discover execution that
saw it, and start its preparation at once (score-as-you-discover).

The ``discovery_runs`` row is the run's aggregate: its progress counts one step per
source family plus the terminal enrichment pass and preparation fan-out, and only ever
moves forward.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select, update

from jobctrl.config import load_config
from jobctrl.domain.errors import StageError
from jobctrl.domain.events import (
    DiscoveryRunCompleted,
    DiscoveryRunStarted,
    JobDiscovered,
    PipelineStepCompleted,
    PipelineStepFailed,
    PipelineStepStarted,
)
from jobctrl.sources.base import KINDS, DiscoveredPosting, SourceConfig
from jobctrl.sources.dedupe import Deduper
from jobctrl.sources.filtering import filter_postings
from jobctrl.sources.registry import make_source
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, schema
from jobctrl.store.store import WriteTx, upsert, utcnow
from jobctrl.workflows.models import (
    DiscoverFinish,
    DiscoveryPlan,
    ExecutionRef,
    FamilyPlan,
    SourceRef,
)

OBSERVED = "observed_this_run"
BACKLOG = "existing_backlog"
DR = schema.discovery_runs
DEJ = schema.discovery_execution_jobs


def _run_key(ref: ExecutionRef) -> tuple[Any, ...]:
    return (
        DR.c.tenant_id == ref.tenant_id,
        DR.c.workflow_id == ref.workflow_id,
        DR.c.run_id == ref.run_id,
    )


def _step(
    tx: WriteTx,
    ref: ExecutionRef,
    kind: str,
    item: str,
    attempt: int,
    *,
    counts: dict[str, int] | None = None,
    error: str | None = None,
) -> None:
    common = {
        "workflow_id": ref.workflow_id,
        "run_id": ref.run_id,
        "step_kind": kind,
        "item_key": item,
        "attempt": attempt,
    }
    base = f"step:{ref.workflow_id}:{ref.run_id}:{kind}:{item}:{attempt}"
    if error is not None:
        tx.append(PipelineStepFailed(**common, error_code=error), key=f"{base}:failed")
    elif counts is not None:
        tx.append(PipelineStepCompleted(**common, counts=counts), key=f"{base}:completed")
    else:
        tx.append(PipelineStepStarted(**common), key=f"{base}:started")


def _advance(tx: WriteTx, ref: ExecutionRef, done: int) -> None:
    """Move progress forward to ``done``; never back."""
    tx.conn.execute(
        update(DR).where(*_run_key(ref), DR.c.progress_done < done).values(progress_done=done)
    )


def plan(ctx: StageContext, ref: ExecutionRef, attempt: int) -> DiscoveryPlan:
    config = load_config(ctx.home)
    by_kind: dict[str, list[SourceRef]] = {}
    for entry in config.sources:
        if entry.enabled:
            by_kind.setdefault(entry.kind, []).append(
                SourceRef(entry.kind, entry.name, entry.base_url)
            )
    families = [FamilyPlan(kind, by_kind[kind]) for kind in KINDS if kind in by_kind]
    total = len(families) + 2
    now = utcnow()
    with ctx.store.write() as tx:
        upsert(
            tx.conn,
            DR,
            {
                "tenant_id": ref.tenant_id,
                "workflow_id": ref.workflow_id,
                "run_id": ref.run_id,
                "status": "running",
                "progress_done": 0,
                "progress_total": total,
                "families": [f.kind for f in families],
                "counts": {},
                "started_at": now,
            },
            keys=["tenant_id", "workflow_id", "run_id"],
        )
        tx.append(
            DiscoveryRunStarted(
                tenant_id=ref.tenant_id,
                workflow_id=ref.workflow_id,
                run_id=ref.run_id,
                families=[f.kind for f in families],
                progress_total=total,
            ),
            key=f"discovery-started:{ref.workflow_id}:{ref.run_id}",
        )
        _step(
            tx,
            ref,
            "source_planning",
            "plan",
            attempt,
            counts={"families": len(families), "sources": len(config.sources)},
        )
    return DiscoveryPlan(families, total)


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
        j, so = schema.jobs, schema.source_observations
        with self.ctx.store.read() as conn:
            rows = conn.execute(
                select(j.c.id, j.c.url, j.c.title, j.c.company, j.c.location, j.c.source)
            ).all()
            observed = conn.execute(
                select(
                    so.c.job_id,
                    so.c.source_kind,
                    so.c.external_id,
                    so.c.url,
                    so.c.title,
                    so.c.company,
                    so.c.location,
                    so.c.source_name,
                )
            ).all()
        for row in rows:
            known = DiscoveredPosting(
                source_kind=row.source,
                source_name="",
                url=row.url,
                title=row.title or "",
                company=row.company,
                location=row.location,
            )
            self.group_jobs.setdefault(self.deduper.add(known)[0], row.id)
        for row in observed:
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
        with self.ctx.store.write() as tx:  # the job, its observation and its link at once
            job = None
            if job_id is None:
                job = jobs.create_job_in(tx, posting.url, source=posting.source_kind)
            self._observe(tx, job.job_id if job else job_id, posting)
        if job is not None:
            job_id = self.group_jobs[group] = job.job_id
            self.counts["new_jobs" if job.created else "known_jobs"] += 1
        elif job_id in self.linked:
            self.counts["duplicates"] += 1
        else:
            self.counts["known_jobs"] += 1
        self.linked.add(job_id)

    def _observe(self, tx: WriteTx, job_id: str, posting: DiscoveredPosting) -> None:
        now = utcnow()
        so = schema.source_observations
        upsert(
            tx.conn,
            so,
            {
                "job_id": job_id,
                "source_kind": posting.source_kind,
                "source_name": posting.source_name,
                "external_id": posting.external_id,
                "url": posting.url,
                "title": posting.title,
                "company": posting.company,
                "location": posting.location,
                "first_seen_at": now,
                "last_seen_at": now,
                "last_run_id": self.ref.run_id,
            },
            keys=["job_id", "source_kind", "source_name", "url"],
            update=[
                "last_seen_at",
                "last_run_id",
                "external_id",
                "title",
                "company",
                "location",
            ],
        )
        link_member(tx, self.ref, job_id, OBSERVED)
        tx.append(
            JobDiscovered(
                job_id=job_id,
                source_kind=posting.source_kind,
                source_name=posting.source_name,
                title=posting.title,
                company=posting.company,
                location=posting.location,
                discover_workflow_id=self.ref.workflow_id,
                discover_run_id=self.ref.run_id,
                cohort=OBSERVED,
            ),
            key=f"discovered:{self.ref.run_id}:{job_id}:{posting.source_kind}:"
            f"{posting.source_name}",
        )


def link_member(tx: WriteTx, ref: ExecutionRef, job_id: str, cohort: str) -> None:
    """Link a job to the execution; observed_this_run promotes a backlog row, never back."""
    now = utcnow()
    upsert(
        tx.conn,
        DEJ,
        {
            "tenant_id": ref.tenant_id,
            "discover_workflow_id": ref.workflow_id,
            "discover_run_id": ref.run_id,
            "job_id": job_id,
            "cohort": cohort,
            "work_plan_state": "pending",
            "created_at": now,
            "updated_at": now,
        },
        keys=["tenant_id", "discover_workflow_id", "discover_run_id", "job_id"],
    )
    if cohort == OBSERVED:
        tx.conn.execute(
            update(DEJ)
            .where(*_member_key(ref, job_id), DEJ.c.cohort == BACKLOG)
            .values(cohort=OBSERVED, updated_at=now)
        )


def _member_key(ref: ExecutionRef, job_id: str) -> tuple[Any, ...]:
    return (
        DEJ.c.tenant_id == ref.tenant_id,
        DEJ.c.discover_workflow_id == ref.workflow_id,
        DEJ.c.discover_run_id == ref.run_id,
        DEJ.c.job_id == job_id,
    )


def run_family(
    ctx: StageContext,
    ref: ExecutionRef,
    family: FamilyPlan,
    index: int,
    attempt: int,
    start_preparations: Callable[[ExecutionRef], dict[str, int]],
) -> dict[str, int]:
    """Read every source of one family; save what was accepted even when a source fails,
    then raise the first source's error so Temporal retries the family."""
    target = load_config(ctx.home).target_search
    linker = _Linker(ctx, ref)
    linker.seed()
    with ctx.store.write() as tx:
        _step(tx, ref, "source_family", family.kind, attempt)
    first_error: StageError | None = None
    fetcher = ctx.fetcher()
    for source in family.sources:
        ctx.heartbeat(source.name)
        try:
            found = list(
                make_source(SourceConfig(source.kind, source.name, source.base_url)).discover(
                    fetcher
                )
            )
        except StageError as error:
            linker.counts["source_errors"] += 1
            first_error = first_error or error
            continue
        linker.counts["found"] += len(found)
        accepted, filtered = filter_postings(found, target)
        for reason, n in filtered.items():
            linker.counts[f"filtered_{reason}"] += n
        for posting in accepted:
            ctx.heartbeat(source.name)
            if posting.extra.get("url_is_listing") == "true":
                # Several postings on one page with no page of their own: no URL can tell
                # them apart as jobs yet, so they are counted, not merged into one job.
                linker.counts["skipped_no_own_url"] += 1
                continue
            linker.link(posting)
        linker.counts["accepted"] += len(accepted)
        # Score as you discover: each new job's preparation starts now, not at the end.
        linker.counts.update(start_preparations(ref))
    counts = dict(linker.counts)
    with ctx.store.write() as tx:
        if first_error is not None:
            _step(tx, ref, "source_family", family.kind, attempt, error=first_error.code)
        else:
            _step(tx, ref, "source_family", family.kind, attempt, counts=counts)
            _advance(tx, ref, index + 1)
        _set_counts(tx, ref, family.kind, counts)
    if first_error is not None:
        raise first_error
    return counts


def _set_counts(tx: WriteTx, ref: ExecutionRef, item: str, counts: dict[str, int]) -> None:
    """Record one step's counts; a retried step replaces its earlier attempt's counts."""
    row = dict(tx.conn.execute(select(DR.c.counts).where(*_run_key(ref))).scalar() or {})
    row[item] = counts
    tx.conn.execute(update(DR).where(*_run_key(ref)).values(counts=row))


def total_counts(by_step: dict[str, dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for counts in by_step.values():
        total.update(counts)
    return dict(total)


def pending_members(ctx: StageContext, ref: ExecutionRef) -> list[tuple[str, str, str | None]]:
    """(job id, idempotency key, its preparation workflow id if one was started) of each
    member still waiting for a preparation: one query for the whole cohort."""
    wr = schema.workflow_run_projections
    existing = (
        select(wr.c.workflow_id)
        .where(wr.c.job_id == DEJ.c.job_id, wr.c.workflow_type == "JobPreparationWorkflow")
        .limit(1)
        .scalar_subquery()
    )
    with ctx.store.read() as conn:
        rows = conn.execute(
            select(DEJ.c.job_id, schema.jobs.c.idempotency_key, existing)
            .join(schema.jobs, schema.jobs.c.id == DEJ.c.job_id)
            .where(
                DEJ.c.tenant_id == ref.tenant_id,
                DEJ.c.discover_workflow_id == ref.workflow_id,
                DEJ.c.discover_run_id == ref.run_id,
                DEJ.c.work_plan_state == "pending",
            )
        ).all()
    return [tuple(r) for r in rows]


def mark_planned(ctx: StageContext, ref: ExecutionRef, job_id: str, workflow_id: str) -> None:
    with ctx.store.write() as tx:
        tx.conn.execute(
            update(DEJ)
            .where(*_member_key(ref, job_id))
            .values(work_plan_state="planned", prep_workflow_id=workflow_id, updated_at=utcnow())
        )


def terminal_step(
    ctx: StageContext, ref: ExecutionRef, kind: str, done: int, attempt: int, counts: dict[str, int]
) -> None:
    with ctx.store.write() as tx:
        _step(tx, ref, kind, kind, attempt, counts=counts)
        _advance(tx, ref, done)
        _set_counts(tx, ref, kind, counts)


def finish(ctx: StageContext, fin: DiscoverFinish) -> None:
    ref = fin.ref
    with ctx.store.write() as tx:
        tx.conn.execute(
            update(DR)
            .where(*_run_key(ref))
            .values(status=fin.status, error_code=fin.error_code, finished_at=utcnow())
        )
        tx.append(
            DiscoveryRunCompleted(
                tenant_id=ref.tenant_id,
                workflow_id=ref.workflow_id,
                run_id=ref.run_id,
                status=fin.status,
                error_code=fin.error_code,
                counts=fin.counts,
            ),
            key=f"discovery-finished:{ref.workflow_id}:{ref.run_id}",
        )


def member_count(ctx: StageContext, ref: ExecutionRef) -> int:
    with ctx.store.read() as conn:
        return int(
            conn.execute(
                select(func.count()).where(
                    DEJ.c.discover_workflow_id == ref.workflow_id,
                    DEJ.c.discover_run_id == ref.run_id,
                )
            ).scalar_one()
        )


def jobs_created_by(ctx: StageContext, ref: ExecutionRef) -> int:
    """Members of this run whose job did not exist before the run started."""
    j = schema.jobs
    with ctx.store.read() as conn:
        started = conn.execute(select(DR.c.started_at).where(*_run_key(ref))).scalar()
        return int(
            conn.execute(
                select(func.count())
                .select_from(DEJ.join(j, j.c.id == DEJ.c.job_id))
                .where(
                    DEJ.c.discover_workflow_id == ref.workflow_id,
                    DEJ.c.discover_run_id == ref.run_id,
                    j.c.created_at >= started,
                )
            ).scalar_one()
        )


def progress_total(ctx: StageContext, ref: ExecutionRef) -> int:
    with ctx.store.read() as conn:
        return int(conn.execute(select(DR.c.progress_total).where(*_run_key(ref))).scalar() or 0)
