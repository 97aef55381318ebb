"""The public-fetch recheck in the store: the typed evidence an Enrich refusal leaves
(``public_fetch_rechecks``), the failures due for a check, and the one write
transaction that records a check and, when the condition resolved, returns the stage
to pending. The rules are in ``domain/public_fetch.py``.

A candidate is the job's CURRENT Enrich failure: the row failed non-retryable with
``DETAIL_UNSAFE_URL`` under exactly the run and attempt the evidence names, and the
job's latest Enrich StageFailed is that same failure; nothing owns or reserves the row;
the job is there and its posting not closed; its automatic attempts are not used up.
Each check's transaction verifies all of that again before it writes anything.
Every read and write keeps to the store's tenant (each table named carries its
``tenant_id`` predicate; the evidence row is stamped with it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Connection, or_, select, update

from jobctrl.domain import public_fetch as rules
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import Clock, as_utc
from jobctrl.domain.errors import DETAIL_UNSAFE_URL
from jobctrl.domain.events import EnrichmentFetchRechecked
from jobctrl.domain.recovery import max_auto_attempts
from jobctrl.domain.stages import Stage, StageState
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.operations_tables import public_fetch_rechecks
from jobctrl.store.stage_control import reset_row_in
from jobctrl.store.store import Store, WriteTx

S = schema.job_stage_states
R = public_fetch_rechecks
E = schema.job_events
LEGACY_SCAN = 500  # refusals without evidence one pass reads, at most


@dataclass(frozen=True)
class Candidate:
    job_id: str
    run_id: str  # the failed attempt's run and number
    attempt: int
    cause: str
    host: str  # the failed request's host
    posting_host: str  # the posting URL's host (the same, unless a redirect failed)
    checks: int
    due: datetime


def record_refusal(
    tx: WriteTx, job_id: str, stage: str, run_id: str, attempt: int, cause: str, host: str
) -> None:
    """Keep the evidence of an Enrich refusal, in the failing transaction: one row per
    job (its latest refusal), no check made yet. Other stages and causes keep none."""
    if stage != Stage.ENRICH or cause not in rules.RECHECKABLE:
        return
    values = {
        "run_id": run_id,
        "attempt": attempt,
        "cause": cause,
        "host": host.strip("[]").lower()[:255],
        "checks": 0,
        "next_check_at": None,
        "result": None,
        "created_at": tx.now,
        "updated_at": tx.now,
    }
    row = {"tenant_id": tx.tenant, "job_id": job_id, **values}  # job ids are tenant-salted
    upsert(tx.conn, R, row, keys=["job_id"], update=list(values))


def adopt_legacy(store: Store, *, clock: Clock | None = None) -> int:
    """Give typed evidence to Enrich refusals recorded before it existed, when their
    message is exactly the one jobctrl wrote then for a host NAME (``legacy_dns_host``);
    how many. A literal, or any other text, is never adopted."""
    with store.read() as conn:
        recorded = select(R.c.job_id).where(tenancy.scoped(R, conn), R.c.job_id == S.c.job_id)
        rows = conn.execute(
            select(S.c.job_id, S.c.owner_run_id, S.c.attempts, S.c.error_message, S.c.finished_at)
            .where(
                tenancy.scoped(S, conn),
                S.c.stage == Stage.ENRICH.value,
                S.c.state == StageState.FAILED.value,
                S.c.error_code == DETAIL_UNSAFE_URL,
                S.c.owner_run_id.is_not(None),
                ~recorded.exists(),
            )
            .limit(LEGACY_SCAN)
        ).all()
    legacy = [(r, host) for r in rows if (host := rules.legacy_dns_host(r.error_message))]
    if not legacy:
        return 0
    adopted = 0
    with store.write(clock=clock) as tx:
        for r, host in legacy:
            held = tx.conn.execute(
                select(R.c.job_id).where(R.c.tenant_id == tx.tenant, R.c.job_id == r.job_id)
            ).first()
            if held is not None or not _still_failed(tx.conn, r):
                continue  # adopted meanwhile, or the row moved on (a retry, a reset)
            adopted += 1
            record_refusal(
                tx, r.job_id, Stage.ENRICH, r.owner_run_id, r.attempts, rules.DNS_NON_PUBLIC, host
            )
            if r.finished_at is not None:  # its first check counts from the failure itself
                tx.conn.execute(
                    update(R)
                    .where(R.c.tenant_id == tx.tenant, R.c.job_id == r.job_id)
                    .values(created_at=r.finished_at)
                )
    return adopted


def _still_failed(conn: Connection, read: Any) -> bool:
    """The Enrich row read before the write lock is still that refusal (same run, same
    attempt, same message): read again under the lock."""
    return (
        conn.execute(
            select(S.c.job_id).where(
                tenancy.keyed(S, tenancy.tenant_of(conn)),
                S.c.job_id == read.job_id,
                S.c.stage == Stage.ENRICH.value,
                S.c.state == StageState.FAILED.value,
                S.c.error_code == DETAIL_UNSAFE_URL,
                S.c.owner_run_id == read.owner_run_id,
                S.c.attempts == read.attempts,
                S.c.error_message == read.error_message,
            )
        ).first()
        is not None
    )


def _current(conn: Connection, job_id: str, run_id: str, attempt: int, stage_limit: int) -> bool:
    """The failure is still the job's current, unowned, not exhausted Enrich failure."""
    jobs = schema.jobs
    row = (
        conn.execute(
            select(
                S.c.state,
                S.c.error_code,
                S.c.retryable,
                S.c.owner_run_id,
                S.c.attempts,
                S.c.reserved_by,
                S.c.auto_attempts,
                jobs.c.availability,
            )
            .join(jobs, jobs.c.id == S.c.job_id)
            .where(
                tenancy.scoped(S, conn),
                tenancy.scoped(jobs, conn),
                S.c.job_id == job_id,
                S.c.stage == Stage.ENRICH.value,
            )
        )
        .mappings()
        .first()
    )
    if row is None:  # the job is gone
        return False
    if (
        row["state"] != StageState.FAILED.value
        or row["error_code"] != DETAIL_UNSAFE_URL
        or row["retryable"]
        or row["owner_run_id"] != run_id
        or row["attempts"] != attempt
        or row["reserved_by"] is not None
        or row["availability"] == Availability.UNAVAILABLE
        or row["auto_attempts"] >= max_auto_attempts(stage_limit)
    ):
        return False
    return _latest_failure(conn, job_id) == (run_id, attempt)


def _latest_failure(conn: Connection, job_id: str) -> tuple[str, int] | None:
    """(run id, attempt) of the job's latest Enrich StageFailed event."""
    rows = conn.execute(
        select(E.c.payload)
        .where(tenancy.scoped(E, conn), E.c.job_id == job_id, E.c.type == "StageFailed")
        .order_by(E.c.seq.desc())
    ).scalars()
    for payload in rows:
        if payload.get("stage") == Stage.ENRICH.value:
            return str(payload.get("runId")), int(payload.get("attempt") or 0)
    return None


def _due_at(checks: int, created: datetime, scheduled: datetime | None, base: float) -> datetime:
    if checks == 0 or scheduled is None:
        return as_utc(created) + rules.check_delay(0, base=base)
    return as_utc(scheduled)


def due(
    store: Store,
    now: datetime,
    *,
    stage_limit: int,
    base: float = rules.FIRST_CHECK_SECONDS,
    limit: int = rules.CANDIDATES_PER_PASS,
) -> list[Candidate]:
    """At most ``limit`` failures due for a check now, the longest waiting first."""
    jobs = schema.jobs
    found: list[Candidate] = []
    with store.read() as conn:
        rows = conn.execute(
            select(R, jobs.c.url)
            .join(jobs, jobs.c.id == R.c.job_id)
            .join(S, (S.c.job_id == R.c.job_id) & (S.c.stage == Stage.ENRICH.value))
            .where(
                tenancy.scoped(R, conn),
                tenancy.scoped(jobs, conn),
                tenancy.scoped(S, conn),
                R.c.cause.in_(rules.RECHECKABLE),
                R.c.checks < rules.MAX_CHECKS,
                or_(R.c.result.is_(None), R.c.result != rules.CheckResult.PUBLIC.value),
                S.c.state == StageState.FAILED.value,
                S.c.error_code == DETAIL_UNSAFE_URL,
                S.c.owner_run_id == R.c.run_id,
                S.c.attempts == R.c.attempt,
            )
        ).mappings()
        waiting = [
            (when, r)
            for r in rows
            if (when := _due_at(r["checks"], r["created_at"], r["next_check_at"], base)) <= now
        ]
        waiting.sort(key=lambda item: (item[0], item[1]["job_id"]))
        for when, r in waiting:  # the full recheck only for the few a pass takes
            if len(found) >= limit:
                break
            if not _current(conn, r["job_id"], r["run_id"], r["attempt"], stage_limit):
                continue
            found.append(
                Candidate(
                    job_id=r["job_id"],
                    run_id=r["run_id"],
                    attempt=int(r["attempt"]),
                    cause=r["cause"],
                    host=r["host"],
                    posting_host=(urlsplit(r["url"]).hostname or "").lower(),
                    checks=int(r["checks"]),
                    due=when,
                )
            )
    return found


def settle_check(
    store: Store,
    candidate: Candidate,
    result: rules.CheckResult,
    *,
    stage_limit: int,
    base: float = rules.FIRST_CHECK_SECONDS,
    clock: Clock | None = None,
) -> bool | None:
    """Record one check of ``candidate`` in one write transaction, after checking again
    that it is still the job's current failure, unowned, its evidence unchanged. When
    ``result`` is public, the stage returns to pending (attempts kept) with a StageReset
    ``public_fetch_condition_resolved``. True: reset; False: recorded, still blocked;
    None: the candidate changed meanwhile, nothing written."""
    with store.write(clock=clock) as tx:
        held = tx.conn.execute(
            select(R.c.checks).where(
                R.c.tenant_id == tx.tenant,
                R.c.job_id == candidate.job_id,
                R.c.run_id == candidate.run_id,
                R.c.attempt == candidate.attempt,
            )
        ).scalar()
        if held != candidate.checks or not _current(
            tx.conn, candidate.job_id, candidate.run_id, candidate.attempt, stage_limit
        ):
            return None
        checks = candidate.checks + 1
        resolved = result == rules.CheckResult.PUBLIC
        later = None if resolved else rules.next_check_at(tx.now, checks, base=base)
        tx.conn.execute(
            update(R)
            .where(R.c.tenant_id == tx.tenant, R.c.job_id == candidate.job_id)
            .values(checks=checks, result=result.value, next_check_at=later, updated_at=tx.now)
        )
        tx.append(
            EnrichmentFetchRechecked(
                job_id=candidate.job_id,
                error_code=DETAIL_UNSAFE_URL,
                cause=candidate.cause,
                host=candidate.host,
                result=result.value,
                checks=checks,
                next_check_at=later,
            ),
            key=f"fetch-rechecked:{candidate.job_id}:{candidate.run_id}:{candidate.attempt}:{checks}",
        )
        if not resolved:
            return False
        reset_row_in(
            tx,
            candidate.job_id,
            Stage.ENRICH.value,
            reason=rules.RESET_REASON,
            key=f"stage-reset:{candidate.job_id}:enrich:{rules.RESET_REASON}:{candidate.run_id}:"
            f"{candidate.attempt}",
        )
    return True


def evidence(store: Store, job_id: str) -> dict[str, object] | None:
    """The job's recorded refusal evidence and its checks (None: none recorded)."""
    with store.read() as conn:
        row = (
            conn.execute(select(R).where(tenancy.scoped(R, conn), R.c.job_id == job_id))
            .mappings()
            .first()
        )
    return dict(row) if row else None
